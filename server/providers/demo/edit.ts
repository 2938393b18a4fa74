/**
 * The demo's mask edit (and canvas extension, which the server turns into a mask edit of a padded image): the
 * demo's scene for the prompt and seed is painted into the masked area at the image's own size. Towards the mask's
 * edge the scene gives way to a smooth continuation of the colours around the area, so the seam is soft whatever
 * was under the mask (a padded border, or the part to replace); pixels outside the mask are untouched.
 */
import {
  encodePng,
  fitWithin,
  forEachRow,
  resizeRaw,
  yieldToEventLoop,
  type Raster,
} from "#server/providers/demo/raster.ts";
import { renderStillRgb } from "#server/providers/demo/still.ts";

/** The scene is drawn at most this large and scaled up for larger canvases: cost and memory stay bounded. */
const RENDER_LONG_SIDE = 2048;

export interface InpaintOptions {
  image: Raster;
  /** One byte per pixel of the image: 255 changes, 0 keeps, greys blend. */
  mask: Uint8Array;
  prompt: string;
  negativePrompt?: string;
  seeds: number[];
  abortSignal?: AbortSignal;
}

/**
 * Each pixel's distance (in pixels, approximately Euclidean: a two-pass chamfer) to the nearest pixel the mask
 * keeps whole; Infinity when the mask keeps nothing.
 */
async function distanceToKept(mask: Uint8Array, width: number, height: number): Promise<Float32Array> {
  const d = new Float32Array(width * height);
  await forEachRow(width, height, (y) => {
    for (let p = y * width, end = p + width; p < end; p++) d[p] = mask[p] === 0 ? 0 : Infinity;
  });
  const diagonal = Math.SQRT2;
  await forEachRow(width, height, (y) => {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      let v = d[p]!;
      if (v === 0) continue;
      if (x > 0) v = Math.min(v, d[p - 1]! + 1);
      if (y > 0) {
        v = Math.min(v, d[p - width]! + 1);
        if (x > 0) v = Math.min(v, d[p - width - 1]! + diagonal);
        if (x < width - 1) v = Math.min(v, d[p - width + 1]! + diagonal);
      }
      d[p] = v;
    }
  });
  await forEachRow(width, height, (row) => {
    const y = height - 1 - row;
    for (let x = width - 1; x >= 0; x--) {
      const p = y * width + x;
      let v = d[p]!;
      if (v === 0) continue;
      if (x < width - 1) v = Math.min(v, d[p + 1]! + 1);
      if (y < height - 1) {
        v = Math.min(v, d[p + width]! + 1);
        if (x < width - 1) v = Math.min(v, d[p + width + 1]! + diagonal);
        if (x > 0) v = Math.min(v, d[p + width - 1]! + diagonal);
      }
      d[p] = v;
    }
  });
  return d;
}

interface Level {
  width: number;
  height: number;
  /** Premultiplied colour, 3 per pixel. */
  colour: Float32Array;
  weight: Float32Array;
}

/**
 * Fills the masked area with the colours around it (push-pull: average down a pyramid by how much each pixel is
 * kept, then fill each level's gaps from the coarser one, smoothly). Kept pixels keep their colour; the rest become
 * a soft continuation of their surroundings. Null when the mask keeps nothing.
 */
