/**
 * The demo's background removal. A picture the demo drew itself is cut out exactly: the painter knows where it put
 * the subjects, so drawing them once white and once black over the same scene gives their coverage, occlusions and
 * soft edges included (a picture without subjects keeps what stands in front of the sky instead). Any other image
 * is cut by colour: the background is what looks like the borders and is connected to them.
 */
import sharp from "sharp";
import type { SharedV4Warning } from "@ai-sdk/provider";
import {
  encodePng,
  fitWithin,
  forEachRow,
  resizeRaw,
  yieldToEventLoop,
  type Raster,
} from "#server/providers/demo/raster.ts";
import { createCanvas, finish, renderScene, STILL, type Canvas, type Scene } from "#server/providers/demo/scene.ts";
import { prepareStill, stillGrade } from "#server/providers/demo/still.ts";

/** What drew the input, when the input is a demo picture: its prompt and the exact seed of that image. */
export interface DemoOrigin {
  prompt: string;
  negativePrompt?: string;
  seed: number;
}

/** The demo's pictures are re-drawn at most this large to find their subjects; the mask is then scaled up. */
const ORIGIN_LONG_SIDE = 1024;
/** Uploads are segmented at most this large; the alpha is then scaled up, which also softens its edge. */
const COLOUR_LONG_SIDE = 512;
/** How far (mean difference per channel, 0–255) a re-drawn picture may be from the input and still be it. */
const SAME_PICTURE = 8;
/** A cut-out keeps between these shares of the picture; outside them, nothing was really found. */
const MIN_COVER = 0.004;
const MAX_COVER = 0.97;

type Sprite = NonNullable<Scene["sprites"]>[number];

function rgbAt(image: Raster): Uint8Array {
  if (image.channels === 3) return image.data;
  const out = new Uint8Array(image.width * image.height * 3);
  for (let p = 0, i = 0; i < image.data.length; p += 3, i += 4) {
    out[p] = image.data[i]!;
    out[p + 1] = image.data[i + 1]!;
    out[p + 2] = image.data[i + 2]!;
  }
  return out;
}

function cover(alpha: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < alpha.length; i++) sum += alpha[i]!;
  return sum / (alpha.length * 255);
}

/** The same drawing in one flat colour, keeping its coverage: white (1) or black (0), premultiplied. */
function flatSprite(sprite: Sprite, value: 0 | 1): Sprite {
  const data = new Float32Array(sprite.data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = sprite.data[i + 3]!;
    data[i] = data[i + 1] = data[i + 2] = a * value;
    data[i + 3] = a;
  }
  return { ...sprite, data };
}

/**
 * How much of each pixel the subjects cover, as the painter draws them: the scene drawn with white subjects minus
 * the scene drawn with black ones is exactly their alpha, after whatever stands in front of them. A table under a
 * still life is a prop, not the subject; water is left out so that reflections do not count.
 */
async function subjectCoverage(scene: Scene, width: number, height: number): Promise<Uint8Array | null> {
  const sprites = scene.sprites ?? [];
  const subjects = scene.subjects.map((s, i) => ({ s, sprite: sprites[i] })).filter((x) => x.s.id !== "table");
  if (subjects.length === 0 || subjects.some((x) => !x.sprite)) return null;
  const drawWith = (value: 0 | 1): Canvas => {
    const made = new Map<Sprite, Sprite>();
    const recoloured = sprites.map((sprite, i) => {
      if (scene.subjects[i]?.id === "table") return sprite;
      let flat = made.get(sprite);
      if (!flat) made.set(sprite, (flat = flatSprite(sprite, value)));
      return flat;
    });
    const canvas = createCanvas(width, height);
    renderScene(canvas, { ...scene, water: null, sprites: recoloured }, STILL);
    return canvas;
  };
  const white = drawWith(1).data;
  await yieldToEventLoop();
  const black = drawWith(0).data;
  await yieldToEventLoop();
  const alpha = new Uint8Array(width * height);
  for (let p = 0, i = 0; p < alpha.length; p++, i += 3) {
    const a = (white[i]! - black[i]! + (white[i + 1]! - black[i + 1]!) + (white[i + 2]! - black[i + 2]!)) / 3;
    alpha[p] = Math.max(0, Math.min(255, Math.round(a * 255)));
  }
  return alpha;
}

