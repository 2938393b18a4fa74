import { randomInt } from "node:crypto";
import { MAX_SEED } from "#common/generation.ts";
import sharp from "sharp";
import {
  InvalidArgumentError,
  type Experimental_VideoModelV4 as VideoModelV4,
  type ImageModelV4,
  type ImageModelV4File,
  type JSONValue,
  type SharedV4Warning,
} from "@ai-sdk/provider";
import type { ComfyServerClient } from "#server/providers/comfyui/client.ts";
import type { ComfyPool } from "#server/providers/comfyui/pool.ts";
import type { ApiGraph, Workflow } from "#server/providers/comfyui/types.ts";
import {
  applyInputs,
  framesFor,
  sizeFor,
  type AspectRatio,
  type WorkflowInputs,
} from "#server/providers/comfyui/workflow.ts";

/** The options key the ComfyUI models read: the negative prompt, the strength and the exposed settings by name. */
export const COMFYUI_OPTIONS_KEY = "comfyui";

/** What a ComfyUI model reports while it runs. */
export interface ComfyHooks {
  onProgress?: (fraction: number) => void;
}

type Bytes = { bytes: Uint8Array; mediaType: string };

/** The request's common values, as both kinds of model read them. */
interface Request {
  prompt: string | undefined;
  seed: number | undefined;
  aspectRatio: string | undefined;
  options: Record<string, JSONValue> | undefined;
  image?: Bytes;
  mask?: Bytes;
  endImage?: Bytes;
  count?: number;
  seconds?: number;
  signal: AbortSignal;
}

const RATIOS = new Set(["1:1", "4:3", "3:4", "16:9", "9:16"]);
/** A seed drawn for a run that asked for none: within the seeds a request may give (`MAX_SEED`). */
const MAX_RANDOM_SEED = MAX_SEED + 1;

/**
 * Runs a workflow on the pool for one request: picks a server, uploads the images to it, writes the request into
 * a copy of the graph and follows it to its outputs. Moved to another server by the pool when its server is lost.
 */
async function runWorkflow(
  pool: ComfyPool,
  workflow: Workflow,
  req: Request,
  hooks: ComfyHooks | undefined,
  warnings: SharedV4Warning[],
) {
  const values = commonValues(workflow, req, warnings);
  const image = req.image && workflow.maskInAlpha && req.mask ? await maskIntoAlpha(req.image, req.mask) : req.image;
  return pool.run({
    signal: req.signal,
    job: async (client) => {
      const graph = await prepare(client, workflow, values, { image, mask: req.mask, endImage: req.endImage }, req);
      return client.run(graph, {
        signal: req.signal,
        onProgress: (p) => hooks?.onProgress?.(p.fraction),
      });
    },
  });
}

/** The values of the request the workflow has a place for; what it has none for is said in a warning. */
function commonValues(workflow: Workflow, req: Request, warnings: SharedV4Warning[]): WorkflowInputs {
  const has = (role: string) => workflow.slots.some((s) => s.role === role);
  const options = req.options ?? {};
  const values: WorkflowInputs = { settings: {} };
  if (req.prompt !== undefined && req.prompt !== "") {
    if (has("prompt")) values.prompt = req.prompt;
    else warnings.push({ type: "unsupported", feature: "prompt", details: "The workflow has no prompt." });
  }
  const negative = options.negativePrompt;
  if (typeof negative === "string" && negative.trim() && has("negativePrompt")) values.negativePrompt = negative;
  // A workflow keeps the seed it was saved with: without one asked for, every run draws its own, as ComfyUI's
  // "randomize" does.
  if (has("seed")) values.seed = req.seed ?? randomInt(MAX_RANDOM_SEED);
  if (req.aspectRatio && has("width") && has("height")) {
    if (RATIOS.has(req.aspectRatio)) Object.assign(values, sizeFor(workflow, req.aspectRatio as AspectRatio) ?? {});
    else warnings.push({ type: "unsupported", feature: "aspectRatio", details: `${req.aspectRatio} is not offered.` });
  }
  if (req.count !== undefined && has("batch")) values.batch = req.count;
  if (typeof options.strength === "number" && req.image && has("denoise")) values.denoise = options.strength;
  if (req.seconds !== undefined && has("frames")) values.frames = framesFor(workflow, req.seconds);
  if (values.frames === undefined) delete values.frames;
  const settings = new Set(workflow.slots.filter((s) => s.role === "setting").map((s) => s.name));
  for (const [name, value] of Object.entries(options)) {
    if (!settings.has(name)) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      values.settings![name] = value;
  }
  return values;
}