async function fillFromSurroundings(
  rgb: Uint8Array,
  channels: 3 | 4,
  mask: Uint8Array,
  width: number,
  height: number,
): Promise<Float32Array | null> {
  const n = width * height;
  const base: Level = { width, height, colour: new Float32Array(n * 3), weight: new Float32Array(n) };
  let total = 0;
  await forEachRow(width, height, (y) => {
    for (let p = y * width, end = p + width; p < end; p++) {
      const w = 1 - mask[p]! / 255;
      base.weight[p] = w;
      total += w;
      for (let c = 0; c < 3; c++) base.colour[p * 3 + c] = rgb[p * channels + c]! * w;
    }
  });
  if (total === 0) return null;
  const levels = [base];
  for (let level = base; level.width > 1 || level.height > 1;) {
    const cw = Math.ceil(level.width / 2);
    const ch = Math.ceil(level.height / 2);
    const next: Level = {
      width: cw,
      height: ch,
      colour: new Float32Array(cw * ch * 3),
      weight: new Float32Array(cw * ch),
    };
    const from = level;
    await forEachRow(cw, ch, (y) => {
      for (let x = 0; x < cw; x++) {
        let w = 0;
        let r = 0;
        let g = 0;
        let b = 0;
        for (let dy = 0; dy < 2; dy++) {
          const sy = 2 * y + dy;
          if (sy >= from.height) continue;
          for (let dx = 0; dx < 2; dx++) {
            const sx = 2 * x + dx;
            if (sx >= from.width) continue;
            const s = sy * from.width + sx;
            w += from.weight[s]!;
            r += from.colour[s * 3]!;
            g += from.colour[s * 3 + 1]!;
            b += from.colour[s * 3 + 2]!;
          }
        }
        const k = w > 1 ? 1 / w : 1;
        const o = y * cw + x;
        next.weight[o] = w * k;
        next.colour[o * 3] = r * k;
        next.colour[o * 3 + 1] = g * k;
        next.colour[o * 3 + 2] = b * k;
      }
    });
    levels.push(next);
    level = next;
  }
  // The top is one pixel with some weight: its colour is the average of everything kept.
  const top = levels[levels.length - 1]!;
  const tw = top.weight[0]!;
  for (let c = 0; c < 3; c++) top.colour[c] = top.colour[c]! / tw;
  top.weight[0] = 1;
  for (let l = levels.length - 2; l >= 0; l--) {
    const fine = levels[l]!;
    const coarse = levels[l + 1]!;
    const { width: fw, height: fh } = fine;
    await forEachRow(fw, fh, (y) => {
      const sy = Math.min(coarse.height - 1, Math.max(0, (y + 0.5) / 2 - 0.5));
      const y0 = Math.floor(sy);
      const y1 = Math.min(coarse.height - 1, y0 + 1);
      const fy = sy - y0;
      for (let x = 0; x < fw; x++) {
        const p = y * fw + x;
        const missing = 1 - fine.weight[p]!;
        if (missing <= 0) {
          const w = fine.weight[p]!;
          if (w !== 1) for (let c = 0; c < 3; c++) fine.colour[p * 3 + c] = fine.colour[p * 3 + c]! / w;
          fine.weight[p] = 1;
          continue;
        }
        const sx = Math.min(coarse.width - 1, Math.max(0, (x + 0.5) / 2 - 0.5));
        const x0 = Math.floor(sx);
        const x1 = Math.min(coarse.width - 1, x0 + 1);
        const fx = sx - x0;
        for (let c = 0; c < 3; c++) {
          const a = coarse.colour[(y0 * coarse.width + x0) * 3 + c]!;
          const b = coarse.colour[(y0 * coarse.width + x1) * 3 + c]!;
          const d = coarse.colour[(y1 * coarse.width + x0) * 3 + c]!;
          const e = coarse.colour[(y1 * coarse.width + x1) * 3 + c]!;
          const parent = (a + (b - a) * fx) * (1 - fy) + (d + (e - d) * fx) * fy;
          fine.colour[p * 3 + c] = fine.colour[p * 3 + c]! + missing * parent;
        }
        fine.weight[p] = 1;
      }
    });
  }
  return base.colour;
}

/** Paints the demo scene into the masked area of the image, once per seed; PNGs of the image's exact size. */
export async function inpaint(options: InpaintOptions): Promise<Uint8Array[]> {
  const { image, mask, abortSignal } = options;
  const { width, height, channels } = image;
  const [w, h] = fitWithin(width, height, RENDER_LONG_SIDE);
  const scaled = w !== width || h !== height;
  const workImage = scaled ? await resizeRaw(image.data, width, height, channels, w, h, "lanczos3") : image.data;
  const workMask = scaled ? await resizeRaw(mask, width, height, 1, w, h, "linear") : mask;
  abortSignal?.throwIfAborted();

  // The scene reaches full strength this far inside the mask's edge.
  const feather = Math.max(2, Math.round(Math.min(w, h) * 0.06));
  const distance = await distanceToKept(workMask, w, h);
  const fill = await fillFromSurroundings(workImage, channels, workMask, w, h);
  abortSignal?.throwIfAborted();

  const images: Uint8Array[] = [];
  for (const seed of options.seeds) {
    await yieldToEventLoop();
    abortSignal?.throwIfAborted();
    const scene = await renderStillRgb({
      prompt: options.prompt,
      negativePrompt: options.negativePrompt,
      seed,
      width: w,
      height: h,
    });
    await yieldToEventLoop();
    // What goes into the masked area: the scene, giving way to the surroundings' colours near the edge.
    const paint = new Uint8Array(w * h * 3);
    await forEachRow(w, h, (y) => {
      for (let p = y * w, end = p + w; p < end; p++) {
        const t = fill ? Math.min(1, distance[p]! / feather) : 1;
        const f = t * t * (3 - 2 * t);
        for (let c = 0; c < 3; c++) {
          const i = p * 3 + c;
          paint[i] = Math.round(fill ? fill[i]! + (scene[i]! - fill[i]!) * f : scene[i]!);
        }
      }
    });
    const painted = scaled ? await resizeRaw(paint, w, h, 3, width, height, "lanczos3") : paint;
    abortSignal?.throwIfAborted();

    const out = new Uint8Array(width * height * channels);
    const source = image.data;
    await forEachRow(width, height, (y) => {
      for (let p = y * width, end = p + width; p < end; p++) {
        const m = mask[p]! / 255;
        const i = p * channels;
        if (m === 0) {
          for (let c = 0; c < channels; c++) out[i + c] = source[i + c]!;
          continue;
        }
        for (let c = 0; c < 3; c++)
          out[i + c] = Math.round(source[i + c]! + (painted[p * 3 + c]! - source[i + c]!) * m);
        if (channels === 4) out[i + 3] = Math.round(source[i + 3]! + (255 - source[i + 3]!) * m);
      }
    });
    images.push(await encodePng(out, width, height, channels));
  }
  return images;
}