/** What stands in front of the sky: the picture minus a drawing of its sky alone (stars, sun and clouds stay sky). */
function frontOfSky(scene: Scene, picture: Canvas): Uint8Array {
  const { width, height } = picture;
  const sky = createCanvas(width, height);
  renderScene(
    sky,
    {
      ...scene,
      layers: [],
      water: null,
      grid: null,
      ribbons: [],
      discs: [],
      planet: null,
      subjects: [],
      sprites: [],
    },
    STILL,
  );
  const alpha = new Uint8Array(width * height);
  for (let p = 0, i = 0; p < alpha.length; p++, i += 3) {
    const d = Math.max(
      Math.abs(picture.data[i]! - sky.data[i]!),
      Math.abs(picture.data[i + 1]! - sky.data[i + 1]!),
      Math.abs(picture.data[i + 2]! - sky.data[i + 2]!),
    );
    const t = Math.max(0, Math.min(1, (d - 0.012) / 0.05));
    alpha[p] = Math.round(t * t * (3 - 2 * t) * 255);
  }
  return alpha;
}

/**
 * The alpha of a demo picture's subject at the input's size, or null when the input is not the picture the origin
 * draws (it was edited since, or the origin is wrong) or the picture has nothing to keep.
 */
async function alphaFromOrigin(image: Raster, origin: DemoOrigin): Promise<Uint8Array | null> {
  const { width, height } = image;
  const [w, h] = fitWithin(width, height, ORIGIN_LONG_SIDE);
  const { reading, scene } = await prepareStill(origin.prompt, origin.negativePrompt, origin.seed >>> 0, w, h);
  await yieldToEventLoop();
  const picture = createCanvas(w, h);
  renderScene(picture, scene, STILL);
  await yieldToEventLoop();
  const drawn = new Uint8Array(w * h * 3);
  finish(picture, drawn, 3, stillGrade(reading, scene, origin.seed >>> 0));
  const input = await resizeRaw(rgbAt(image), width, height, 3, w, h, "lanczos3");
  let difference = 0;
  for (let i = 0; i < drawn.length; i++) difference += Math.abs(drawn[i]! - input[i]!);
  if (difference / drawn.length > SAME_PICTURE) return null;
  await yieldToEventLoop();

  let alpha = await subjectCoverage(scene, w, h);
  if (!alpha || cover(alpha) < MIN_COVER) {
    await yieldToEventLoop();
    alpha = frontOfSky(scene, picture);
  }
  const share = cover(alpha);
  if (share < MIN_COVER || share > MAX_COVER) return null;
  return resizeRaw(alpha, w, h, 1, width, height, "mitchell");
}

/** Least squares of a small system (Gaussian elimination with partial pivoting); null when it is singular. */
function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    if (Math.abs(m[pivot]![c]!) < 1e-9) return null;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k] = m[r]![k]! - f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

const TERMS = 4;
const terms = (x: number, y: number) => [1, x, y, x * x + y * y];

/**
 * The background as the borders show it: a smooth colour field (a quadratic in x and y per channel, which covers
 * plain backdrops and gradients) fitted to the border pixels while ignoring the ones that fit worst (a subject
 * touching the edge), plus the borders' few main colours (a backdrop of two tones). Gives each pixel's distance,
 * in RGB units, from the nearest of these.
 */
