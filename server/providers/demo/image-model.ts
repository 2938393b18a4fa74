import sharp from "sharp";
import { InvalidArgumentError, type ImageModelV4, type ImageModelV4File, type SharedV4Warning } from "@ai-sdk/provider";
import { DEFAULT_STRENGTH } from "#common/generation.ts";
import { mix, readPrompt, type Palette, type Rgb } from "#server/providers/demo/prompt.ts";
import {
  buildScene,
  layoutSeed,
  createCanvas,
  paintSubjects,
  finish,
  renderScene,
  seedFrom,
  STILL,
  STILL_FINISH,
} from "#server/providers/demo/scene.ts";

const MODEL_ID = "demo-image";
const LONG_SIDE = 1024;

const SIZES: Record<string, [number, number]> = {
  "1:1": [1024, 1024],
  "4:3": [1024, 768],
  "3:4": [768, 1024],
  "16:9": [1024, 576],
  "9:16": [576, 1024],
};

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

/** Rendering is synchronous work on the server's only thread; between frames or images, waiting requests get a turn. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Other ratios keep their shape with the long side at 1024, rounded to even pixels. */
function sizeFor(ratio: string | undefined, warnings: SharedV4Warning[]): [number, number] {
  const known = SIZES[ratio ?? "1:1"];
  if (known) return known;
  const match = /^(\d+(?:\.\d+)?)[:x](\d+(?:\.\d+)?)$/.exec(ratio ?? "");
  const w = Number(match?.[1]);
  const h = Number(match?.[2]);
  if (!match || !(w > 0) || !(h > 0) || w / h > 4 || h / w > 4) {
    warnings.push({ type: "unsupported", feature: "aspectRatio", details: `${ratio} is not supported; used 1:1.` });
    return [LONG_SIDE, LONG_SIDE];
  }
  const even = (x: number) => Math.max(2, Math.round(x / 2) * 2);
  return w >= h ? [LONG_SIDE, even((LONG_SIDE * h) / w)] : [even((LONG_SIDE * w) / h), LONG_SIDE];
}

async function decodeInput(file: ImageModelV4File): Promise<{ rgb: Uint8Array; width: number; height: number }> {
  if (file.type !== "file") {
    // Offline means no fetching: the caller downloads the image and passes its bytes.
    throw new InvalidArgumentError({
      argument: "files",
      message: "The offline demo model takes image bytes, not URLs.",
    });
  }
  const bytes = typeof file.data === "string" ? Buffer.from(file.data, "base64") : file.data;
  try {
    const meta = await sharp(bytes).rotate().toBuffer({ resolveWithObject: true });
    const { width, height } = meta.info;
    const fit = LONG_SIDE / Math.max(width, height);
    const w = Math.max(2, Math.round((width * fit) / 2) * 2);
    const h = Math.max(2, Math.round((height * fit) / 2) * 2);
    const rgb = await sharp(meta.data)
      .resize(w, h, { fit: "fill" })
      .flatten({ background: "#ffffff" })
      .removeAlpha()
      .toColourspace("srgb")
      .raw()
      .toBuffer();
    return { rgb: new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.byteLength), width: w, height: h };
  } catch (cause) {
    throw new InvalidArgumentError({ argument: "files", message: "The input image could not be read.", cause });
  }
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

/** Renders one PNG. Exposed for tests and samples; the model calls it once per image. */
export async function renderDemoImage(options: DemoImageOptions): Promise<Uint8Array> {
  const { width, height } = options;
  const reading = readPrompt(options.prompt, options.negativePrompt, options.seed);
  const scene = buildScene(reading, layoutSeed(options.prompt, options.seed), width / height);
  await paintSubjects(scene, height, reading);
  const canvas = createCanvas(width, height);
  renderScene(canvas, scene, STILL);
  const grade = {
    ...STILL_FINISH,
    grainSeed: options.seed,
    grain: reading.elements.grain ? STILL_FINISH.grain : 0.004,
  };
  if (scene.composition === "abstract" && reading.elements.grain) grade.grain = 0.045;

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
  const png = await sharp(out, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

function readDemoOptions(options: Record<string, unknown> | undefined): { negativePrompt?: string; strength?: number } {
  const negativePrompt = options?.negativePrompt;
  const strength = options?.strength;
  return {
    negativePrompt: typeof negativePrompt === "string" ? negativePrompt : undefined,
    strength: typeof strength === "number" && Number.isFinite(strength) ? strength : undefined,
  };
}

/**
 * The "Offline demo" image model: draws a landscape, seascape, city, sky or abstract piece from the prompt's words
 * on this machine, with no key and no network. Same prompt and seed, same bytes.
 */
export function createDemoImageModel(): ImageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "demo",
    modelId: MODEL_ID,
    maxImagesPerCall: 4,
    supportsFileInputs: true,
    supportsMaskInputs: false,
    async doGenerate({ prompt, n, aspectRatio, size, seed, files, mask, providerOptions, abortSignal }) {
      abortSignal?.throwIfAborted();
      const timestamp = new Date();
      const warnings: SharedV4Warning[] = [];
      const demo = readDemoOptions(providerOptions.demo);
      const text = prompt ?? "";
      const baseSeed = seed ?? seedFrom(text);
      if (size !== undefined) {
        warnings.push({ type: "unsupported", feature: "size", details: "Use aspectRatio; the long side is 1024 px." });
      }
      if (mask !== undefined) warnings.push({ type: "unsupported", feature: "mask" });
      let [width, height] = sizeFor(aspectRatio, warnings);

      let input: Uint8Array | undefined;
      const file = files?.[0];
      if (file) {
        const decoded = await decodeInput(file);
        abortSignal?.throwIfAborted();
        input = decoded.rgb;
        width = decoded.width;
        height = decoded.height;
      }

      const images: Uint8Array[] = [];
      for (let i = 0; i < n; i++) {
        // Each image blocks for a moment; let waiting requests through in between.
        await yieldToEventLoop();
        abortSignal?.throwIfAborted();
        images.push(
          await renderDemoImage({
            prompt: text,
            negativePrompt: demo.negativePrompt,
            seed: (baseSeed + i) >>> 0,
            width,
            height,
            input,
            strength: demo.strength,
          }),
        );
      }
      abortSignal?.throwIfAborted();
      return { images, warnings, response: { timestamp, modelId: MODEL_ID, headers: undefined } };
    },
  };
}
