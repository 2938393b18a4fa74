import { z } from "zod";
import {
  EXTEND_MAX_SIDE_PIXELS,
  GENERATION_TOOLS,
  TOOLS,
  UPSCALE_FACTORS,
  type GenerationTool,
  type ToolSpec,
  type UpscaleFactor,
} from "./tools.ts";
import {
  checkParameters,
  parameterValuesSchema,
  priceOf,
  type ModelPrice,
  type ParameterField,
  type ParameterValues,
} from "./model-parameters.ts";

export { priceOf, type ModelPrice };
export { GENERATION_TOOLS, type GenerationTool };

export const GENERATION_KINDS = ["image", "video"] as const;
export type GenerationKind = (typeof GENERATION_KINDS)[number];

export const GENERATION_STATUSES = ["queued", "processing", "succeeded", "failed", "canceled"] as const;
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];
export const OPEN_STATUSES: readonly GenerationStatus[] = ["queued", "processing"];

export const VISIBILITIES = ["private", "public"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const IMAGE_ASPECT_RATIOS = ["1:1", "4:3", "3:4", "16:9", "9:16"] as const;
export type ImageAspectRatio = (typeof IMAGE_ASPECT_RATIOS)[number];
export const VIDEO_ASPECT_RATIOS = ["16:9", "9:16", "1:1"] as const;
export type VideoAspectRatio = (typeof VIDEO_ASPECT_RATIOS)[number];
export type AspectRatio = ImageAspectRatio;

export const VIDEO_STYLES = ["cinematic", "animation", "realistic", "documentary", "abstract"] as const;
export type VideoStyle = (typeof VIDEO_STYLES)[number];
export const VIDEO_DURATIONS = [5, 10] as const;
export type VideoDuration = (typeof VIDEO_DURATIONS)[number];

export const PROMPT_MAX = 2000;
export const MAX_IMAGE_COUNT = 4;
export const DEFAULT_STRENGTH = 0.6;
export const MAX_SEED = 2_147_483_647;

export interface ModelOptions {
  aspectRatios: readonly AspectRatio[];
  /** Most images one request may ask for. */
  maxCount: number;
  durations?: readonly VideoDuration[];
  styles?: readonly VideoStyle[];
  negativePrompt: boolean;
  seed: boolean;
  /** Image-to-image strength. */
  strength: boolean;
  /** The resolutions it makes ("720p", "1080p", "2K"…), the first the default; none: the provider's own. */
  resolutions?: readonly string[];
  /** Whether it can add sound to a video (off unless asked). */
  audio?: boolean;
  /** The upscaling factors it offers (upscalers; default 2 and 4). */
  scales?: readonly UpscaleFactor[];
}

/** The credits a generation costs with the model's price formula, its advanced settings' defaults applied. */
export function costOf(
  model: { price: ModelPrice; parameters?: readonly ParameterField[] },
  params: Pick<
    GenerationParams,
    "count" | "duration" | "resolution" | "audio" | "aspectRatio" | "options" | "scale"
  > & {
    tool?: GenerationTool;
  },
): number {
  const options = checkParameters(model.parameters, params.options);
  return priceOf(model.price, { ...params, options: options.ok ? options.values : params.options });
}

/** What a generation was asked for, besides prompt, model and input image. */
export interface GenerationParams {
  aspectRatio: AspectRatio;
  /** Images asked for (1 for a video). */
  count: number;
  seed?: number;
  strength?: number;
  style?: VideoStyle;
  duration?: VideoDuration;
  /** One of the model's resolutions (none: the provider's default). */
  resolution?: string;
  /** Sound with the video. */
  audio?: boolean;
  /** The model's advanced settings, checked against its fields, defaults included. */
  options?: ParameterValues;
  /** Upscaling: how many times larger. */
  scale?: UpscaleFactor;
  /** Extending the canvas: pixels added on each side of the input image. */
  extend?: ExtendPadding;
  /** The generation this one was made from (its input image's, or the one it varies). */
  parentId?: string;
}

/** Pixels added on each side of an image. */
export interface ExtendPadding {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** The ratio among Atelier's closest to a size. */
export function nearestRatio(width: number, height: number): AspectRatio {
  const shape = Math.log(width / height);
  let best: AspectRatio = "1:1";
  for (const ratio of IMAGE_ASPECT_RATIOS) {
    const [w, h] = ratio.split(":").map(Number) as [number, number];
    const [bw, bh] = best.split(":").map(Number) as [number, number];
    if (Math.abs(Math.log(w / h) - shape) < Math.abs(Math.log(bw / bh) - shape)) best = ratio;
  }
  return best;
}

/**
 * The pixels that put an image, centred, on a canvas of a ratio (growing one side only): what the server extends
 * by, and what the studio previews.
 */
export function paddingTo(image: { width: number; height: number }, ratio: AspectRatio): ExtendPadding {
  const [w, h] = ratio.split(":").map(Number) as [number, number];
  let width = image.width;
  let height = image.height;
  if (image.width / image.height < w / h) width = Math.round((image.height * w) / h);
  else height = Math.round((image.width * h) / w);
  const x = width - image.width;
  const y = height - image.height;
  return {
    top: Math.floor(y / 2),
    bottom: y - Math.floor(y / 2),
    left: Math.floor(x / 2),
    right: x - Math.floor(x / 2),
  };
}

const resolution = z.string().trim().min(1).max(40).optional();

const prompt = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1).max(PROMPT_MAX));