async function backgroundDistance(rgb: Uint8Array, width: number, height: number): Promise<Float32Array> {
  const ring = Math.max(1, Math.round(Math.min(width, height) * 0.01));
  const border: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (x < ring || y < ring || x >= width - ring || y >= height - ring) border.push(y * width + x);
      else if (x === ring) x = width - ring - 1;
    }
  }
  const nx = (x: number) => (2 * (x + 0.5)) / width - 1;
  const ny = (y: number) => (2 * (y + 0.5)) / height - 1;

  let used = border;
  let coefficients: number[][] = [];
  for (let round = 0; round < 6; round++) {
    const ata = Array.from({ length: TERMS }, () => new Array<number>(TERMS).fill(0));
    const atb = [0, 1, 2].map(() => new Array<number>(TERMS).fill(0));
    for (const p of used) {
      const t = terms(nx(p % width), ny(Math.floor(p / width)));
      for (let i = 0; i < TERMS; i++) {
        for (let j = 0; j < TERMS; j++) ata[i]![j]! += t[i]! * t[j]!;
        for (let c = 0; c < 3; c++) atb[c]![i]! += t[i]! * rgb[p * 3 + c]!;
      }
    }
    const solved = atb.map((b) => solve(ata, b));
    if (solved.some((s) => !s)) break;
    coefficients = solved as number[][];
    const residual = (p: number) => {
      const t = terms(nx(p % width), ny(Math.floor(p / width)));
      let d = 0;
      for (let c = 0; c < 3; c++) {
        let v = 0;
        for (let i = 0; i < TERMS; i++) v += coefficients[c]![i]! * t[i]!;
        d += (rgb[p * 3 + c]! - v) ** 2;
      }
      return Math.sqrt(d);
    };
    // Trimmed least squares: refit on the best-fitting part of the border, so a subject touching it drops out.
    const sorted = border.map(residual).sort((a, b) => a - b);
    const cut = Math.max(10, sorted[Math.floor(sorted.length * 0.6)]!);
    used = border.filter((p) => residual(p) <= cut);
    if (used.length < 12) break;
  }

  // The borders' main colours: a few rounds of k-means from evenly spread starts; only well-supported ones stay.
  const k = 4;
  let centres = Array.from({ length: k }, (_, i) => {
    const p = border[Math.floor(((i + 0.5) / k) * border.length)]!;
    return [rgb[p * 3]!, rgb[p * 3 + 1]!, rgb[p * 3 + 2]!];
  });
  let counts = new Array<number>(k).fill(0);
  for (let round = 0; round < 6; round++) {
    const sums = centres.map(() => [0, 0, 0]);
    counts = new Array<number>(k).fill(0);
    for (const p of border) {
      let best = 0;
      let bestD = Infinity;
      for (let j = 0; j < k; j++) {
        const c = centres[j]!;
        const d = (rgb[p * 3]! - c[0]!) ** 2 + (rgb[p * 3 + 1]! - c[1]!) ** 2 + (rgb[p * 3 + 2]! - c[2]!) ** 2;
        if (d < bestD) [best, bestD] = [j, d];
      }
      counts[best]!++;
      for (let c = 0; c < 3; c++) sums[best]![c]! += rgb[p * 3 + c]!;
    }
    centres = centres.map((c, j) => (counts[j]! > 0 ? sums[j]!.map((s) => s / counts[j]!) : c));
  }
  // A backdrop surrounds the subject: a tone counts only where it lines three of the four sides, so a subject cut off
  // by one edge (a bust at the bottom) is not taken for background.
  const sides = centres.map(() => [0, 0, 0, 0]);
  const sideTotals = [0, 0, 0, 0];
  for (const p of border) {
    const x = p % width;
    const y = Math.floor(p / width);
    let best = 0;
    let bestD = Infinity;
    for (let j = 0; j < k; j++) {
      const c = centres[j]!;
      const d = (rgb[p * 3]! - c[0]!) ** 2 + (rgb[p * 3 + 1]! - c[1]!) ** 2 + (rgb[p * 3 + 2]! - c[2]!) ** 2;
      if (d < bestD) [best, bestD] = [j, d];
    }
    const on = [y < ring, y >= height - ring, x < ring, x >= width - ring];
    for (let side = 0; side < 4; side++) {
      if (!on[side]) continue;
      sides[best]![side]!++;
      sideTotals[side]!++;
    }
  }
  const tones = centres.filter(
    (_, j) =>
      counts[j]! >= border.length * 0.15 && sides[j]!.filter((n, side) => n >= sideTotals[side]! * 0.1).length >= 3,
  );

  const distance = new Float32Array(width * height);
  const fitted = coefficients.length === 3;
  const [cr, cg, cb] = (fitted ? coefficients : [[], [], []]) as [number[], number[], number[]];
  await forEachRow(width, height, (y) => {
    const v = ny(y);
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const r = rgb[p * 3]!;
      const g = rgb[p * 3 + 1]!;
      const b = rgb[p * 3 + 2]!;
      let best = Infinity;
      if (fitted) {
        const u = nx(x);
        const radial = u * u + v * v;
        const mr = cr[0]! + cr[1]! * u + cr[2]! * v + cr[3]! * radial;
        const mg = cg[0]! + cg[1]! * u + cg[2]! * v + cg[3]! * radial;
        const mb = cb[0]! + cb[1]! * u + cb[2]! * v + cb[3]! * radial;
        best = (r - mr) ** 2 + (g - mg) ** 2 + (b - mb) ** 2;
      }
      for (const c of tones) best = Math.min(best, (r - c[0]!) ** 2 + (g - c[1]!) ** 2 + (b - c[2]!) ** 2);
      distance[p] = Math.sqrt(best);
    }
  });
  return distance;
}

/**
 * The alpha of an image's subject by colour, at the image's size, or null when no distinct subject stands out:
 * pixels close to the background's colours and connected to the borders are background; of what is left, the
 * largest regions are kept (specks go), and the edge is softened.
 */
