import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

export type Encoding = "br" | "gzip";

const br = promisify(brotliCompress);
const gz = promisify(gzip);

/** The encoding to answer with: brotli, then gzip, as the client accepts them (`q=0` refuses). */
export function pickEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    accepted.set(name!.trim(), q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (ok("br")) return "br";
  if (ok("gzip")) return "gzip";
  return null;
}

/**
 * A body compressed on zlib's thread pool: `fast` for an answer made for one request (brotli 4, gzip 6), `best` for
 * one made once and kept (brotli 11, gzip 9).
 */
export function encode(body: Buffer, encoding: Encoding, effort: "fast" | "best"): Promise<Buffer> {
  if (encoding === "gzip") return gz(body, { level: effort === "best" ? 9 : 6 });
  return br(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: effort === "best" ? 11 : 4,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/** The bytes of a Buffer as a Response body, without copying them. */
export const bodyOf = (b: Buffer) => new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.length);

/** One Vary header holding both lists, each name once. */
export function mergeVary(current: string | null | undefined, add: string): string {
  const names = new Map<string, string>();
  for (const name of `${current ?? ""},${add}`.split(",")) {
    const trimmed = name.trim();
    if (trimmed) names.set(trimmed.toLowerCase(), trimmed);
  }
  return [...names.values()].join(", ");
}