const image = {
  /** An uploaded image or one of the user's results (asset id), or an https URL to fetch. */
  assetId: z.uuid().optional(),
  url: z.url().max(2048).optional(),
};
const side = z.coerce.number().int().min(0).max(EXTEND_MAX_SIDE_PIXELS).default(0);

/** One tool's request fields, as its row in the table of tools says. */
function requestSchema(spec: ToolSpec) {
  const takes = (p: (typeof spec.params)[number]) => spec.params.includes(p);
  const video = spec.kind === "video";
  return z.strictObject({
    tool: z.literal(spec.id as GenerationTool),
    model: z.string().min(1).max(100),
    // A tool that reads no prompt has no such field (one sent is an unknown field).
    ...(spec.prompt === "none"
      ? {}
      : { prompt: spec.prompt === "required" ? prompt : z.string().trim().max(PROMPT_MAX).default("") }),
    ...(takes("negativePrompt") ? { negativePrompt: z.string().trim().max(PROMPT_MAX).optional() } : {}),
    ...(takes("aspectRatio")
      ? {
          aspectRatio: video ? z.enum(VIDEO_ASPECT_RATIOS).default("16:9") : z.enum(IMAGE_ASPECT_RATIOS).default("1:1"),
        }
      : {}),
    ...(takes("count") ? { count: z.coerce.number().int().min(1).max(MAX_IMAGE_COUNT).default(1) } : {}),
    ...(takes("seed") ? { seed: z.coerce.number().int().min(0).max(MAX_SEED).optional() } : {}),
    ...(takes("strength") ? { strength: z.coerce.number().min(0).max(1).default(DEFAULT_STRENGTH) } : {}),
    ...(takes("style") ? { style: z.enum(VIDEO_STYLES).default("cinematic") } : {}),
    ...(takes("duration")
      ? {
          duration: z.coerce
            .number()
            .int()
            .refine((d): d is VideoDuration => (VIDEO_DURATIONS as readonly number[]).includes(d))
            .default(5),
        }
      : {}),
    ...(takes("resolution") ? { resolution } : {}),
    ...(takes("audio") ? { audio: z.boolean().optional() } : {}),
    ...(takes("options") ? { options: parameterValuesSchema.optional() } : {}),
    /** The result this one varies (Variations: the same request with a new seed), linked as its parent. */
    variationOf: z.uuid().optional(),
    /** The public result this one remixes (its settings, an edited prompt): linked to it and counted among its remixes. */
    remixOf: z.uuid().optional(),
    ...(spec.image ? { inputAssetId: image.assetId, inputUrl: image.url } : {}),
    ...(spec.mask ? { maskAssetId: image.assetId, maskUrl: image.url } : {}),
    ...(spec.endImage ? { endAssetId: image.assetId, endUrl: image.url } : {}),
    ...(spec.scale
      ? {
          scale: z.coerce
            .number()
            .int()
            .refine((d): d is UpscaleFactor => (UPSCALE_FACTORS as readonly number[]).includes(d), {
              message: `scale: ${UPSCALE_FACTORS.join(" or ")}`,
            })
            .default(2),
        }
      : {}),
    ...(spec.extend
      ? {
          /** A new ratio for the canvas (the image centred in it), or pixels on each side. */
          extendTo: z.enum(IMAGE_ASPECT_RATIOS).optional(),
          extend: z.strictObject({ top: side, right: side, bottom: side, left: side }).optional(),
        }
      : {}),
  });
}