async function alphaByColour(image: Raster): Promise<Uint8Array | null> {
  const { width, height } = image;
  const [w, h] = fitWithin(width, height, COLOUR_LONG_SIDE);
  const rgb = await resizeRaw(rgbAt(image), width, height, 3, w, h, "lanczos3");
  const distance = await backgroundDistance(rgb, w, h);

  // How far the borders themselves stray from the model sets how close "like the background" is.
  const ringValues: number[] = [];
  for (let x = 0; x < w; x++) ringValues.push(distance[x]!, distance[(h - 1) * w + x]!);
  for (let y = 0; y < h; y++) ringValues.push(distance[y * w]!, distance[y * w + w - 1]!);
  ringValues.sort((a, b) => a - b);
  const noise = ringValues[Math.floor(ringValues.length * 0.5)]!;
  const threshold = Math.max(18, Math.min(64, 14 + 3 * noise));

  const background = new Uint8Array(w * h);
  const queue = new Int32Array(w * h);
  let head = 0;
  let tail = 0;
  const seed = (p: number) => {
    if (background[p] === 0 && distance[p]! < threshold) {
      background[p] = 1;
      queue[tail++] = p;
    }
  };
  for (let x = 0; x < w; x++) {
    seed(x);
    seed((h - 1) * w + x);
  }
  for (let y = 0; y < h; y++) {
    seed(y * w);
    seed(y * w + w - 1);
  }
  while (head < tail) {
    const p = queue[head++]!;
    const x = p % w;
    if (x > 0) seed(p - 1);
    if (x < w - 1) seed(p + 1);
    if (p >= w) seed(p - w);
    if (p < (h - 1) * w) seed(p + w);
  }
  await yieldToEventLoop();

  // The regions left, by size: the largest stays, and any other at least a sixth of its size.
  const region = new Int32Array(w * h).fill(-1);
  const sizes: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (background[start] || region[start]! >= 0) continue;
    const id = sizes.length;
    let size = 0;
    head = tail = 0;
    region[start] = id;
    queue[tail++] = start;
    while (head < tail) {
      const p = queue[head++]!;
      size++;
      const x = p % w;
      for (let k = 0; k < 4; k++) {
        if ((k === 0 && x === 0) || (k === 1 && x === w - 1) || (k === 2 && p < w) || (k === 3 && p >= (h - 1) * w)) {
          continue;
        }
        const q = k === 0 ? p - 1 : k === 1 ? p + 1 : k === 2 ? p - w : p + w;
        if (!background[q] && region[q]! < 0) {
          region[q] = id;
          queue[tail++] = q;
        }
      }
    }
    sizes.push(size);
  }
  if (sizes.length === 0) return null;
  const largest = sizes.reduce((a, b) => Math.max(a, b), 0);
  const keep = sizes.map((s) => s >= Math.max(largest / 6, w * h * 0.001));
  const hard = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) hard[p] = region[p]! >= 0 && keep[region[p]!] ? 255 : 0;
  const share = cover(hard);
  if (share < MIN_COVER || share > MAX_COVER) return null;

  const soft = await sharp(hard, { raw: { width: w, height: h, channels: 1 } })
    .blur(0.6)
    .resize(width, height, { fit: "fill", kernel: "mitchell" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  return new Uint8Array(soft.buffer, soft.byteOffset, soft.byteLength);
}

/**
 * Removes the background: an RGBA PNG of the input's size whose subject stays and whose background is transparent.
 * `origin` says which prompt and seed drew the input when it is a demo picture. When nothing distinct stands out,
 * the image comes back whole rather than empty, with a warning.
 */
export async function removeBackground(
  image: Raster,
  origin: DemoOrigin | undefined,
  warnings: SharedV4Warning[],
): Promise<Uint8Array> {
  const { width, height } = image;
  let alpha = origin ? await alphaFromOrigin(image, origin) : null;
  if (!alpha) {
    await yieldToEventLoop();
    alpha = await alphaByColour(image);
  }
  // Whatever happened above, an empty picture is never the answer.
  if (alpha && cover(alpha) < MIN_COVER) alpha = null;
  if (!alpha) {
    warnings.push({ type: "other", message: "No distinct subject stood out from a background; nothing was removed." });
  }
  const out = new Uint8Array(width * height * 4);
  const source = image.data;
  const channels = image.channels;
  await forEachRow(width, height, (y) => {
    for (let x = y * width, end = x + width; x < end; x++) {
      const i = x * channels;
      const o = x * 4;
      out[o] = source[i]!;
      out[o + 1] = source[i + 1]!;
      out[o + 2] = source[i + 2]!;
      const own = channels === 4 ? source[i + 3]! : 255;
      out[o + 3] = alpha ? Math.round((alpha[x]! * own) / 255) : own;
    }
  });
  return encodePng(out, width, height, 4);
}
