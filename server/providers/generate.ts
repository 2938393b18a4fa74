import type { Experimental_VideoModelV4 as VideoModelV4, ImageModelV4, JSONValue } from "@ai-sdk/provider";
import type { ImageInputs, ProviderDefinition, VideoInputs } from "#server/providers/definition.ts";
import type { GenerationTool } from "#common/tools.ts";
import sharp from "sharp";
import { createDownload, DownloadError, experimental_generateVideo, generateImage } from "ai";
import { providerDefinition, type ProviderId } from "#server/providers/registry.ts";
import { dataUrl, foldStyle, merge, trustedOutputOrigin } from "#server/providers/shared.ts";

export type ImageAspectRatio = "1:1" | "4:3" | "3:4" | "16:9" | "9:16";
export type VideoAspectRatio = "16:9" | "9:16" | "1:1";
export type VideoStyle = "cinematic" | "animation" | "realistic" | "documentary" | "abstract";

/** Options per provider key, as the SDK models read them (`openai`, `replicate`, `fal`, `openaiCompatible`, `demo`). */
export type ProviderOptions = Record<string, Record<string, JSONValue>>;

/** What made an input image that is itself a result: its provider, prompt, seed and place among its outputs. */
export interface Origin {
  provider: string;
  prompt: string;
  negativePrompt?: string;
  seed?: number;
  position: number;
}

export interface ImageRequest {
  /** The tool it serves (the offline demo model reads it; others are told by their inputs). */
  tool?: GenerationTool;
  prompt: string;
  negativePrompt?: string;
  n: number;
  /** Absent for tools whose output takes the input image's shape. */
  aspectRatio?: ImageAspectRatio;
  seed?: number;
  /** The picture to start from (image-to-image, a mask edit, upscaling, background removal). */
  inputImage?: { bytes: Uint8Array; mediaType: string };
  /** A mask of the input image's size: white what changes. */
  mask?: { bytes: Uint8Array; mediaType: string };
  /** Upscaling: how many times larger. */
  scale?: number;
  /** When the input image is a result: what drew it. */
  origin?: Origin;
  /** How far to move away from the input image, 0 (keep it) to 1 (ignore it). */
  strength?: number;
  abortSignal: AbortSignal;
  /** The catalog's fixed options for this binding; request values (negative prompt, strength) take precedence. */
  providerOptions?: ProviderOptions;
  /** The provider's own input fields for this request (the binding's mapping and the advanced settings); they win. */
  providerInputs?: (prompt: string) => Record<string, JSONValue>;
}

export interface VideoRequest {
  tool?: GenerationTool;
  prompt: string;
  /** Image-to-video: the first frame. */
  startImage?: { bytes: Uint8Array; mediaType: string };
  /** The last frame, when one was given. */
  endImage?: { bytes: Uint8Array; mediaType: string };
  negativePrompt?: string;
  style: VideoStyle;
  duration: 5 | 10;
  aspectRatio: VideoAspectRatio;
  seed?: number;
  abortSignal: AbortSignal;
  providerOptions?: ProviderOptions;
  /** How often to ask an asynchronous provider whether the video is ready (default 5 s). */
  pollIntervalMs?: number;
  providerInputs?: (prompt: string) => Record<string, JSONValue>;
}

export interface Output {
  bytes: Uint8Array;
  mediaType: string;
  /** A still of a video, when the model made one. */
  poster?: Uint8Array;
  /** The provider's own safety checker flagged it (fal's `has_nsfw_concepts`). */
  flagged?: boolean;
}

/** fal's verdict per output, as its SDK model passes it on (`providerMetadata.fal.images[i].nsfw`). */
function falFlags(metadata: unknown): boolean[] {
  const fal = (metadata as { fal?: { images?: { nsfw?: unknown }[]; has_nsfw_concepts?: unknown } } | undefined)?.fal;
  if (Array.isArray(fal?.images)) return fal.images.map((i) => i?.nsfw === true);
  if (Array.isArray(fal?.has_nsfw_concepts)) return fal.has_nsfw_concepts.map((f) => f === true);
  return [];
}

// Video polling is bounded by the engine's abort signal; this only stops a run nobody is watching.
const VIDEO_POLL_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Generates images through the AI SDK, with Atelier's options mapped by the provider's definition onto what its API
 * takes (e.g. OpenAI gets a size it accepts and an edit request for image-to-image; Replicate and fal take the
 * aspect ratio, the seed, and the input image with its strength and the negative prompt as model inputs). URL
 * outputs are downloaded by the SDK models before this returns.
 */
export async function runImageModel(model: ImageModelV4, provider: ProviderId, req: ImageRequest): Promise<Output[]> {
  const { prompt: text, ...settings } = imageInputs(model.modelId, provider, req);
  const input = req.inputImage;
  const mask = req.mask && providerDefinition(provider).maskAsAlpha ? await maskToAlpha(req.mask) : req.mask;
  const prompt = input ? { text, images: [dataUrl(input)], ...(mask ? { mask: dataUrl(mask) } : {}) } : text;
  // With n above the model's per-call limit the SDK makes parallel calls; when one fails, stop the others.
  const siblings = new AbortController();
  try {
    const result = await generateImage({
      model,
      prompt,
      n: req.n,
      ...settings,
      maxRetries: 0,
      abortSignal: AbortSignal.any([req.abortSignal, siblings.signal]),
    });
    const flags = falFlags(result.providerMetadata);
    return result.images.map((image, i) => ({
      bytes: image.uint8Array,
      mediaType: image.mediaType,
      ...(flags[i] ? { flagged: true } : {}),
    }));
  } catch (error) {
    siblings.abort();
    throw error;
  }
}