/**
 * A generation request as the pages and the public API send it, one shape per tool (its row in the table of tools
 * says which fields it takes). Limits that depend on the model (its ratios, counts, durations, whether it takes a
 * negative prompt or a seed) are checked against the catalog on submit.
 */
export const submitSchema = z
  .discriminatedUnion(
    "tool",
    TOOLS.map((t) => requestSchema(t)) as unknown as [
      ReturnType<typeof requestSchema>,
      ...ReturnType<typeof requestSchema>[],
    ],
  )
  .transform((r) => ({ prompt: "", ...r }) as unknown as SubmitRequest);

/** A generation request, whatever its tool, with the defaults its tool gives. */
export interface SubmitRequest {
  tool: GenerationTool;
  model: string;
  /** Empty for a tool that reads none. */
  prompt: string;
  negativePrompt?: string;
  /** Absent for tools whose output takes its input image's shape. */
  aspectRatio?: AspectRatio;
  count?: number;
  seed?: number;
  strength?: number;
  style?: VideoStyle;
  duration?: VideoDuration;
  resolution?: string;
  audio?: boolean;
  options?: ParameterValues;
  inputAssetId?: string;
  inputUrl?: string;
  maskAssetId?: string;
  maskUrl?: string;
  endAssetId?: string;
  endUrl?: string;
  scale?: UpscaleFactor;
  extendTo?: ImageAspectRatio;
  extend?: ExtendPadding;
  variationOf?: string;
  remixOf?: string;
}

/** What a request may carry, in its loosest form (the schema checks it per tool). */
export type SubmitInput = { tool: GenerationTool; model: string } & Partial<
  Omit<SubmitRequest, "tool" | "model" | "count" | "scale" | "duration"> & {
    count: number | string;
    scale: number | string;
    duration: number | string;
  }
>;

export const listSchema = z.strictObject({
  kind: z.enum(GENERATION_KINDS).optional(),
  tool: z.enum(GENERATION_TOOLS).optional(),
  status: z.enum(GENERATION_STATUSES).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(24),
});
export type ListQuery = z.output<typeof listSchema>;

/**
 * Why a generation failed, as stored on it: a stable code, the message key pages translate, and the English text
 * the public API returns.
 */
export const FAILURES = {
  content_rejected: {
    key: "generation.errors.contentRejected",
    text: "The provider's safety system rejected this request. Please change the prompt and try again.",
  },
  invalid_request: {
    key: "generation.errors.invalidRequest",
    text: "The provider refused these settings. Please change them and try again.",
  },
  timeout: {
    key: "generation.errors.timeout",
    text: "The generation took too long and was stopped. Your credits were returned.",
  },
  interrupted: {
    key: "generation.errors.interrupted",
    text: "The generation was interrupted and could not be finished. Your credits were returned.",
  },
  input_unavailable: {
    key: "generation.errors.inputUnavailable",
    text: "The input image could not be read, so the generation did not run. Your credits were returned. Please add the image again.",
  },
  parse_error: { key: "msg.generation.parseResponseError", text: "Parse response error" },
  image_failed: { key: "msg.generation.imageGenerateFailed", text: "App image generate failed" },
  video_failed: { key: "msg.generation.videoRequestFailed", text: "Video generate request failed, please try again" },
} as const;
export type FailureCode = keyof typeof FAILURES;
