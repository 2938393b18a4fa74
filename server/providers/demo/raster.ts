/**
 * Pixels in and out of the offline demo's tools: reading the files a call carries, and handing PNGs back. The demo
 * runs on the server's only thread, so long loops over pixels give the event loop a turn every few rows.
 */
import sharp, { type ResizeOptions } from "sharp";
import { InvalidArgumentError } from "@ai-sdk/provider";

/** Rendering is synchronous work on the server's only thread; between frames or images, waiting requests get a turn. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** About this many pixels are worked on between two turns of the event loop. */
const PIXELS_PER_TURN = 1 << 18;

/** Runs `row(y)` for every row, yielding to the event loop every quarter of a million pixels or so. */
export async function forEachRow(width: number, height: number, row: (y: number) => void): Promise<void> {
  const rows = Math.max(1, Math.floor(PIXELS_PER_TURN / Math.max(1, width)));
  for (let y = 0; y < height; y++) {
    row(y);
    if ((y + 1) % rows === 0 && y + 1 < height) await yieldToEventLoop();
  }
}

/** The largest image the demo's tools read, as the server's own input check allows. */
const MAX_INPUT_PIXELS = 100_000_000;

/** A file of a call, as the model and video model interfaces give it: bytes, base64, or a URL. */
export type CallFile = { type: "file"; data: string | Uint8Array; mediaType?: string } | { type: "url"; url: string };

export interface Raster {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Uint8Array;
}

/** The bytes of a file; offline means no fetching, so a URL is refused. */
export function bytesOf(file: CallFile, argument: string, what: string): Uint8Array {
  if (file.type !== "file") {
    throw new InvalidArgumentError({
      argument,
      message: `The offline demo model takes ${what} as bytes, not as a URL.`,
    });
  }
  return typeof file.data === "string" ? Buffer.from(file.data, "base64") : file.data;
}

/**
 * Decodes an image file to 8-bit sRGB pixels, upright (EXIF orientation applied): RGBA when it has transparency,
 * RGB otherwise, unless `channels` asks for one of them.
 */
export async function readImage(file: CallFile, argument: string, what: string, channels?: 3 | 4): Promise<Raster> {
  const bytes = bytesOf(file, argument, what);
  try {
    const upright = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).rotate().toBuffer();
    let image = sharp(upright).toColourspace("srgb");
    const alpha = (await sharp(upright).metadata()).hasAlpha;
    const wanted = channels ?? (alpha ? 4 : 3);
    image = wanted === 4 ? image.ensureAlpha() : image.flatten({ background: "#ffffff" }).removeAlpha();
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    return {
      width: info.width,
      height: info.height,
      channels: wanted,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    };
  } catch (cause) {
    throw new InvalidArgumentError({ argument, message: `The ${what} could not be read.`, cause });
  }
}

/**
 * Decodes a mask to one byte per pixel: white is 255 (change), black 0 (keep), greys partial. Transparent areas
 * count as black, so a mask drawn as white strokes on nothing reads the same as white on black.
 */
export async function readMask(file: CallFile, argument: string): Promise<Raster> {
  const bytes = bytesOf(file, argument, "mask");
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .flatten({ background: "#000000" })
      .toColourspace("b-w")
      .extractChannel(0)
      .raw()
      .toBuffer({ resolveWithObject: true });
    return {
      width: info.width,
      height: info.height,
      channels: 3,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    };
  } catch (cause) {
    throw new InvalidArgumentError({ argument, message: "The mask could not be read.", cause });
  }
}

/** Resizes raw pixels with sharp (off the main thread). */
export async function resizeRaw(
  data: Uint8Array,
  width: number,
  height: number,
  channels: 1 | 3 | 4,
  toWidth: number,
  toHeight: number,
  kernel: ResizeOptions["kernel"] = "lanczos3",
): Promise<Uint8Array> {
  if (toWidth === width && toHeight === height) return data;
  let image = sharp(data, { raw: { width, height, channels } }).resize(toWidth, toHeight, { fit: "fill", kernel });
  // sharp writes one channel out as three unless told to keep the one.
  if (channels === 1) image = image.extractChannel(0);
  const out = await image.raw().toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Encodes raw RGB or RGBA pixels as PNG. */
export async function encodePng(data: Uint8Array, width: number, height: number, channels: 3 | 4): Promise<Uint8Array> {
  const png = await sharp(data, { raw: { width, height, channels } })
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

/** A size scaled down, if need be, so its long side is at most `longSide`, keeping at least 2 px a side. */
export function fitWithin(width: number, height: number, longSide: number): [number, number] {
  const k = Math.min(1, longSide / Math.max(width, height));
  return [Math.max(2, Math.round(width * k)), Math.max(2, Math.round(height * k))];
}
