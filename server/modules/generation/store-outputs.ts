import { createHash, randomBytes } from "node:crypto";
import sharp from "sharp";
import type { Storage } from "#server/storage/storage.ts";
import { mp4Info } from "#server/media/mp4.ts";
import { posterFrame } from "#server/media/poster.ts";

/** What a provider returned for one output. */
export interface ProviderOutput {
  bytes: Uint8Array;
  mediaType: string;
  /** A still for a video, when the model made one itself. */
  poster?: Uint8Array;
}

/** A file written to storage, described for its asset row. */
export interface StoredOutput {
  kind: "image" | "video";
  mimeType: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  sizeBytes: number;
  checksum: string;
  storageKey: string;
  thumbKey: string | null;
}

export class UnreadableOutput extends Error {}

const IMAGE_TYPES: Record<string, { mime: string; ext: string }> = {
  png: { mime: "image/png", ext: "png" },
  jpeg: { mime: "image/jpeg", ext: "jpg" },
  webp: { mime: "image/webp", ext: "webp" },
};
export const THUMB_WIDTH = 512;

const checksum = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * Copies a job's outputs into storage right away (provider URLs expire), each with a thumbnail (images) or a poster
 * frame (videos, when one can be made). Bytes that are not the media they claim to be are refused as a parse error.
 * Returns what was written; on failure, whatever was written is removed again.
 */
export async function storeOutputs(
  storage: Storage,
  options: { userId: string; generationId: string; kind: "image" | "video"; outputs: ProviderOutput[] },
): Promise<StoredOutput[]> {
  const written: string[] = [];
  const put = async (key: string, bytes: Uint8Array, type: string) => {
    await storage.put(key, bytes, type);
    written.push(key);
  };
  try {
    const stored: StoredOutput[] = [];
    for (const [index, output] of options.outputs.entries()) {
      const base = `media/${options.userId}/${options.generationId}/${index}-${randomBytes(6).toString("hex")}`;
      if (options.kind === "image") {
        let meta;
        try {
          meta = await sharp(output.bytes, { limitInputPixels: 100_000_000 }).metadata();
        } catch {
          throw new UnreadableOutput(`output ${index} is not an image`);
        }
        const type = IMAGE_TYPES[meta.format ?? ""];
        if (!type || !meta.width || !meta.height) throw new UnreadableOutput(`output ${index} is ${meta.format}`);
        const thumb = await sharp(output.bytes)
          .resize({ width: THUMB_WIDTH, withoutEnlargement: true })
          .webp({ quality: 80 })
          .toBuffer();
        await put(`${base}.${type.ext}`, output.bytes, type.mime);
        await put(`${base}-thumb.webp`, thumb, "image/webp");
        stored.push({
          kind: "image",
          mimeType: type.mime,
          width: meta.width,
          height: meta.height,
          durationMs: null,
          sizeBytes: output.bytes.byteLength,
          checksum: checksum(output.bytes),
          storageKey: `${base}.${type.ext}`,
          thumbKey: `${base}-thumb.webp`,
        });
      } else {
        const info = mp4Info(output.bytes);
        const webm = output.mediaType === "video/webm";
        if (!info && !webm) throw new UnreadableOutput(`output ${index} is not an MP4 video`);
        const still = output.poster ?? (await posterFrame(output.bytes));
        let thumbKey: string | null = null;
        if (still) {
          const poster = await sharp(still).webp({ quality: 80 }).toBuffer();
          thumbKey = `${base}-poster.webp`;
          await put(thumbKey, poster, "image/webp");
        }
        const ext = webm ? "webm" : "mp4";
        await put(`${base}.${ext}`, output.bytes, `video/${ext}`);
        stored.push({
          kind: "video",
          mimeType: `video/${ext}`,
          width: info?.width || null,
          height: info?.height || null,
          durationMs: info?.durationMs ?? null,
          sizeBytes: output.bytes.byteLength,
          checksum: checksum(output.bytes),
          storageKey: `${base}.${ext}`,
          thumbKey,
        });
      }
    }
    return stored;
  } catch (error) {
    await removeFiles(storage, written);
    throw error;
  }
}

/** Best effort: a file that cannot be removed now is only wasted space, never shown (no row points to it). */
export async function removeFiles(storage: Storage, keys: Array<string | null>): Promise<void> {
  await Promise.all(keys.filter((k): k is string => Boolean(k)).map((k) => storage.delete(k).catch(() => undefined)));
}