/** A white-on-black mask as one whose transparent pixels are what changes (OpenAI's edits). */
async function maskToAlpha(mask: { bytes: Uint8Array }): Promise<{ bytes: Uint8Array; mediaType: string }> {
  const grey = sharp(mask.bytes).greyscale();
  const alpha = await grey.clone().negate().toBuffer();
  const png = await sharp(mask.bytes).greyscale().joinChannel(alpha).png().toBuffer();
  return { bytes: new Uint8Array(png), mediaType: "image/png" };
}

function imageInputs(modelId: string, provider: string, req: ImageRequest): ImageInputs {
  const definition = providerDefinition(provider);
  if (!definition.imageInputs) throw new Error(`${provider} has no image models`);
  return withProviderInputs(definition, "image", definition.imageInputs(modelId, req), req);
}

/** The request's own provider fields over what the adapter made of it. */
function withProviderInputs<T extends { prompt: string; providerOptions: ProviderOptions }>(
  definition: ProviderDefinition,
  kind: "image" | "video",
  inputs: T,
  req: { providerInputs?: (prompt: string) => Record<string, JSONValue> },
): T {
  const own = req.providerInputs?.(inputs.prompt);
  if (!own || Object.keys(own).length === 0) return inputs;
  const fields = definition.inputFields ? definition.inputFields(own, kind) : own;
  return {
    ...inputs,
    providerOptions: merge(inputs.providerOptions, definition.optionsKey ?? definition.id, {}, fields),
  };
}

/**
 * Generates a video through the AI SDK, with Atelier's options mapped by the provider's definition (external
 * providers get the style folded into the prompt, since none has a style parameter; the offline demo model reads
 * `providerOptions.demo` ({ style, negativePrompt }) and the prompt as the user wrote it). URL outputs are
 * downloaded right away (provider URLs expire).
 */
export async function runVideoModel(model: VideoModelV4, provider: ProviderId, req: VideoRequest): Promise<Output[]> {
  const asynchronous = model.doStart != null && model.doStatus != null;
  const inputs = videoInputs(model.modelId, provider, req);
  const definition = providerDefinition(provider);
  const result = await experimental_generateVideo({
    model,
    prompt: req.startImage ? { image: dataUrl(req.startImage), text: inputs.prompt } : inputs.prompt,
    // A last frame goes as the SDK's frame image to models that read one; others get it through their mapping.
    ...(req.endImage && definition.frameImages
      ? { frameImages: [{ image: dataUrl(req.endImage), frameType: "last_frame" as const }] }
      : {}),
    n: 1,
    aspectRatio: req.aspectRatio,
    duration: req.duration,
    seed: req.seed,
    providerOptions: inputs.providerOptions,
    maxRetries: 0,
    abortSignal: req.abortSignal,
    // Only models with the start/status flow poll; passing it to others makes the SDK log a warning.
    ...(asynchronous && { poll: { intervalMs: req.pollIntervalMs ?? 5000, timeoutMs: VIDEO_POLL_TIMEOUT_MS } }),
    download: outputDownload(model),
  });
  // The offline model makes its own poster frame; other providers' videos get one from ffmpeg when it is there.
  const demo = result.providerMetadata.demo as { poster?: unknown } | undefined;
  const poster = typeof demo?.poster === "string" ? new Uint8Array(Buffer.from(demo.poster, "base64")) : undefined;
  const flags = falFlags(result.providerMetadata);
  return result.videos.map((video, i) => ({
    bytes: video.uint8Array,
    mediaType: video.mediaType,
    ...(i === 0 && poster ? { poster } : {}),
    ...(flags[i] ? { flagged: true } : {}),
  }));
}

function videoInputs(modelId: string, provider: string, req: VideoRequest): VideoInputs {
  const definition = providerDefinition(provider);
  const inputs = definition.videoInputs
    ? definition.videoInputs(modelId, req)
    : { prompt: foldStyle(req), providerOptions: req.providerOptions ?? {} };
  return withProviderInputs(definition, "video", inputs, req);
}

/**
 * Downloads video outputs with the SDK's guarded download (public addresses only), except from the origin an
 * operator configured as the provider's base URL, which may be a local stand-in or proxy.
 */
function outputDownload(model: VideoModelV4) {
  const trusted = trustedOutputOrigin(model);
  const guarded = createDownload();
  return async ({ url, abortSignal }: { url: URL; abortSignal?: AbortSignal }) => {
    if (trusted === undefined || url.origin !== trusted) return guarded({ url, abortSignal });
    let response: Response;
    try {
      response = await fetch(url, { signal: abortSignal });
    } catch (error) {
      if (abortSignal?.aborted) throw error;
      throw new DownloadError({ url: url.href, cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new DownloadError({ url: url.href, statusCode: response.status, statusText: response.statusText });
    }
    return {
      data: new Uint8Array(await response.arrayBuffer()),
      mediaType: response.headers.get("content-type") ?? undefined,
    };
  };
}
