import sharp from "sharp";
import { InvalidArgumentError, type ImageModelV4, type ImageModelV4File, type SharedV4Warning } from "@ai-sdk/provider";
import { removeBackground, type DemoOrigin } from "#server/providers/demo/cutout.ts";
import { inpaint } from "#server/providers/demo/edit.ts";
import { readImage, readMask, yieldToEventLoop } from "#server/providers/demo/raster.ts";
import { seedFrom } from "#server/providers/demo/scene.ts";
import { renderDemoImage } from "#server/providers/demo/still.ts";
import { upscale } from "#server/providers/demo/upscale.ts";

export { yieldToEventLoop } from "#server/providers/demo/raster.ts";
export { renderDemoImage, type DemoImageOptions } from "#server/providers/demo/still.ts";
export type { DemoOrigin } from "#server/providers/demo/cutout.ts";

const MODEL_ID = "demo-image";
const LONG_SIDE = 1024;

const SIZES: Record<string, [number, number]> = {
  "1:1": [1024, 1024],
  "4:3": [1024, 768],
  "3:4": [768, 1024],
  "16:9": [1024, 576],
  "9:16": [576, 1024],
};

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

/** The image tools the demo model serves; `outpaint` is the same mask edit of a canvas the server has padded. */
export const DEMO_IMAGE_TOOLS = [
  "text-to-image",
  "image-to-image",
  "inpaint",
  "outpaint",
  "upscale",
  "remove-background",
] as const;
export type DemoImageTool = (typeof DEMO_IMAGE_TOOLS)[number];

/**
 * The seed the demo model drew output image number `position` (from 0) of a request with: the request's seed, or one
 * derived from the prompt when it has none, plus the position. With the prompt, this is what `origin` asks for when
 * a demo result is the input of another tool.
 */
export function demoSeedOf(prompt: string, seed: number | undefined, position: number): number {
  return ((seed ?? seedFrom(prompt)) + position) >>> 0;
}

interface DemoCallOptions {
  tool?: DemoImageTool;
  negativePrompt?: string;
  strength?: number;
  scale: number;
  origin?: DemoOrigin;
}

/** The demo's own options (`providerOptions.demo`); a value of the wrong shape is refused rather than guessed at. */
function readDemoOptions(options: Record<string, unknown> | undefined): DemoCallOptions {
  const negativePrompt = options?.negativePrompt;
  const strength = options?.strength;
  const tool = options?.tool;
  if (tool !== undefined && !(DEMO_IMAGE_TOOLS as readonly unknown[]).includes(tool)) {
    throw new InvalidArgumentError({
      argument: "providerOptions.demo.tool",
      message: `The offline demo model has no tool ${JSON.stringify(tool)}; it has ${DEMO_IMAGE_TOOLS.join(", ")}.`,
    });
  }
  const scale = options?.scale ?? 2;
  if (scale !== 2 && scale !== 4) {
    throw new InvalidArgumentError({ argument: "providerOptions.demo.scale", message: "The scale must be 2 or 4." });
  }
  const origin = options?.origin as Partial<DemoOrigin> | undefined;
  const validOrigin =
    origin !== undefined &&
    origin !== null &&
    typeof origin.prompt === "string" &&
    typeof origin.seed === "number" &&
    Number.isInteger(origin.seed) &&
    (origin.negativePrompt === undefined || typeof origin.negativePrompt === "string");
  return {
    tool: tool as DemoImageTool | undefined,
    negativePrompt: typeof negativePrompt === "string" ? negativePrompt : undefined,
    strength: typeof strength === "number" && Number.isFinite(strength) ? strength : undefined,
    scale,
    origin: validOrigin ? (origin as DemoOrigin) : undefined,
  };
}

function needsImage(files: ImageModelV4File[] | undefined, tool: DemoImageTool): ImageModelV4File {
  const file = files?.[0];
  if (!file) {
    throw new InvalidArgumentError({ argument: "files", message: `The ${tool} tool needs an input image.` });
  }
  return file;
}

