import type { Experimental_VideoModelV4 as VideoModelV4, ImageModelV4, JSONValue } from "@ai-sdk/provider";
import { createDownload, DownloadError, experimental_generateVideo, generateImage } from "ai";
import { trustedOutputOrigin, type ExternalProvider } from "#server/providers/external.ts";

export type ImageAspectRatio = "1:1" | "4:3" | "3:4" | "16:9" | "9:16";
export type VideoAspectRatio = "16:9" | "9:16" | "1:1";
export type VideoStyle = "cinematic" | "animation" | "realistic" | "documentary" | "abstract";

/** Options per provider key, as the SDK models read them (`openai`, `replicate`, `fal`, `openaiCompatible`, `demo`). */
export type ProviderOptions = Record<string, Record<string, JSONValue>>;

export interface ImageRequest {
  prompt: string;
  negativePrompt?: string;
  n: number;
  aspectRatio: ImageAspectRatio;
  seed?: number;
  /** Image-to-image: the picture to start from. */
  inputImage?: { bytes: Uint8Array; mediaType: string };
  /** How far to move away from the input image, 0 (keep it) to 1 (ignore it). */
  strength?: number;
  abortSignal: AbortSignal;
  /** The catalog's fixed options for this binding; request values (negative prompt, strength) take precedence. */
  providerOptions?: ProviderOptions;
}

export interface VideoRequest {
  prompt: string;
  negativePrompt?: string;
  style: VideoStyle;
  duration: 5 | 10;
  aspectRatio: VideoAspectRatio;
  seed?: number;
  abortSignal: AbortSignal;
  providerOptions?: ProviderOptions;
  /** How often to ask an asynchronous provider whether the video is ready (default 5 s). */
  pollIntervalMs?: number;
}

export interface Output {
  bytes: Uint8Array;
  mediaType: string;
  /** A still of a video, when the model made one. */
  poster?: Uint8Array;
}

type Size = `${number}x${number}`;

const GPT_IMAGE_SIZES: Record<ImageAspectRatio, Size> = {
  "1:1": "1024x1024",
  "4:3": "1536x1024",
  "16:9": "1536x1024",
  "3:4": "1024x1536",
  "9:16": "1024x1536",
};
const DALL_E_3_SIZES: Record<ImageAspectRatio, Size> = {
  "1:1": "1024x1024",
  "4:3": "1792x1024",
  "16:9": "1792x1024",
  "3:4": "1024x1792",
  "9:16": "1024x1792",
};
// Servers behind OpenAI-compatible APIs mostly run SDXL-class models, which do best at their training resolutions.
const SDXL_SIZES: Record<ImageAspectRatio, Size> = {
  "1:1": "1024x1024",
  "4:3": "1152x896",
  "3:4": "896x1152",
  "16:9": "1344x768",
  "9:16": "768x1344",
};

// The SDK's defaults (500 ms, 240 polls) give up on a slow Replicate prediction after two minutes; the engine's
// own deadline, through the abort signal, is the one that should end a run.
const REPLICATE_POLLING = { pollIntervalMillis: 1000, maxPollAttempts: 3600 };

// Video polling is bounded by the engine's abort signal; this only stops a run nobody is watching.
const VIDEO_POLL_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Generates images through the AI SDK, mapping Atelier's options onto what each provider's API takes: OpenAI gets
 * a size it accepts and an edit request for image-to-image; Replicate and fal take the aspect ratio, the seed, and
 * the input image with its strength and the negative prompt as model inputs. URL outputs are downloaded by the
 * SDK models before this returns.
 */
export async function runImageModel(
  model: ImageModelV4,
  provider: ExternalProvider | "demo",
  req: ImageRequest,
): Promise<Output[]> {
  const text = provider === "openai" || provider === "openai-compatible" ? foldNegative(req) : req.prompt;
  const input = req.inputImage;
  const prompt = input ? { text, images: [dataUrl(input)] } : text;
  // With n above the model's per-call limit the SDK makes parallel calls; when one fails, stop the others.
  const siblings = new AbortController();
  try {
    const result = await generateImage({
      model,
      prompt,
      n: req.n,
      ...imageSettings(model.modelId, provider, req),
      maxRetries: 0,
      abortSignal: AbortSignal.any([req.abortSignal, siblings.signal]),
    });
    return result.images.map((image) => ({ bytes: image.uint8Array, mediaType: image.mediaType }));
  } catch (error) {
    siblings.abort();
    throw error;
  }
}