/** Uploads the request's images to the chosen server and writes everything into a copy of the graph. */
async function prepare(
  client: ComfyServerClient,
  workflow: Workflow,
  values: WorkflowInputs,
  images: { image?: Bytes; mask?: Bytes; endImage?: Bytes },
  req: Request,
): Promise<ApiGraph> {
  const has = (role: string) => workflow.slots.some((s) => s.role === role);
  const upload = async (file: Bytes | undefined, role: "image" | "mask" | "endImage") => {
    if (!file || !has(role)) return undefined;
    const ext = file.mediaType === "image/jpeg" ? "jpg" : file.mediaType === "image/webp" ? "webp" : "png";
    return client.upload(file.bytes, {
      filename: `atelier-${role}-${crypto.randomUUID()}.${ext}`,
      signal: req.signal,
    });
  };
  const [image, mask, endImage] = await Promise.all([
    upload(images.image, "image"),
    workflow.maskInAlpha ? undefined : upload(images.mask, "mask"),
    upload(images.endImage, "endImage"),
  ]);
  return applyInputs(workflow, { ...values, image, mask, endImage });
}

/** ComfyUI's LoadImage reads a mask from the image's alpha, transparent where it changes: white of the mask. */
async function maskIntoAlpha(image: Bytes, mask: Bytes): Promise<Bytes> {
  const base = sharp(image.bytes).removeAlpha();
  const { width, height } = await base.metadata();
  const alpha = await sharp(mask.bytes).greyscale().resize(width, height, { fit: "fill" }).negate().toBuffer();
  const png = await base.joinChannel(alpha).png().toBuffer();
  return { bytes: new Uint8Array(png), mediaType: "image/png" };
}

function fileBytes(file: ImageModelV4File | undefined, argument: string): Bytes | undefined {
  if (!file) return undefined;
  if (file.type !== "file")
    throw new InvalidArgumentError({ argument, message: "ComfyUI models take image bytes, not URLs." });
  const bytes = typeof file.data === "string" ? new Uint8Array(Buffer.from(file.data, "base64")) : file.data;
  return { bytes, mediaType: file.mediaType };
}

/** A workflow that makes images, as an AI SDK image model. */
export function comfyImageModel(
  pool: ComfyPool,
  workflow: Workflow,
  modelId: string,
  hooks?: ComfyHooks,
): ImageModelV4 {
  const batch = workflow.slots.some((s) => s.role === "batch");
  return {
    specificationVersion: "v4",
    provider: "comfyui",
    modelId,
    // A workflow with a batch size makes several images in one run; one without, one run per image.
    maxImagesPerCall: batch ? 8 : 1,
    async doGenerate({ prompt, n, aspectRatio, seed, files, mask, providerOptions, abortSignal }) {
      const timestamp = new Date();
      const warnings: SharedV4Warning[] = [];
      const outputs = await runWorkflow(
        pool,
        workflow,
        {
          prompt,
          seed,
          aspectRatio,
          options: providerOptions[COMFYUI_OPTIONS_KEY] as Record<string, JSONValue> | undefined,
          image: fileBytes(files?.[0], "files"),
          mask: fileBytes(mask, "mask"),
          count: batch ? n : undefined,
          signal: abortSignal ?? new AbortController().signal,
        },
        hooks,
        warnings,
      );
      const images = outputs.filter((o) => o.mediaType.startsWith("image/")).map((o) => o.bytes);
      return { images, warnings, response: { timestamp, modelId, headers: undefined } };
    },
  };
}

/** A workflow that makes videos, as an AI SDK video model. */
export function comfyVideoModel(
  pool: ComfyPool,
  workflow: Workflow,
  modelId: string,
  hooks?: ComfyHooks,
): VideoModelV4 {
  return {
    specificationVersion: "v4",
    provider: "comfyui",
    modelId,
    maxVideosPerCall: 1,
    async doGenerate(options) {
      const timestamp = new Date();
      const warnings: SharedV4Warning[] = [];
      const last = options.frameImages?.find((f) => f.frameType === "last_frame")?.image;
      const outputs = await runWorkflow(
        pool,
        workflow,
        {
          prompt: options.prompt,
          seed: options.seed,
          aspectRatio: options.aspectRatio === "adaptive" ? undefined : options.aspectRatio,
          options: options.providerOptions[COMFYUI_OPTIONS_KEY] as Record<string, JSONValue> | undefined,
          image: fileBytes(options.image, "image"),
          endImage: fileBytes(last, "frameImages"),
          seconds: options.duration,
          signal: options.abortSignal ?? new AbortController().signal,
        },
        hooks,
        warnings,
      );
      const video =
        outputs.find((o) => o.mediaType.startsWith("video/")) ?? outputs.find((o) => o.mediaType === "image/webp");
      return {
        videos: video ? [{ type: "binary", data: video.bytes, mediaType: video.mediaType }] : [],
        warnings,
        response: { timestamp, modelId, headers: undefined },
      };
    },
  };
}
