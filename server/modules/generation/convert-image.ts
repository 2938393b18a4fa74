import sharp from "sharp";
import type { LinkFormat } from "./media-links.ts";

/**
 * An image in another format: PNG, JPEG or WebP, at `quality` (0–100) for the lossy ones. JPEG has no transparency,
 * so what was transparent becomes white. The image's XMP (its provenance) is kept.
 */
export async function convertImage(bytes: Uint8Array, format: LinkFormat, quality = 90): Promise<Buffer> {
  // The stored image's provenance (its XMP) travels into the new format.
  const image = sharp(bytes, { limitInputPixels: 64_000_000 }).keepXmp();
  switch (format) {
    case "png":
      return image.png().toBuffer();
    case "jpg":
    case "jpeg":
      return image
        .flatten({ background: "#ffffff" })
        .jpeg({ quality: Math.max(1, quality) })
        .toBuffer();
    case "webp":
      return image.webp({ quality: Math.max(1, quality) }).toBuffer();
  }
}