function imageSettings(
  modelId: string,
  provider: ExternalProvider | "demo",
  req: ImageRequest,
): { size?: Size; aspectRatio?: ImageAspectRatio; seed?: number; providerOptions: ProviderOptions } {
  const options = req.providerOptions ?? {};
  const strength = req.inputImage ? req.strength : undefined;
  switch (provider) {
    case "openai":
      // GPT image models take neither seed nor aspect ratio, and have no strength or negative prompt.
      return { size: openaiSize(modelId, req.aspectRatio), providerOptions: options };
    case "openai-compatible":
      return { size: SDXL_SIZES[req.aspectRatio], providerOptions: options };
    case "replicate":
      return {
        aspectRatio: req.aspectRatio,
        seed: req.seed,
        providerOptions: merge(options, "replicate", REPLICATE_POLLING, {
          negative_prompt: req.negativePrompt,
          // Replicate's img2img models (Flux dev, SDXL, SD 3.5) call it prompt_strength, not the SDK's `strength`.
          prompt_strength: strength,
        }),
      };
    case "fal":
      return {
        aspectRatio: req.aspectRatio,
        seed: req.seed,
        // snake_case because the fal model passes unknown keys through as they are; `strength` it maps itself.
        providerOptions: merge(options, "fal", {}, { negative_prompt: req.negativePrompt, strength }),
      };
    case "demo":
      return {
        aspectRatio: req.aspectRatio,
        seed: req.seed,
        providerOptions: merge(options, "demo", {}, { negativePrompt: req.negativePrompt, strength: req.strength }),
      };
  }
}

function openaiSize(modelId: string, aspectRatio: ImageAspectRatio): Size {
  if (modelId.startsWith("dall-e-2")) return "1024x1024";
  if (modelId.startsWith("dall-e-3")) return DALL_E_3_SIZES[aspectRatio];
  return GPT_IMAGE_SIZES[aspectRatio];
}

/**
 * For APIs without a negative prompt the model is told in words, which beats dropping the user's wish. One line:
 * multipart bodies (image edits) turn line breaks into CRLF.
 */
function foldNegative(req: ImageRequest): string {
  const negative = req.negativePrompt?.trim();
  return negative ? `${req.prompt.trim().replace(/[\s.]+$/, "")}. Avoid: ${negative}.` : req.prompt;
}

/**
 * Generates a video through the AI SDK. External providers get the style folded into the prompt, since none has a
 * style parameter; the offline demo model reads `providerOptions.demo` ({ style, negativePrompt }) and the prompt as
 * the user wrote it. URL outputs are downloaded right away (provider URLs expire).
 */
export async function runVideoModel(
  model: VideoModelV4,
  provider: ExternalProvider | "demo",
  req: VideoRequest,
): Promise<Output[]> {
  const asynchronous = model.doStart != null && model.doStatus != null;
  const result = await experimental_generateVideo({
    model,
    prompt: provider === "demo" ? req.prompt : `${req.prompt.trim().replace(/[\s.]+$/, "")}, ${req.style} style`,
    n: 1,
    aspectRatio: req.aspectRatio,
    duration: req.duration,
    seed: req.seed,
    providerOptions: videoOptions(model.modelId, provider, req),
    maxRetries: 0,
    abortSignal: req.abortSignal,
    // Only models with the start/status flow poll; passing it to others makes the SDK log a warning.
    ...(asynchronous && { poll: { intervalMs: req.pollIntervalMs ?? 5000, timeoutMs: VIDEO_POLL_TIMEOUT_MS } }),
    download: outputDownload(model),
  });
  // The offline model makes its own poster frame; other providers' videos get one from ffmpeg when it is there.
  const demo = result.providerMetadata.demo as { poster?: unknown } | undefined;
  const poster = typeof demo?.poster === "string" ? new Uint8Array(Buffer.from(demo.poster, "base64")) : undefined;
  return result.videos.map((video, i) => ({
    bytes: video.uint8Array,
    mediaType: video.mediaType,
    ...(i === 0 && poster ? { poster } : {}),
  }));
}

function videoOptions(modelId: string, provider: ExternalProvider | "demo", req: VideoRequest): ProviderOptions {
  const options = req.providerOptions ?? {};
  switch (provider) {
    case "fal":
      return merge(options, "fal", {}, { negativePrompt: req.negativePrompt, duration: falDuration(modelId, req) });
    case "replicate":
      return merge(options, "replicate", {}, { negative_prompt: req.negativePrompt });
    case "demo":
      return merge(options, "demo", {}, { style: req.style, negativePrompt: req.negativePrompt });
    default:
      return options;
  }
}

/**
 * The fal model sends the duration as "5s", the form Luma and Veo take. Kling, Wan, MiniMax and most other fal
 * video models declare "5" | "10" or an integer (fal coerces "5"), so send the bare number unless it is one of those.
 */
function falDuration(modelId: string, req: VideoRequest): string | undefined {
  return /luma|veo/i.test(modelId) ? undefined : String(req.duration);
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

/** Lays the engine's defaults, then the catalog's options, then the request's values (unset ones left out). */
function merge(
  options: ProviderOptions,
  key: string,
  defaults: Record<string, JSONValue>,
  values: Record<string, JSONValue | undefined>,
): ProviderOptions {
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<
    string,
    JSONValue
  >;
  return { ...options, [key]: { ...defaults, ...options[key], ...set } };
}

function dataUrl(image: { bytes: Uint8Array; mediaType: string }): string {
  return `data:${image.mediaType};base64,${Buffer.from(image.bytes).toString("base64")}`;
}