/**
 * The "Offline demo" image model: draws a landscape, seascape, city, sky or abstract piece from the prompt's words
 * on this machine, with no key and no network. Same prompt and seed, same bytes. Besides drawing and image to image
 * it serves every image tool, chosen by `providerOptions.demo.tool`:
 *
 * - `inpaint` (and `outpaint`): `files[0]` and a `mask` of its size (white changes, black keeps, greys blend); the
 *   scene for the prompt and seed is painted into the masked area with a soft edge, at the input's exact size.
 * - `upscale`: `files[0]` ×`providerOptions.demo.scale` (2 or 4), Lanczos 3 and a light sharpen; one image.
 * - `remove-background`: `files[0]` as an RGBA PNG with a transparent background; `providerOptions.demo.origin`
 *   (`{ prompt, negativePrompt?, seed }`, see `demoSeedOf`) says which demo picture the input is, so its own subject
 *   is cut out exactly; otherwise the background is found by its colour from the borders.
 */
export function createDemoImageModel(): ImageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "demo",
    modelId: MODEL_ID,
    maxImagesPerCall: 4,
    supportsFileInputs: true,
    supportsMaskInputs: true,
    async doGenerate({ prompt, n, aspectRatio, size, seed, files, mask, providerOptions, abortSignal }) {
      abortSignal?.throwIfAborted();
      const timestamp = new Date();
      const warnings: SharedV4Warning[] = [];
      const demo = readDemoOptions(providerOptions.demo);
      const text = prompt ?? "";
      const tool: DemoImageTool = demo.tool ?? (files?.[0] ? "image-to-image" : "text-to-image");
      const respond = (images: Uint8Array[]) => {
        abortSignal?.throwIfAborted();
        return { images, warnings, response: { timestamp, modelId: MODEL_ID, headers: undefined } };
      };
      const masked = tool === "inpaint" || tool === "outpaint";
      if (mask !== undefined && !masked) warnings.push({ type: "unsupported", feature: "mask" });
      if (tool === "text-to-image" && files?.length) {
        warnings.push({ type: "unsupported", feature: "files", details: "Text to image takes no input image." });
      }
      const fitted = tool === "text-to-image" || tool === "image-to-image";
      if (size !== undefined) {
        warnings.push({
          type: "unsupported",
          feature: "size",
          details: fitted ? "Use aspectRatio; the long side is 1024 px." : "The result's size follows the input's.",
        });
      }
      if (!fitted && aspectRatio !== undefined) {
        warnings.push({
          type: "unsupported",
          feature: "aspectRatio",
          details: "The result's size follows the input's.",
        });
      }
      const single = tool === "upscale" || tool === "remove-background";
      if (single && n > 1) warnings.push({ type: "unsupported", feature: "n", details: "Made one image." });

      if (tool === "upscale") {
        if (text.trim()) {
          warnings.push({ type: "unsupported", feature: "prompt", details: "The demo upscaler takes no prompt." });
        }
        return respond([await upscale(needsImage(files, tool), demo.scale)]);
      }

      if (tool === "remove-background") {
        if (text.trim()) warnings.push({ type: "unsupported", feature: "prompt" });
        const image = await readImage(needsImage(files, tool), "files", "input image");
        abortSignal?.throwIfAborted();
        return respond([await removeBackground(image, demo.origin, warnings)]);
      }

      if (masked) {
        const file = needsImage(files, tool);
        if (!mask) {
          throw new InvalidArgumentError({ argument: "mask", message: `The ${tool} tool needs a mask of the image.` });
        }
        const image = await readImage(file, "files", "input image");
        const read = await readMask(mask, "mask");
        if (read.width !== image.width || read.height !== image.height) {
          throw new InvalidArgumentError({
            argument: "mask",
            message: `The mask is ${read.width}×${read.height} px; it must be the image's size, ${image.width}×${image.height} px.`,
          });
        }
        abortSignal?.throwIfAborted();
        const images = await inpaint({
          image,
          mask: read.data,
          prompt: text,
          negativePrompt: demo.negativePrompt,
          seeds: Array.from({ length: n }, (_, i) => demoSeedOf(text, seed, i)),
          abortSignal,
        });
        return respond(images);
      }

      let [width, height] = sizeFor(aspectRatio, warnings);
      let input: Uint8Array | undefined;
      if (tool === "image-to-image") {
        const decoded = await decodeInput(needsImage(files, tool));
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
            seed: demoSeedOf(text, seed, i),
            width,
            height,
            input,
            strength: demo.strength,
          }),
        );
      }
      return respond(images);
    },
  };
}
