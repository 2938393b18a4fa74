import { createHash, randomBytes } from "node:crypto";
import sharp from "sharp";
import type { Storage } from "#server/storage/storage.ts";
import { mp4Info } from "#server/media/mp4.ts";
import { posterFrame } from "#server/media/poster.ts";
import { embedXmp, provenanceXmp, XmpWriteError, type Provenance } from "#server/media/xmp.ts";
import { signC2pa, stripC2pa, type C2paSigner } from "#server/media/c2pa.ts";
import { drawLabel, type VisibleLabel } from "#server/media/label.ts";

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

const IMAGE_TYPES: Record<string, { mime: string; ext: string; container: "png" | "jpeg" | "webp" }> = {
  png: { mime: "image/png", ext: "png", container: "png" },
  jpeg: { mime: "image/jpeg", ext: "jpg", container: "jpeg" },
  webp: { mime: "image/webp", ext: "webp", container: "webp" },
};
export const THUMB_WIDTH = 512;

const checksum = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * An image marked with its provenance: the XMP packet written into its own container, no pixel decoded; should the
 * container be one the writer cannot follow (yet decodable), encoded again with the packet (PNG stays lossless).
 */
async function markedImage(bytes: Uint8Array, container: "png" | "jpeg" | "webp", xmp: string): Promise<Uint8Array> {
  try {
    // A provider's own C2PA manifest would no longer validate once the packet is in: it goes.
    return embedXmp(container === "webp" ? bytes : stripC2pa(bytes, container), container, xmp);
  } catch (error) {
    if (!(error instanceof XmpWriteError)) throw error;
    const image = sharp(bytes, { limitInputPixels: 100_000_000 }).withXmp(xmp);
    return container === "png"
      ? image.png().toBuffer()
      : container === "jpeg"
        ? image.jpeg({ quality: 95 }).toBuffer()
        : image.webp({ quality: 95 }).toBuffer();
  }
}

/**
 * Copies a job's outputs into storage right away (provider URLs expire), each marked with its provenance (what made
 * it, where, as which generation: XMP in the file, thumbnails and posters included; with the operator's certificate,
 * a signed C2PA manifest too in a PNG or JPEG, written last), images with the operator's visible label when asked,
 * and with a thumbnail (images) or a poster frame (videos, when one can be made). Bytes that are not the media they claim to be are refused as a
 * parse error. Returns what was written; on failure, whatever was written is removed again.
 */
export async function storeOutputs(
  storage: Storage,
  options: {
    userId: string;
    generationId: string;
    kind: "image" | "video";
    outputs: ProviderOutput[];
    provenance: Omit<Provenance, "generationId" | "createdAt">;
    /** Signs PNG and JPEG outputs with a C2PA manifest; WebP and MP4 keep their XMP alone. */
    c2pa?: C2paSigner | null;
    /** Told when a C2PA signature could not be made (the output is then stored with its XMP alone). */
    onSignatureError?: (error: Error) => void;
    /** The operator's visible label, drawn on images (and so on their thumbnails) before they are marked. */
    label?: VisibleLabel | null;
  },
): Promise<StoredOutput[]> {
  const xmp = provenanceXmp({ ...options.provenance, generationId: options.generationId, createdAt: new Date() });
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
        const source = options.label ? await drawLabel(output.bytes, type.container, options.label) : output.bytes;
        const thumb = await sharp(source)
          .resize({ width: THUMB_WIDTH, withoutEnlargement: true })
          .withXmp(xmp)
          .webp({ quality: 80 })
          .toBuffer();
        let bytes = await markedImage(source, type.container, xmp);
        if (options.c2pa && type.container !== "webp") {
          // A signature that cannot be made leaves the output with its XMP: the job is not lost for it.
          const marked = bytes;
          bytes = await signC2pa(marked, type.container, options.provenance, options.c2pa).catch((error: Error) => {
            options.onSignatureError?.(error);
            return marked;
          });
        }
        await put(`${base}.${type.ext}`, bytes, type.mime);
        await put(`${base}-thumb.webp`, thumb, "image/webp");
        stored.push({
          kind: "image",
          mimeType: type.mime,
          width: meta.width,
          height: meta.height,
          durationMs: null,
          sizeBytes: bytes.byteLength,
          checksum: checksum(bytes),
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
          const poster = await sharp(still).withXmp(xmp).webp({ quality: 80 }).toBuffer();
          thumbKey = `${base}-poster.webp`;
          await put(thumbKey, poster, "image/webp");
        }
        const ext = webm ? "webm" : "mp4";
        // An MP4 gets the packet in a box of its own at its end; a WebM (Matroska) is stored as it came.
        let bytes = output.bytes;
        if (!webm) {
          try {
            bytes = embedXmp(output.bytes, "mp4", xmp);
          } catch (error) {
            if (error instanceof XmpWriteError) throw new UnreadableOutput(`output ${index}: ${error.message}`);
            throw error;
          }
        }
        await put(`${base}.${ext}`, bytes, `video/${ext}`);
        stored.push({
          kind: "video",
          mimeType: `video/${ext}`,
          width: info?.width || null,
          height: info?.height || null,
          durationMs: info?.durationMs ?? null,
          sizeBytes: bytes.byteLength,
          checksum: checksum(bytes),
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
