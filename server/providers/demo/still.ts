/**
 * One still of the demo's scene: the text-to-image picture, and image-to-image's blend of an input into it. The
 * other image tools draw the same still (inpainting paints it into the masked area) or read how it was drawn
 * (removing the background re-draws a demo picture's subjects to find them).
 */
import { DEFAULT_STRENGTH } from "#common/generation.ts";
import { mix, readPrompt, type Palette, type PromptReading, type Rgb } from "#server/providers/demo/prompt.ts";
import { encodePng } from "#server/providers/demo/raster.ts";
import {
  buildScene,
  layoutSeed,
  createCanvas,
  paintSubjects,
  finish,
  renderScene,
  STILL,
  STILL_FINISH,
  type Finish,
  type Scene,
} from "#server/providers/demo/scene.ts";

export interface DemoImageOptions {
  prompt: string;
  negativePrompt?: string;
  seed: number;
  width: number;
  height: number;
  /** Image-to-image: the input, already fitted to width × height, as RGB bytes. */
  input?: Uint8Array;
  strength?: number;
}

/** The scene a prompt and seed lay out for a picture of this shape, with its subjects drawn for this height. */
export async function prepareStill(
  prompt: string,
  negativePrompt: string | undefined,
  seed: number,
  width: number,
  height: number,
): Promise<{ reading: PromptReading; scene: Scene }> {
  const reading = readPrompt(prompt, negativePrompt, seed);
  const scene = buildScene(reading, layoutSeed(prompt, seed), width / height);
  await paintSubjects(scene, height, reading);
  return { reading, scene };
}

/** The grade a still gets: a little grain always (it dithers gradients), more where the prompt asks for it. */
export function stillGrade(reading: PromptReading, scene: Scene, seed: number): Finish {
  const grade = {
    ...STILL_FINISH,
    grainSeed: seed,
    grain: reading.elements.grain ? STILL_FINISH.grain : 0.004,
  };
  if (scene.composition === "abstract" && reading.elements.grain) grade.grain = 0.045;
  return grade;
}

/** The palette as a dark-to-light ramp, for recolouring an input image by its brightness. */
function paletteRamp(palette: Palette): Float32Array {
  const stops: Rgb[] = [
    palette.land[3],
    palette.land[1],
    palette.skyMid,
    ...palette.accents,
    palette.skyHorizon,
    palette.light,
  ];
  const lum = (c: Rgb) => 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  stops.sort((a, b) => lum(a) - lum(b));
  // Stretch so the input's blacks and whites stay near black and white.
  const ramp: Rgb[] = [mix(stops[0]!, [0, 0, 0], 0.6), ...stops, mix(stops[stops.length - 1]!, [1, 1, 1], 0.6)];
  const lut = new Float32Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const at = (i / 255) * (ramp.length - 1);
    const j = Math.min(ramp.length - 2, Math.floor(at));
    const c = mix(ramp[j]!, ramp[j + 1]!, at - j);
    lut.set(c, i * 3);
  }
  return lut;
}

/** Renders one still as RGB bytes, width × height. */
export async function renderStillRgb(options: DemoImageOptions): Promise<Uint8Array> {
  const { width, height } = options;
  const { reading, scene } = await prepareStill(options.prompt, options.negativePrompt, options.seed, width, height);
  const canvas = createCanvas(width, height);
  renderScene(canvas, scene, STILL);
  const grade = stillGrade(reading, scene, options.seed);

  if (options.input) {
    const s = Math.min(1, Math.max(0, options.strength ?? DEFAULT_STRENGTH));
    const input = options.input;
    const lut = paletteRamp(reading.palette);
    const tint = 0.08 + 0.5 * s;
    const artWeight = 0.88 * s ** 1.4;
    // Posterise more as strength grows: the input turns into flat areas of the prompt's colours.
    const levels = s > 0.35 ? Math.round(12 - s * 7) : 0;
    const data = canvas.data;
    for (let p = 0, i = 0; i < input.length; p += 3, i += 3) {
      const r = input[i]! / 255;
      const g = input[i + 1]! / 255;
      const b = input[i + 2]! / 255;
      let lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      if (levels > 0) lum = lum + (Math.round(lum * levels) / levels - lum) * Math.min(1, (s - 0.35) * 2);
      const l = Math.min(255, Math.max(0, Math.round(lum * 255))) * 3;
      const sr = r + (lut[l]! - r) * tint;
      const sg = g + (lut[l + 1]! - g) * tint;
      const sb = b + (lut[l + 2]! - b) * tint;
      const light = 0.5 + lum;
      data[p] = sr + (data[p]! * light - sr) * artWeight;
      data[p + 1] = sg + (data[p + 1]! * light - sg) * artWeight;
      data[p + 2] = sb + (data[p + 2]! * light - sb) * artWeight;
    }
    grade.vignette *= s;
    grade.saturation = 1 + (grade.saturation - 1) * s;
    grade.contrast = 1 + (grade.contrast - 1) * s;
    grade.grain *= s;
  }

  const out = new Uint8Array(width * height * 3);
  finish(canvas, out, 3, grade);
  return out;
}

/** Renders one PNG. Exposed for tests and samples; the model calls it once per image. */
export async function renderDemoImage(options: DemoImageOptions): Promise<Uint8Array> {
  return encodePng(await renderStillRgb(options), options.width, options.height, 3);
}
