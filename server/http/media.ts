import { Hono, type Context } from "hono";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";
import { runtimeReady, type RuntimeEnv } from "#server/http/runtime-gate.ts";
import { sessionOf } from "#server/http/auth.ts";
import type { Storage } from "#server/storage/storage.ts";
import { isStorageKey } from "#server/storage/storage.ts";
import { findMedia } from "#server/modules/generation/find-media.ts";
import { isUuid } from "#common/ids.ts";
import { LINK_FORMATS, type LinkFormat } from "#server/modules/generation/media-links.ts";
import { convertImage } from "#server/modules/generation/convert-image.ts";
import { c2paSignerOf, type C2paSigner } from "#server/media/c2pa.ts";

/**
 * Sends a stored object with the headers a browser and a video player need: its type and size, byte ranges
 * (206 for `Range: bytes=a-b`, 416 for a range past the end), an ETag for revalidation, and HEAD without a body.
 */
export async function sendStored<E extends AppEnv>(
  c: Context<E>,
  storage: Storage,
  key: string,
  options: { cacheControl: string; etag?: string; contentType?: string; download?: string },
): Promise<Response> {
  const info = await storage.stat(key);
  if (!info) return c.text("Not found", 404);
  const headers: Record<string, string> = {
    "Content-Type": options.contentType ?? info.contentType,
    "Accept-Ranges": "bytes",
    "Cache-Control": options.cacheControl,
    "X-Content-Type-Options": "nosniff",
    // Media never runs as a page, whatever a file's bytes say.
    "Content-Security-Policy": "default-src 'none'; sandbox",
    // Public media may be embedded elsewhere (a shared link's preview); private media only by this site.
    "Cross-Origin-Resource-Policy": options.cacheControl.startsWith("public") ? "cross-origin" : "same-origin",
  };
  if (options.etag) headers.ETag = `"${options.etag}"`;
  if (options.download) headers["Content-Disposition"] = `attachment; filename="${options.download}"`;
  if (
    options.etag &&
    c.req
      .header("if-none-match")
      ?.split(/\s*,\s*/)
      .includes(`"${options.etag}"`)
  ) {
    return new Response(null, { status: 304, headers });
  }
  const range = parseRange(c.req.header("range"), info.size);
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${info.size}` } });
  }
  if (c.req.method === "HEAD") {
    return new Response(null, { status: 200, headers: { ...headers, "Content-Length": String(info.size) } });
  }
  const file = await storage.get(key, range ?? undefined);
  if (!file) return c.text("Not found", 404);
  if (range) {
    return new Response(file.body, {
      status: 206,
      headers: {
        ...headers,
        "Content-Range": `bytes ${range.start}-${range.end}/${info.size}`,
        "Content-Length": String(range.end - range.start + 1),
      },
    });
  }
  return new Response(file.body, { status: 200, headers: { ...headers, "Content-Length": String(info.size) } });
}

/** One `bytes=` range (the form players send); several ranges or a malformed header mean the whole file. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | "unsatisfiable" | null {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (size === 0) return "unsatisfiable";
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return "unsatisfiable";
  if (end < start) return null;
  return { start, end };
}

/**
 * `/media/<asset>.<ext>` and `/media/<asset>/thumb.webp`: generated and uploaded media at stable URLs. Private
 * media goes only to its owner (others get the same 404 as for a missing file); public media to anyone, cached
 * briefly by shared caches, since its owner can make it private again.
 */
export function mediaRoutes(state: ServerState) {
  const media = new Hono<AppEnv>().use(runtimeReady(state));
  const serve = async (c: Context<RuntimeEnv>, id: string, variant: "file" | "thumb", ext?: string) => {
    if (!isUuid(id)) return c.text("Not found", 404);
    const runtime = c.var.runtime;
    // A signed link opens the file it names, in the format it names, with no session, until it expires.
    const signed = runtime.mediaLinks.verify(c.req.path, c.req.query("expires"), c.req.query("sig"));
    let viewerId: string | null = null;
    if (!signed) {
      const session = await sessionOf(c);
      for (const cookie of session.setCookies) c.header("Set-Cookie", cookie, { append: true });
      viewerId = session.viewer?.id ?? null;
    }
    const found = await findMedia({ db: runtime.database.db, assetId: id, viewerId, anyone: signed });
    if (!found) return c.text("Not found", 404);
    const key = variant === "thumb" ? found.thumbKey : found.storageKey;
    if (!key || !isStorageKey(key)) return c.text("Not found", 404);
    const cacheControl = found.public ? "public, max-age=300, stale-while-revalidate=60" : "private, max-age=86400";
    const stored = found.storageKey.split(".").pop();
    if (signed && variant === "file" && ext && ext !== stored && ext in LINK_FORMATS) {
      // Only an output is signed again: an upload's XMP is whatever its sender wrote.
      return sendConverted(c, runtime.storage, key, ext as LinkFormat, found.output ? c2paSignerOf(runtime.env) : null);
    }
    return sendStored(c, runtime.storage, key, {
      cacheControl,
      etag: variant === "thumb" ? `${found.checksum.slice(0, 32)}-t` : found.checksum.slice(0, 32),
      download: c.req.query("download") !== undefined && variant === "file" ? `atelier-${id}.${stored}` : undefined,
    });
  };
  media.on(["GET", "HEAD"], "/:id{[0-9a-fA-F-]{36}}/thumb.webp", (c) => serve(c, c.req.param("id"), "thumb"));
  media.on(["GET", "HEAD"], "/:file{[0-9a-fA-F-]{36}\\.[a-z0-9]{2,5}}", (c) => {
    const [id, ext] = c.req.param("file").split(".");
    return serve(c, id!, "file", ext);
  });
  media.all("*", (c) => c.text("Not found", 404));
  return media;
}

/** A stored image sent in another format (a signed link asked for it): converted on the way, never kept. */
async function sendConverted(
  c: Context<RuntimeEnv>,
  storage: Storage,
  key: string,
  format: LinkFormat,
  c2pa: C2paSigner | null,
) {
  const file = await storage.get(key);
  if (!file) return c.text("Not found", 404);
  const bytes = Buffer.from(await new Response(file.body).arrayBuffer());
  const converted = await convertImage(bytes, format, 90, c2pa);
  return new Response(c.req.method === "HEAD" ? null : new Uint8Array(converted), {
    status: 200,
    headers: {
      "Content-Type": LINK_FORMATS[format],
      "Content-Length": String(converted.byteLength),
      "Cache-Control": "private, max-age=3600",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cross-Origin-Resource-Policy": "cross-origin",
    },
  });
}
