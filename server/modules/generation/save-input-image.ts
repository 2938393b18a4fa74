import { createHash, randomBytes } from "node:crypto";
import type { Db } from "#server/db/client.ts";
import { asset } from "#server/db/schema/index.ts";
import type { Storage } from "#server/storage/storage.ts";
import sharp from "sharp";
import { normalizeInputImage, type NormalizedInputImage } from "./input-image.ts";

/**
 * Keeps an input image (or a mask) for a tool: checked and re-encoded (which drops its metadata), stored, and
 * recorded as the user's private input asset. A mask is kept as a lossless grey PNG: white what changes, black what
 * stays (transparent counts as black).
 */
export async function saveInputImage(options: {
  db: Db;
  storage: Storage;
  userId: string;
  bytes: Uint8Array;
  mask?: boolean;
}) {
  const checked = await normalizeInputImage(options.bytes);
  const image = options.mask ? await asMask(checked) : checked;
  const ext = image.mediaType === "image/png" ? "png" : "webp";
  const key = `inputs/${options.userId}/${randomBytes(12).toString("hex")}.${ext}`;
  await options.storage.put(key, image.bytes, image.mediaType);
  try {
    const [row] = await options.db
      .insert(asset)
      .values({
        userId: options.userId,
        role: "input",
        kind: "image",
        mimeType: image.mediaType,
        width: image.width,
        height: image.height,
        sizeBytes: image.bytes.byteLength,
        checksum: createHash("sha256").update(image.bytes).digest("hex"),
        storageKey: key,
      })
      .returning({
        id: asset.id,
        width: asset.width,
        height: asset.height,
        mimeType: asset.mimeType,
        sizeBytes: asset.sizeBytes,
      });
    return row!;
  } catch (error) {
    await options.storage.delete(key).catch(() => undefined);
    throw error;
  }
}

async function asMask(image: NormalizedInputImage): Promise<NormalizedInputImage> {
  const png = await sharp(image.bytes).flatten({ background: "#000000" }).toColourspace("b-w").png().toBuffer();
  return { ...image, bytes: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), mediaType: "image/png" };
}
