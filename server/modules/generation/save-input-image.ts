import { createHash, randomBytes } from "node:crypto";
import type { Db } from "#server/db/client.ts";
import { asset } from "#server/db/schema/index.ts";
import type { Storage } from "#server/storage/storage.ts";
import { normalizeInputImage } from "./input-image.ts";

/**
 * Keeps an input image for image-to-image: checked and re-encoded (which drops its metadata), stored, and recorded
 * as the user's private input asset.
 */
export async function saveInputImage(options: { db: Db; storage: Storage; userId: string; bytes: Uint8Array }) {
  const image = await normalizeInputImage(options.bytes);
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
