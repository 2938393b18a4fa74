/** The demo's upscaler: a plain, sharp resampling, the same every time, with no model behind it. */
import sharp from "sharp";
import { InvalidArgumentError } from "@ai-sdk/provider";
import { bytesOf, type CallFile } from "#server/providers/demo/raster.ts";

/** The largest image upscaling makes: the most pixels the server stores of one result. */
export const UPSCALE_MAX_PIXELS = 100_000_000;

/**
 * Upscales by a whole factor with a Lanczos (3-lobe) kernel, then sharpens lightly to restore what the resampling
 * softens. Transparency is kept. A PNG of exactly scale × the input's (upright) size.
 */
export async function upscale(file: CallFile, scale: number): Promise<Uint8Array> {
  const bytes = bytesOf(file, "files", "input image");
  let width: number;
  let height: number;
  try {
    const meta = await sharp(bytes, { limitInputPixels: UPSCALE_MAX_PIXELS }).metadata();
    const turned = (meta.orientation ?? 1) >= 5;
    width = (turned ? meta.height : meta.width) * scale;
    height = (turned ? meta.width : meta.height) * scale;
  } catch (cause) {
    throw new InvalidArgumentError({ argument: "files", message: "The input image could not be read.", cause });
  }
  if (width * height > UPSCALE_MAX_PIXELS) {
    throw new InvalidArgumentError({
      argument: "files",
      message: `The input image is too large to upscale ×${scale}: the result would be ${width}×${height} px.`,
    });
  }
  try {
    const png = await sharp(bytes, { limitInputPixels: UPSCALE_MAX_PIXELS })
      .rotate()
      .resize(width, height, { fit: "fill", kernel: "lanczos3" })
      .sharpen({ sigma: 0.6, m1: 0.5, m2: 1.5 })
      .png({ compressionLevel: 6, adaptiveFiltering: false })
      .toBuffer();
    return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
  } catch (cause) {
    throw new InvalidArgumentError({ argument: "files", message: "The input image could not be read.", cause });
  }
}
