import { z } from "zod";
import {
  checkParameters,
  parameterValuesSchema,
  priceOf,
  type ModelPrice,
  type ParameterField,
  type ParameterValues,
} from "./model-parameters.ts";

export { priceOf, type ModelPrice };

export const GENERATION_KINDS = ["image", "video"] as const;
export type GenerationKind = (typeof GENERATION_KINDS)[number];

export const GENERATION_TOOLS = ["text-to-image", "image-to-image", "text-to-video"] as const;
export type GenerationTool = (typeof GENERATION_TOOLS)[number];

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

/** The tool ids in dashboard URLs. */
export const TOOL_IDS = {
  "7595af7e": "text-to-image",
  "927fb8ad": "image-to-image",
  "5afe14a8": "text-to-video",
} as const satisfies Record<string, GenerationTool>;

export const KIND_OF_TOOL: Record<GenerationTool, GenerationKind> = {
  "text-to-image": "image",
  "image-to-image": "image",
  "text-to-video": "video",
};

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
}

/** The credits a generation costs with the model's price formula, its advanced settings' defaults applied. */
export function costOf(
  model: { price: ModelPrice; parameters?: readonly ParameterField[] },
  params: Pick<GenerationParams, "count" | "duration" | "resolution" | "audio" | "aspectRatio" | "options">,
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
}

const resolution = z.string().trim().min(1).max(40).optional();

const prompt = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1).max(PROMPT_MAX));

/**
 * A generation request as the pages and the public API send it. Limits that depend on the model (its ratios,
 * counts, durations, whether it takes a negative prompt or a seed) are checked against the catalog on submit.
 */
export const submitSchema = z.discriminatedUnion("tool", [
  z.strictObject({
    tool: z.literal("text-to-image"),
    model: z.string().min(1).max(100),
    prompt,
    negativePrompt: z.string().trim().max(PROMPT_MAX).optional(),
    aspectRatio: z.enum(IMAGE_ASPECT_RATIOS).default("1:1"),
    count: z.coerce.number().int().min(1).max(MAX_IMAGE_COUNT).default(1),
    seed: z.coerce.number().int().min(0).max(MAX_SEED).optional(),
    resolution,
    options: parameterValuesSchema.optional(),
  }),
  z.strictObject({
    tool: z.literal("image-to-image"),
    model: z.string().min(1).max(100),
    prompt,
    negativePrompt: z.string().trim().max(PROMPT_MAX).optional(),
    aspectRatio: z.enum(IMAGE_ASPECT_RATIOS).default("1:1"),
    count: z.coerce.number().int().min(1).max(MAX_IMAGE_COUNT).default(1),
    seed: z.coerce.number().int().min(0).max(MAX_SEED).optional(),
    strength: z.coerce.number().min(0).max(1).default(DEFAULT_STRENGTH),
    /** An uploaded input image (asset id) or an https URL to fetch. */
    inputAssetId: z.uuid().optional(),
    inputUrl: z.url().max(2048).optional(),
    resolution,
    options: parameterValuesSchema.optional(),
  }),
  z.strictObject({
    tool: z.literal("text-to-video"),
    model: z.string().min(1).max(100),
    prompt,
    style: z.enum(VIDEO_STYLES).default("cinematic"),
    duration: z.coerce
      .number()
      .int()
      .refine((d): d is VideoDuration => (VIDEO_DURATIONS as readonly number[]).includes(d))
      .default(5),
    aspectRatio: z.enum(VIDEO_ASPECT_RATIOS).default("16:9"),
    seed: z.coerce.number().int().min(0).max(MAX_SEED).optional(),
    resolution,
    audio: z.boolean().optional(),
    options: parameterValuesSchema.optional(),
  }),
]);
export type SubmitInput = z.input<typeof submitSchema>;
export type SubmitRequest = z.output<typeof submitSchema>;

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
