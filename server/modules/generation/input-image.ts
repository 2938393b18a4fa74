import sharp, { type Metadata } from "sharp";
import { AppError } from "#server/errors.ts";

export const INPUT_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const INPUT_IMAGE_MAX_PIXELS = 40_000_000;

export type InputImageMediaType = "image/png" | "image/webp";

export interface NormalizedInputImage {
  bytes: Uint8Array;
  mediaType: InputImageMediaType;
  width: number;
  height: number;
}

type AcceptedFormat = "png" | "jpeg" | "webp";

// libwebp cannot store a side longer than this; such (panorama-shaped) images are kept as PNG instead.
const WEBP_MAX_SIDE = 16_383;

/**
 * Only these three signatures ever reach libvips: it would otherwise pick a loader by content for SVG, TIFF,
 * HEIF, GIF and more, each one more parser exposed to untrusted bytes.
 */
function sniffFormat(bytes: Uint8Array): AcceptedFormat | null {
  const startsWith = (signature: number[], offset = 0) =>
    bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (startsWith([0xff, 0xd8, 0xff])) return "jpeg";
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return "webp";
  return null;
}

/**
 * Turns untrusted bytes (an upload or a downloaded URL) into an image that is safe to store and hand to a
 * provider: PNG, JPEG or WebP by content, at most 10 MB and 40 megapixels, upright (EXIF orientation applied),
 * converted to 8-bit sRGB, first frame only, with every piece of metadata (EXIF, GPS, XMP, IPTC, ICC) dropped.
 *
 * Images with an alpha channel become PNG, which every provider accepts as an edit source or mask; the others
 * become WebP at quality 90, visually lossless and far smaller than PNG for photos.
 *
 * Images declaring more than 40 megapixels are refused as too large from their header alone, before any pixel is
 * decoded, so a small file claiming huge dimensions (a decompression bomb) costs nothing; the decoder keeps the
 * same limit as a second guard.
 */
export async function normalizeInputImage(bytes: Uint8Array): Promise<NormalizedInputImage> {
  if (bytes.byteLength > INPUT_IMAGE_MAX_BYTES) {
    throw new AppError("input_image_too_large", `${bytes.byteLength} bytes, at most ${INPUT_IMAGE_MAX_BYTES}`);
  }
  const format = sniffFormat(bytes);
  if (!format) throw new AppError("input_image_invalid", "not a PNG, JPEG or WebP image");

  let metadata: Metadata;
  try {
    // Header only, without sharp's own pixel limit, so that an oversized image is reported as too large
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new AppError("input_image_invalid", "unreadable image header");
  }
  if (metadata.format !== format) throw new AppError("input_image_invalid", "content does not match its signature");
  const { width, height } = metadata;
  if (!(width > 0 && height > 0)) throw new AppError("input_image_invalid", "image without dimensions");
  if (width * height > INPUT_IMAGE_MAX_PIXELS) {
    throw new AppError("input_image_too_large", `${width}x${height} pixels, at most ${INPUT_IMAGE_MAX_PIXELS}`);
  }

  const asPng = metadata.hasAlpha || Math.max(width, height) > WEBP_MAX_SIDE;
  try {
    // failOn "warning" turns a truncated or corrupt pixel stream into an error instead of a half-grey picture
    const pipeline = sharp(bytes, { limitInputPixels: INPUT_IMAGE_MAX_PIXELS, failOn: "warning", autoOrient: true });
    const { data, info } = await (asPng ? pipeline.png() : pipeline.webp({ quality: 90 })).toBuffer({
      resolveWithObject: true,
    });
    return { bytes: data, mediaType: asPng ? "image/png" : "image/webp", width: info.width, height: info.height };
  } catch {
    throw new AppError("input_image_invalid", "the image could not be decoded");
  }
}
