/**
 * The demo's image to video: a slow camera move (pan and zoom, the "Ken Burns" move) across the start image, which
 * dissolves into the end image, when there is one, as the camera settles on it. The style chooses the move.
 */
import sharp from "sharp";
import { InvalidArgumentError } from "@ai-sdk/provider";
import type { VideoStyle } from "#common/generation.ts";
import { createRandom } from "#server/providers/demo/prompt.ts";
import { bytesOf, type CallFile } from "#server/providers/demo/raster.ts";

/** The camera pushes in by up to this much: images are prepared that much larger so a push stays sharp. */
const HEADROOM = 1.2;

/** Where the camera looks: zoom ≥ 1, and the centre moved by up to the margin the zoom leaves (−1 to 1). */
interface Camera {
  zoom: number;
  x: number;
  y: number;
}

function ease(x: number): number {
  return x * x * (3 - 2 * x);
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** The size and orientation of an image file, upright, without decoding its pixels. */
export async function imageSize(file: CallFile, argument: string, what: string): Promise<[number, number]> {
  try {
    const meta = await sharp(bytesOf(file, argument, what)).metadata();
    return (meta.orientation ?? 1) >= 5 ? [meta.height, meta.width] : [meta.width, meta.height];
  } catch (cause) {
    if (cause instanceof InvalidArgumentError) throw cause;
    throw new InvalidArgumentError({ argument, message: `The ${what} could not be read.`, cause });
  }
}

interface Plate {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/** The image cover-fitted to the frame's shape, with headroom for zooming in; transparency shows on white. */
async function plateOf(file: CallFile, argument: string, what: string, width: number, height: number): Promise<Plate> {
  const pw = Math.round(width * HEADROOM);
  const ph = Math.round(height * HEADROOM);
  try {
    const rgb = await sharp(bytesOf(file, argument, what), { limitInputPixels: 100_000_000 })
      .rotate()
      .resize(pw, ph, { fit: "cover", position: "centre", kernel: "lanczos3" })
      .flatten({ background: "#ffffff" })
      .removeAlpha()
      .toColourspace("srgb")
      .raw()
      .toBuffer();
    return { width: pw, height: ph, rgb: new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.byteLength) };
  } catch (cause) {
    if (cause instanceof InvalidArgumentError) throw cause;
    throw new InvalidArgumentError({ argument, message: `The ${what} could not be read.`, cause });
  }
}

/** The camera's path over the start image, by style; `side` (±1) and `rise` (±1) come from the seed. */
function startCamera(style: VideoStyle, p: number, side: number, rise: number): Camera {
  const e = ease(p);
  switch (style) {
    case "realistic":
      return { zoom: 1 + 0.12 * e, x: side * e, y: 0 };
    case "documentary": {
      // A hand-held camera: a slow pan with a small, irregular sway.
      const t = p * 10;
      return {
        zoom: 1.06 + 0.05 * e,
        x: side * 0.5 * e + 0.25 * Math.sin(t * 2.3) + 0.12 * Math.sin(t * 5.9 + 1),
        y: 0.25 * Math.sin(t * 1.7 + 2) + 0.1 * Math.sin(t * 6.7),
      };
    }
    case "animation":
      return { zoom: 1 + 0.12 * e + 0.03 * Math.abs(Math.sin(p * Math.PI * 4)), x: 0, y: rise * 0.3 * e };
    case "abstract":
      // Pulls back from a detail while circling.
      return { zoom: 1.18 - 0.18 * e, x: 0.6 * Math.sin(p * Math.PI * 2), y: 0.6 * Math.cos(p * Math.PI * 2) * rise };
    case "cinematic":
      return { zoom: 1 + 0.16 * e, x: side * 0.35 * e, y: rise * 0.25 * e };
  }
}

/** Draws the plate as the camera sees it into `out` (RGB, float accumulation by `weight`). */
function shoot(plate: Plate, camera: Camera, out: Float32Array, width: number, height: number, weight: number): void {
  const zoom = Math.max(1, camera.zoom);
  // The window of the plate in view, in plate pixels, and its centre kept inside the plate.
  const ww = plate.width / zoom;
  const wh = plate.height / zoom;
  const cx = plate.width / 2 + clamp(camera.x, -1, 1) * ((plate.width - ww) / 2);
  const cy = plate.height / 2 + clamp(camera.y, -1, 1) * ((plate.height - wh) / 2);
  const sx0 = cx - ww / 2;
  const sy0 = cy - wh / 2;
  const kx = ww / width;
  const ky = wh / height;
  const pw = plate.width;
  const rgb = plate.rgb;
  for (let y = 0; y < height; y++) {
    const sy = clamp(sy0 + (y + 0.5) * ky - 0.5, 0, plate.height - 1);
    const y0 = Math.floor(sy);
    const y1 = Math.min(plate.height - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < width; x++) {
      const sx = clamp(sx0 + (x + 0.5) * kx - 0.5, 0, pw - 1);
      const x0 = Math.floor(sx);
      const x1 = Math.min(pw - 1, x0 + 1);
      const fx = sx - x0;
      const a = (y0 * pw + x0) * 3;
      const b = (y0 * pw + x1) * 3;
      const c = (y1 * pw + x0) * 3;
      const d = (y1 * pw + x1) * 3;
      const o = (y * width + x) * 3;
      for (let k = 0; k < 3; k++) {
        const top = rgb[a + k]! + (rgb[b + k]! - rgb[a + k]!) * fx;
        const bottom = rgb[c + k]! + (rgb[d + k]! - rgb[c + k]!) * fx;
        out[o + k] = out[o + k]! + (top + (bottom - top) * fy) * weight;
      }
    }
  }
}

export interface AnimationOptions {
  start: CallFile;
  end?: CallFile;
  width: number;
  height: number;
  /** Frames in the clip. */
  count: number;
  style: VideoStyle;
  seed: number;
}

/**
 * The frames of an image-to-video clip, drawn one at a time into one RGBA buffer: the first shows the start image
 * (cover-fitted to the frame), the last the end image when there is one.
 */
export async function animationFrames(options: AnimationOptions) {
  const { width, height, count, style } = options;
  const start = await plateOf(options.start, "image", "start image", width, height);
  const end = options.end ? await plateOf(options.end, "frameImages", "end image", width, height) : null;
  const random = createRandom(options.seed);
  const side = random() < 0.5 ? -1 : 1;
  const rise = random() < 0.5 ? -1 : 1;
  const mixed = new Float32Array(width * height * 3);
  const rgba = new Uint8Array(width * height * 4);
  return {
    rgba,
    draw(i: number): Uint8Array {
      const p = count > 1 ? i / (count - 1) : 0;
      // With an end image, the start dissolves into it over the middle of the clip and the camera settles on it.
      const blend = end ? ease(clamp((p - 0.3) / 0.6, 0, 1)) : 0;
      mixed.fill(0);
      if (blend < 1) shoot(start, startCamera(style, p, side, rise), mixed, width, height, 1 - blend);
      if (end && blend > 0) {
        const settle = 1 - ease(p);
        shoot(end, { zoom: 1 + 0.1 * settle, x: -side * 0.4 * settle, y: 0 }, mixed, width, height, blend);
      }
      for (let j = 0, o = 0; j < mixed.length; j += 3, o += 4) {
        rgba[o] = mixed[j]! + 0.5;
        rgba[o + 1] = mixed[j + 1]! + 0.5;
        rgba[o + 2] = mixed[j + 2]! + 0.5;
        rgba[o + 3] = 255;
      }
      return rgba;
    },
  };
}
