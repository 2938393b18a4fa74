import type { SafetyLevel } from "#common/safety.ts";
import type { ProviderWith } from "#server/providers/registry.ts";
import type { Locale } from "#common/locales.ts";
import type { ParameterField } from "#common/model-parameters.ts";
import type { InputMapping } from "#common/input-mapping.ts";
import {
  costOf,
  type ModelOptions,
  type ModelPrice,
  IMAGE_ASPECT_RATIOS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DURATIONS,
  VIDEO_STYLES,
  type GenerationKind,
} from "#common/generation.ts";
import type { GenerationTool } from "#common/tools.ts";
import type { Workflow } from "#server/providers/comfyui/types.ts";

export type { ModelOptions, ModelPrice };

export type ModelKind = GenerationKind;
export type Tool = GenerationTool;
/** A registered provider that makes images or videos. */
export type Provider = ProviderWith<"image"> | ProviderWith<"video">;

/**
 * One way to run a model: a provider and its id for the model (per tool when the provider splits them), on one of
 * the provider's connections or, without `connection`, on each of them in failover order.
 */
export interface Binding {
  provider: Provider;
  model: string;
  /** The provider's id for image-to-image, when it differs (the same as `toolModels["image-to-image"].model`). */
  imageToImageModel?: string;
  /** The provider's id and mapping for a tool, when they differ from the binding's (see `providerModelFor`). */
  toolModels?: Partial<Record<GenerationTool, ToolModel>>;
  /** One connection only (its id). */
  connection?: string;
  /** Fixed inputs sent with every request, in the provider's own names. */
  options?: Record<string, unknown>;
  /** Where each of Atelier's common parameters goes in the provider's input (read from its schema). */
  mapping?: InputMapping;
  /** The workflow it runs, for a provider whose models are the operator's workflows (ComfyUI). */
  workflow?: Workflow;
}

/** The provider's id for one tool of a binding, and where the common parameters go in its input. */
export interface ToolModel {
  model: string;
  mapping?: InputMapping;
}

/** A binding as the registry resolved it: on one connection that can serve now. */
export type ResolvedBinding = Binding & { connection: string };

/** What every model of the catalog has, whatever it makes. */
export interface ModelPresentation {
  id: string;
  /** A product name, shown as is in every language unless `names` has one for the language. */
  name: string;
  names?: Partial<Record<Locale, string>>;
  description?: Partial<Record<Locale, string>>;
  tags?: string[];
  /** An image shown with the model: a path on this site or an https URL. */
  cover?: string;
  /** Runs on this machine with no key and no network; labelled "Offline demo". */
  offline?: boolean;
  /** The content checks its requests get; unset follows the console's level (an API key's level wins over both). */
  safety?: SafetyLevel;
}

export interface CatalogModel<B extends Binding = ResolvedBinding> extends ModelPresentation {
  kind: ModelKind;
  tools: Tool[];
  /** Tried in this order: a provider-side failure moves on to the next one. */
  bindings: B[];
  price: ModelPrice;
  /** What the provider charges per unit, in the currency of the credit packs (for the margin; never billed). */
  cost?: number;
  options: ModelOptions;
  /** Its own settings beyond the common ones, offered as advanced controls. */
  parameters?: ParameterField[];
  /** Seconds a job usually takes, until the model's own recent durations are known. */
  expectedSeconds: number;
  /** A run taking longer is stopped, failed and refunded. */
  timeoutSeconds: number;
}

/** A model's name in a language: its own there when it has one, its product name otherwise. */
export function displayName(model: Pick<ModelPresentation, "name" | "names">, locale: string): string {
  return model.names?.[locale as Locale] ?? model.name;
}

/** A model as a job keeps it from its submission: what it runs on, what it costs and how long it may take. */
export type ModelSnapshot = Pick<
  CatalogModel,
  "name" | "kind" | "tools" | "bindings" | "price" | "options" | "parameters" | "expectedSeconds" | "timeoutSeconds"
>;

const IMAGE_RATIOS = IMAGE_ASPECT_RATIOS;

/**
 * fal's named image sizes (`image_size`) for Atelier's ratios, as fal's text-to-image models declare them:
 * square_hd, landscape_4_3, portrait_4_3, landscape_16_9, portrait_16_9.
 */
const FAL_IMAGE_SIZES = {
  "1:1": "square_hd",
  "4:3": "landscape_4_3",
  "3:4": "portrait_4_3",
  "16:9": "landscape_16_9",
  "9:16": "portrait_16_9",
} as const;

/** The safety tolerance of BFL's FLUX models on fal: "1" strictest to "6" most permissive. */
const safetyTolerance = (defaultValue: string): ParameterField => ({
  name: "safety_tolerance",
  type: "string",
  label: "Safety tolerance",
  description: "1 is the strictest, 6 the most permissive.",
  default: defaultValue,
  choices: ["1", "2", "3", "4", "5", "6"],
});

const safetyChecker = (defaultValue: boolean): ParameterField => ({
  name: "enable_safety_checker",
  type: "boolean",
  label: "Safety checker",
  default: defaultValue,
});

const enhancePrompt: ParameterField = {
  name: "enhance_prompt",
  type: "boolean",
  label: "Enhance prompt",
  description: "Let the model rewrite the prompt for better results.",
  default: false,
};

const jpegOrPng: ParameterField = {
  name: "output_format",
  type: "string",
  label: "Output format",
  default: "jpeg",
  choices: ["jpeg", "png"],
};

/** Recraft V3's styles on fal (its `style` choices); the vector ones cost twice as much. */
const RECRAFT_STYLES = [
  "any",
  "realistic_image",
  "digital_illustration",
  "vector_illustration",
  "realistic_image/b_and_w",
  "realistic_image/hard_flash",
  "realistic_image/hdr",
  "realistic_image/natural_light",
  "realistic_image/studio_portrait",
  "realistic_image/enterprise",
  "realistic_image/motion_blur",
  "realistic_image/evening_light",
  "realistic_image/faded_nostalgia",
  "realistic_image/forest_life",
  "realistic_image/mystic_naturalism",
  "realistic_image/natural_tones",
  "realistic_image/organic_calm",
  "realistic_image/real_life_glow",
  "realistic_image/retro_realism",
  "realistic_image/retro_snapshot",
  "realistic_image/urban_drama",
  "realistic_image/village_realism",
  "realistic_image/warm_folk",
  "digital_illustration/pixel_art",
  "digital_illustration/hand_drawn",
  "digital_illustration/grain",
  "digital_illustration/infantile_sketch",
  "digital_illustration/2d_art_poster",
  "digital_illustration/handmade_3d",
  "digital_illustration/hand_drawn_outline",
  "digital_illustration/engraving_color",
  "digital_illustration/2d_art_poster_2",
  "digital_illustration/antiquarian",
  "digital_illustration/bold_fantasy",
  "digital_illustration/child_book",
  "digital_illustration/child_books",
  "digital_illustration/cover",
  "digital_illustration/crosshatch",
  "digital_illustration/digital_engraving",
  "digital_illustration/expressionism",
  "digital_illustration/freehand_details",
  "digital_illustration/grain_20",
  "digital_illustration/graphic_intensity",
  "digital_illustration/hard_comics",
  "digital_illustration/long_shadow",
  "digital_illustration/modern_folk",
  "digital_illustration/multicolor",
  "digital_illustration/neon_calm",
  "digital_illustration/noir",
  "digital_illustration/nostalgic_pastel",
  "digital_illustration/outline_details",
  "digital_illustration/pastel_gradient",
  "digital_illustration/pastel_sketch",
  "digital_illustration/pop_art",
  "digital_illustration/pop_renaissance",
  "digital_illustration/street_art",
  "digital_illustration/tablet_sketch",
  "digital_illustration/urban_glow",
  "digital_illustration/urban_sketching",
  "digital_illustration/vanilla_dreams",
  "digital_illustration/young_adult_book",
  "digital_illustration/young_adult_book_2",
  "vector_illustration/bold_stroke",
  "vector_illustration/chemistry",
  "vector_illustration/colored_stencil",
  "vector_illustration/contour_pop_art",
  "vector_illustration/cosmics",
  "vector_illustration/cutout",
  "vector_illustration/depressive",
  "vector_illustration/editorial",
  "vector_illustration/emotional_flat",
  "vector_illustration/infographical",
  "vector_illustration/marker_outline",
  "vector_illustration/mosaic",
  "vector_illustration/naivector",
  "vector_illustration/roundish_flat",
  "vector_illustration/segmented_colors",
  "vector_illustration/sharp_contrast",
  "vector_illustration/thin",
  "vector_illustration/vector_photo",
  "vector_illustration/vivid_shapes",
  "vector_illustration/engraving",
  "vector_illustration/line_art",
  "vector_illustration/line_circuit",
  "vector_illustration/linocut",
];
const RECRAFT_VECTOR = Object.fromEntries(
  RECRAFT_STYLES.filter((s) => s.startsWith("vector_illustration")).map((s) => [s, 2]),
);

/**
 * The built-in catalog: the seed the operators' changes and added models are merged over (by id). A model is offered
 * only when at least one of its providers has a connection that can serve.
 *
 * Provider ids, input fields, choices and defaults are the providers' own, from the pages named with each model. A
 * model's `parameters` go to every one of its bindings, so a model on two providers declares only the settings both
 * take. Counts above one are made by the AI SDK as parallel calls of one image each, so no mapping names a count
 * field. Prices: 1 credit is about US$0.01; `cost` is what the provider charges per unit in US$.
 */
export const modelCatalog: CatalogModel<Binding>[] = [
  {
    id: "demo-image",
    name: "Atelier Demo Image",
    kind: "image",
    // The offline model serves every image tool, so a new instance shows them all.
    tools: ["text-to-image", "image-to-image", "inpaint", "outpaint", "upscale", "remove-background"],
    bindings: [{ provider: "demo", model: "demo-image" }],
    price: { unit: "image", credits: 1 },
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: true, seed: true, strength: true },
    expectedSeconds: 2,
    timeoutSeconds: 60,
    offline: true,
  },
  {
    id: "demo-video",
    name: "Atelier Demo Video",
    kind: "video",
    tools: ["text-to-video", "image-to-video"],
    bindings: [{ provider: "demo", model: "demo-video" }],
    price: { unit: "video", credits: 5 },
    options: {
      aspectRatios: VIDEO_ASPECT_RATIOS,
      maxCount: 1,
      durations: VIDEO_DURATIONS,
      styles: VIDEO_STYLES,
      negativePrompt: false,
      seed: true,
      strength: false,
    },
    expectedSeconds: 8,
    timeoutSeconds: 180,
    offline: true,
  },
  // OpenAI Images API, POST /v1/images/generations (platform.openai.com/docs/api-reference/images/create): quality
  // auto|low|medium|high, background auto|transparent|opaque, moderation auto|low. A 1024x1024 image costs about
  // $0.011 (low), $0.042 (medium) and $0.167 (high); "auto" is priced as medium.
  {
    id: "gpt-image-1",
    name: "GPT Image 1",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [{ provider: "openai", model: "gpt-image-1" }],
    price: { unit: "image", credits: 8, multipliers: { quality: { low: 0.25, high: 4 } } },
    cost: 0.042,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: false, strength: false },
    parameters: [
      {
        name: "quality",
        type: "string",
        label: "Quality",
        default: "auto",
        choices: ["auto", "low", "medium", "high"],
      },
      {
        name: "background",
        type: "string",
        label: "Background",
        description: "Transparent gives a PNG with an alpha channel.",
        default: "auto",
        choices: ["auto", "transparent", "opaque"],
      },
      { name: "moderation", type: "string", label: "Moderation", default: "auto", choices: ["auto", "low"] },
    ],
    expectedSeconds: 40,
    timeoutSeconds: 240,
  },
  // OpenAI Images API (platform.openai.com/docs/api-reference/images/create): dall-e-3 takes one image a request and
  // style vivid|natural; $0.04 a standard 1024x1024 image.
  {
    id: "dall-e-3",
    name: "DALL·E 3",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [{ provider: "openai", model: "dall-e-3" }],
    price: { unit: "image", credits: 6 },
    cost: 0.04,
    options: {
      aspectRatios: ["1:1", "16:9", "9:16"],
      maxCount: 1,
      negativePrompt: false,
      seed: false,
      strength: false,
    },
    parameters: [{ name: "style", type: "string", label: "Style", default: "vivid", choices: ["vivid", "natural"] }],
    expectedSeconds: 20,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/flux/schnell/api ($0.003 per megapixel). Replicate:
  // replicate.com/black-forest-labs/flux-schnell/api (num_inference_steps 1–4, default 4; $0.003 per image).
  {
    id: "flux-schnell",
    name: "FLUX.1 [schnell]",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/flux/schnell",
        mapping: { prompt: "prompt", seed: "seed", aspectRatio: { field: "image_size", values: FAL_IMAGE_SIZES } },
      },
      {
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        mapping: { prompt: "prompt", seed: "seed", aspectRatio: { field: "aspect_ratio" } },
      },
    ],
    price: { unit: "image", credits: 1 },
    cost: 0.003,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    parameters: [
      {
        name: "num_inference_steps",
        type: "integer",
        label: "Steps",
        description: "More steps, more detail; 4 is recommended.",
        default: 4,
        minimum: 1,
        maximum: 4,
      },
    ],
    expectedSeconds: 4,
    timeoutSeconds: 120,
  },
  // fal: fal.ai/models/fal-ai/flux/dev/api and fal.ai/models/fal-ai/flux/dev/image-to-image/api ($0.025 per
  // megapixel). Replicate: replicate.com/black-forest-labs/flux-dev/api (image-to-image through `image` and
  // `prompt_strength`). Steps: 1–50, default 28 on both.
  {
    id: "flux-dev",
    name: "FLUX.1 [dev]",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/flux/dev",
        imageToImageModel: "fal-ai/flux/dev/image-to-image",
        mapping: {
          prompt: "prompt",
          seed: "seed",
          aspectRatio: { field: "image_size", values: FAL_IMAGE_SIZES },
          inputImage: { field: "image_url" },
          strength: "strength",
        },
      },
      {
        provider: "replicate",
        model: "black-forest-labs/flux-dev",
        mapping: {
          prompt: "prompt",
          seed: "seed",
          aspectRatio: { field: "aspect_ratio" },
          inputImage: { field: "image" },
          strength: "prompt_strength",
        },
      },
    ],
    price: { unit: "image", credits: 3 },
    cost: 0.025,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: true },
    parameters: [
      { name: "num_inference_steps", type: "integer", label: "Steps", default: 28, minimum: 1, maximum: 50 },
    ],
    expectedSeconds: 10,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/flux-pro/v1.1/api ($0.04 per megapixel).
  {
    id: "flux-1-1-pro",
    name: "FLUX1.1 [pro]",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/flux-pro/v1.1",
        mapping: { prompt: "prompt", seed: "seed", aspectRatio: { field: "image_size", values: FAL_IMAGE_SIZES } },
      },
    ],
    price: { unit: "image", credits: 5 },
    cost: 0.04,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    parameters: [safetyTolerance("2"), enhancePrompt, jpegOrPng],
    expectedSeconds: 8,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/flux-pro/kontext/text-to-image/api and, to edit a picture as the prompt says,
  // fal.ai/models/fal-ai/flux-pro/kontext/api (its `image_url` is required; $0.04 per image).
  {
    id: "flux-kontext-pro",
    name: "FLUX.1 Kontext [pro]",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/flux-pro/kontext/text-to-image",
        imageToImageModel: "fal-ai/flux-pro/kontext",
        mapping: {
          prompt: "prompt",
          seed: "seed",
          aspectRatio: { field: "aspect_ratio" },
          inputImage: { field: "image_url" },
        },
      },
    ],
    price: { unit: "image", credits: 5 },
    cost: 0.04,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    parameters: [
      { name: "guidance_scale", type: "number", label: "Guidance", default: 3.5, minimum: 1, maximum: 20 },
      safetyTolerance("2"),
      enhancePrompt,
      jpegOrPng,
    ],
    expectedSeconds: 10,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/flux-2-pro/api (safety_tolerance "1"–"5"; priced by megapixel, from $0.03 an image).
  {
    id: "flux-2-pro",
    name: "FLUX.2 [pro]",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/flux-2-pro",
        mapping: { prompt: "prompt", seed: "seed", aspectRatio: { field: "image_size", values: FAL_IMAGE_SIZES } },
      },
    ],
    price: { unit: "image", credits: 4 },
    cost: 0.03,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    parameters: [
      {
        name: "safety_tolerance",
        type: "string",
        label: "Safety tolerance",
        description: "1 is the strictest, 5 the most permissive.",
        default: "2",
        choices: ["1", "2", "3", "4", "5"],
      },
      safetyChecker(true),
      jpegOrPng,
    ],
    expectedSeconds: 12,
    timeoutSeconds: 180,
  },
  // Replicate: replicate.com/black-forest-labs/flux-1.1-pro-ultra/api (aspect_ratio 21:9…9:21, safety_tolerance 1–6,
  // raw, output_format jpg|png; up to 4 megapixels; $0.06 an image).
  {
    id: "flux-1-1-pro-ultra",
    name: "FLUX1.1 [pro] ultra",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      {
        provider: "replicate",
        model: "black-forest-labs/flux-1.1-pro-ultra",
        mapping: { prompt: "prompt", seed: "seed", aspectRatio: { field: "aspect_ratio" } },
      },
    ],
    price: { unit: "image", credits: 8 },
    cost: 0.06,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    parameters: [
      {
        name: "raw",
        type: "boolean",
        label: "Raw",
        description: "Less processed, more natural-looking images.",
        default: false,
      },
      {
        name: "safety_tolerance",
        type: "integer",
        label: "Safety tolerance",
        description: "1 is the strictest, 6 the most permissive.",
        default: 2,
        minimum: 1,
        maximum: 6,
      },
      { name: "output_format", type: "string", label: "Output format", default: "jpg", choices: ["jpg", "png"] },
    ],
    expectedSeconds: 15,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/bytedance/seedream/v4/text-to-image/api ($0.03 per image; `image_size` between 960x960
  // and 4096x4096 pixels in all, so sent as width and height at about a megapixel).
  {
    id: "seedream-4",
    name: "Seedream 4.0",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/bytedance/seedream/v4/text-to-image",
        mapping: { prompt: "prompt", seed: "seed", aspectRatio: { field: "image_size", sizeObject: true } },
      },
    ],
    price: { unit: "image", credits: 4 },
    cost: 0.03,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    parameters: [
      safetyChecker(true),
      {
        name: "enhance_prompt_mode",
        type: "string",
        label: "Prompt enhancement",
        description: "Standard gives better results, fast takes less time.",
        default: "standard",
        choices: ["standard", "fast"],
      },
    ],
    expectedSeconds: 15,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/ideogram/v3/api (rendering_speed TURBO|BALANCED|QUALITY; about $0.03, $0.06 and $0.09
  // an image).
  {
    id: "ideogram-3",
    name: "Ideogram 3.0",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/ideogram/v3",
        mapping: {
          prompt: "prompt",
          negativePrompt: "negative_prompt",
          seed: "seed",
          aspectRatio: { field: "image_size", values: FAL_IMAGE_SIZES },
        },
      },
    ],
    price: { unit: "image", credits: 8, multipliers: { rendering_speed: { TURBO: 0.5, QUALITY: 1.5 } } },
    cost: 0.06,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: true, seed: true, strength: false },
    parameters: [
      {
        name: "rendering_speed",
        type: "string",
        label: "Rendering speed",
        default: "BALANCED",
        choices: ["TURBO", "BALANCED", "QUALITY"],
      },
      {
        name: "expand_prompt",
        type: "boolean",
        label: "Magic prompt",
        description: "Let Ideogram expand the prompt.",
        default: true,
      },
      { name: "style", type: "string", label: "Style", choices: ["AUTO", "GENERAL", "REALISTIC", "DESIGN"] },
    ],
    expectedSeconds: 15,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/recraft/v3/text-to-image/api (about $0.04 an image; "vector images cost 2X as much").
  {
    id: "recraft-3",
    name: "Recraft V3",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/recraft/v3/text-to-image",
        mapping: { prompt: "prompt", aspectRatio: { field: "image_size", values: FAL_IMAGE_SIZES } },
      },
    ],
    price: { unit: "image", credits: 5, multipliers: { style: RECRAFT_VECTOR } },
    cost: 0.04,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: false, strength: false },
    parameters: [
      { name: "style", type: "string", label: "Style", default: "realistic_image", choices: RECRAFT_STYLES },
      safetyChecker(false),
    ],
    expectedSeconds: 15,
    timeoutSeconds: 180,
  },
  // FLUX.1 Fill [pro], for a painted mask (white is repainted, black kept) and, on a larger canvas whose new area the
  // mask marks, for extending. fal: fal.ai/models/fal-ai/flux-pro/v1/fill/api (image_url and mask_url of the same
  // size; $0.05 per megapixel). Replicate: replicate.com/black-forest-labs/flux-fill-pro/api (image and mask; about
  // $0.05 an image). Their other settings differ in name or type (fal's safety_tolerance is a string, Replicate's an
  // integer), so none is declared.
  {
    id: "flux-fill-pro",
    name: "FLUX.1 Fill [pro]",
    kind: "image",
    tools: ["inpaint", "outpaint"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/flux-pro/v1/fill",
        mapping: { prompt: "prompt", seed: "seed", inputImage: { field: "image_url" }, mask: "mask_url" },
      },
      {
        provider: "replicate",
        model: "black-forest-labs/flux-fill-pro",
        mapping: { prompt: "prompt", seed: "seed", inputImage: { field: "image" }, mask: "mask" },
      },
    ],
    price: { unit: "image", credits: 6 },
    cost: 0.05,
    options: { aspectRatios: ["1:1"], maxCount: 4, negativePrompt: false, seed: true, strength: false },
    expectedSeconds: 15,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/clarity-upscaler/api (image_url, upscale_factor 1–4, default 2; an optional prompt
  // defaulting to "masterpiece, best quality, highres"; $0.03 per megapixel of the result). Estimated for a
  // 1024x1024 input: about $0.12 at ×2 and $0.48 at ×4.
  {
    id: "clarity-upscaler",
    name: "Clarity Upscaler",
    kind: "image",
    tools: ["upscale"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/clarity-upscaler",
        mapping: {
          prompt: "prompt",
          seed: "seed",
          inputImage: { field: "image_url" },
          scale: "upscale_factor",
        },
      },
    ],
    price: { unit: "image", credits: 14, multipliers: { scale: { "4": 4 } } },
    cost: 0.12,
    options: { aspectRatios: ["1:1"], maxCount: 1, negativePrompt: false, seed: true, strength: false },
    parameters: [
      {
        name: "creativity",
        type: "number",
        label: "Creativity",
        description: "How far the upscale may stray from the picture to add detail.",
        default: 0.35,
        minimum: 0,
        maximum: 1,
      },
    ],
    expectedSeconds: 30,
    timeoutSeconds: 240,
  },
  // Replicate: replicate.com/nightmareai/real-esrgan/api, a community model run by its version (image, scale 0–10,
  // default 4, face_enhance). Billed by GPU time: estimated at under $0.01 a run.
  {
    id: "real-esrgan",
    name: "Real-ESRGAN",
    kind: "image",
    tools: ["upscale"],
    bindings: [
      {
        provider: "replicate",
        model: "nightmareai/real-esrgan:f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa",
        mapping: { inputImage: { field: "image" }, scale: "scale" },
      },
    ],
    price: { unit: "image", credits: 1, multipliers: { scale: { "4": 2 } } },
    cost: 0.005,
    options: { aspectRatios: ["1:1"], maxCount: 1, negativePrompt: false, seed: false, strength: false },
    parameters: [
      {
        name: "face_enhance",
        type: "boolean",
        label: "Face enhancement",
        description: "Restore faces with GFPGAN while upscaling.",
        default: false,
      },
    ],
    expectedSeconds: 10,
    timeoutSeconds: 180,
  },
  // fal: fal.ai/models/fal-ai/birefnet/v2/api (image_url; a PNG with the background transparent). fal lists it by
  // compute time at a price too small to show; charged the least a request costs.
  {
    id: "birefnet",
    name: "BiRefNet background removal",
    kind: "image",
    tools: ["remove-background"],
    bindings: [{ provider: "fal", model: "fal-ai/birefnet/v2", mapping: { inputImage: { field: "image_url" } } }],
    price: { unit: "image", credits: 1 },
    options: { aspectRatios: ["1:1"], maxCount: 1, negativePrompt: false, seed: false, strength: false },
    parameters: [
      {
        name: "model",
        type: "string",
        label: "Model",
        description: "Light suits most pictures; Heavy is slower and more accurate; Portrait is made for people.",
        default: "General Use (Light)",
        choices: ["General Use (Light)", "General Use (Light 2K)", "General Use (Heavy)", "Matting", "Portrait"],
      },
      {
        name: "operating_resolution",
        type: "string",
        label: "Working resolution",
        default: "1024x1024",
        choices: ["1024x1024", "2048x2048"],
      },
    ],
    expectedSeconds: 8,
    timeoutSeconds: 120,
  },
  // Replicate: replicate.com/lucataco/remove-bg/api, a community model run by its version (image; a PNG with the
  // background transparent). Billed by GPU time: estimated at well under a cent a run.
  {
    id: "remove-bg",
    name: "Remove background",
    kind: "image",
    tools: ["remove-background"],
    bindings: [
      {
        provider: "replicate",
        model: "lucataco/remove-bg:95fcc2a26d3899cd6c2691c900465aaeff466285a65c14638cc5f36f34befaf1",
        mapping: { inputImage: { field: "image" } },
      },
    ],
    price: { unit: "image", credits: 1 },
    cost: 0.001,
    options: { aspectRatios: ["1:1"], maxCount: 1, negativePrompt: false, seed: false, strength: false },
    expectedSeconds: 8,
    timeoutSeconds: 120,
  },
  // fal: fal.ai/models/fal-ai/kling-video/v2.5-turbo/pro/text-to-video/api (duration "5"|"10", aspect_ratio
  // 16:9|9:16|1:1; about $0.07 a second) and, from a start image, its own endpoint
  // fal.ai/models/fal-ai/kling-video/v2.5-turbo/pro/image-to-video/api (image_url, an optional tail_image_url as the
  // last frame, no aspect ratio; $0.35 for 5 seconds and $0.07 for each one more). Replicate:
  // replicate.com/kwaivgi/kling-v2.5-turbo-pro/api (one model for both: start_image and end_image; duration 5|10 as
  // an integer). The fal-only cfg_scale is left out: settings go to both providers.
  {
    id: "kling-video",
    name: "Kling 2.5 Turbo",
    kind: "video",
    tools: ["text-to-video", "image-to-video"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
        mapping: {
          prompt: "prompt",
          negativePrompt: "negative_prompt",
          aspectRatio: { field: "aspect_ratio" },
          duration: { field: "duration", as: "string" },
        },
        toolModels: {
          "image-to-video": {
            model: "fal-ai/kling-video/v2.5-turbo/pro/image-to-video",
            mapping: {
              prompt: "prompt",
              negativePrompt: "negative_prompt",
              inputImage: { field: "image_url" },
              endImage: "tail_image_url",
              duration: { field: "duration", as: "string" },
            },
          },
        },
      },
      {
        provider: "replicate",
        model: "kwaivgi/kling-v2.5-turbo-pro",
        mapping: {
          prompt: "prompt",
          negativePrompt: "negative_prompt",
          aspectRatio: { field: "aspect_ratio" },
          duration: { field: "duration", as: "integer" },
          inputImage: { field: "start_image" },
          endImage: "end_image",
        },
      },
    ],
    price: { unit: "videoSecond", credits: 8 },
    cost: 0.07,
    options: {
      aspectRatios: VIDEO_ASPECT_RATIOS,
      maxCount: 1,
      durations: VIDEO_DURATIONS,
      styles: VIDEO_STYLES,
      negativePrompt: true,
      seed: false,
      strength: false,
    },
    expectedSeconds: 180,
    timeoutSeconds: 900,
  },
  // fal: fal.ai/models/fal-ai/kling-video/v2.6/pro/text-to-video/api (duration "5"|"10", aspect_ratio 16:9|9:16|1:1,
  // generate_audio on by default, cfg_scale 0.5). About $0.07 a second, twice that with sound.
  {
    id: "kling-2-6",
    name: "Kling 2.6 Pro",
    kind: "video",
    tools: ["text-to-video"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/kling-video/v2.6/pro/text-to-video",
        mapping: {
          prompt: "prompt",
          negativePrompt: "negative_prompt",
          aspectRatio: { field: "aspect_ratio" },
          duration: { field: "duration", as: "string" },
          audio: "generate_audio",
        },
      },
    ],
    price: { unit: "videoSecond", credits: 8, multipliers: { audio: { true: 2 } } },
    cost: 0.07,
    options: {
      aspectRatios: VIDEO_ASPECT_RATIOS,
      maxCount: 1,
      durations: VIDEO_DURATIONS,
      styles: VIDEO_STYLES,
      negativePrompt: true,
      seed: false,
      strength: false,
      audio: true,
    },
    parameters: [
      {
        name: "cfg_scale",
        type: "number",
        label: "Prompt adherence",
        description: "Higher follows the prompt more closely, lower leaves the model more freedom.",
        default: 0.5,
        minimum: 0,
        maximum: 1,
      },
    ],
    expectedSeconds: 180,
    timeoutSeconds: 900,
  },
  // fal: fal.ai/models/fal-ai/minimax/hailuo-2.3/standard/text-to-video/api: 768p clips of "6" or "10" seconds and
  // no aspect ratio (16:9); only the 10-second one is one of Atelier's lengths. About $0.56 a 10-second clip.
  {
    id: "hailuo-2-3",
    name: "Hailuo 2.3",
    kind: "video",
    tools: ["text-to-video"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/minimax/hailuo-2.3/standard/text-to-video",
        mapping: { prompt: "prompt", duration: { field: "duration", as: "string" } },
      },
    ],
    price: { unit: "video", credits: 70 },
    cost: 0.56,
    options: {
      aspectRatios: ["16:9"],
      maxCount: 1,
      durations: [10],
      styles: VIDEO_STYLES,
      negativePrompt: false,
      seed: false,
      strength: false,
    },
    parameters: [
      {
        name: "prompt_optimizer",
        type: "boolean",
        label: "Prompt optimizer",
        description: "Let the model rewrite the prompt.",
        default: true,
      },
    ],
    expectedSeconds: 240,
    timeoutSeconds: 900,
  },
  // fal: fal.ai/models/fal-ai/bytedance/seedance/v1.5/pro/text-to-video/api (resolution 480p|720p|1080p, duration
  // "4"–"12", generate_audio, camera_fixed). Priced per second at 720p with sound (about $0.05 a second), half that
  // without sound or at 480p, 2.25 times at 1080p.
  {
    id: "seedance-1-5-pro",
    name: "Seedance 1.5 Pro",
    kind: "video",
    tools: ["text-to-video"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/bytedance/seedance/v1.5/pro/text-to-video",
        options: { resolution: "720p" },
        mapping: {
          prompt: "prompt",
          seed: "seed",
          aspectRatio: { field: "aspect_ratio" },
          duration: { field: "duration", as: "string" },
          resolution: "resolution",
          audio: "generate_audio",
        },
      },
    ],
    price: {
      unit: "videoSecond",
      credits: 7,
      multipliers: { resolution: { "480p": 0.5, "1080p": 2.25 }, audio: { false: 0.5 } },
    },
    cost: 0.052,
    options: {
      aspectRatios: VIDEO_ASPECT_RATIOS,
      maxCount: 1,
      durations: VIDEO_DURATIONS,
      styles: VIDEO_STYLES,
      negativePrompt: false,
      seed: true,
      strength: false,
      resolutions: ["720p", "480p", "1080p"],
      audio: true,
    },
    parameters: [{ name: "camera_fixed", type: "boolean", label: "Fixed camera", default: false }, safetyChecker(true)],
    expectedSeconds: 120,
    timeoutSeconds: 900,
  },
  // fal: fal.ai/models/fal-ai/wan-25-preview/text-to-video/api (duration "5"|"10", resolution 480p|720p|1080p,
  // aspect_ratio 16:9|9:16|1:1, negative_prompt up to 500 characters). $0.05, $0.10 and $0.15 a second at 480p, 720p
  // and 1080p; sent at 720p unless another resolution is asked for (fal's own default is 1080p).
  {
    id: "wan-2-5",
    name: "Wan 2.5",
    kind: "video",
    tools: ["text-to-video"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/wan-25-preview/text-to-video",
        options: { resolution: "720p" },
        mapping: {
          prompt: "prompt",
          negativePrompt: "negative_prompt",
          seed: "seed",
          aspectRatio: { field: "aspect_ratio" },
          duration: { field: "duration", as: "string" },
          resolution: "resolution",
        },
      },
    ],
    price: { unit: "videoSecond", credits: 13, multipliers: { resolution: { "480p": 0.5, "1080p": 1.5 } } },
    cost: 0.1,
    options: {
      aspectRatios: VIDEO_ASPECT_RATIOS,
      maxCount: 1,
      durations: VIDEO_DURATIONS,
      styles: VIDEO_STYLES,
      negativePrompt: true,
      seed: true,
      strength: false,
      resolutions: ["720p", "480p", "1080p"],
    },
    parameters: [
      {
        name: "enable_prompt_expansion",
        type: "boolean",
        label: "Prompt expansion",
        description: "Let the model rewrite short prompts; takes longer.",
        default: true,
      },
      safetyChecker(true),
    ],
    expectedSeconds: 180,
    timeoutSeconds: 900,
  },
  // fal: fal.ai/models/fal-ai/luma-dream-machine/ray-2/api (duration "5s"|"9s", resolution 540p|720p|1080p: "720p
  // costs 2x more, 1080p costs 4x more"; aspect ratios without 1:1). About $0.50 a 5-second clip at 540p.
  {
    id: "luma-ray-2",
    name: "Luma Ray 2",
    kind: "video",
    tools: ["text-to-video"],
    bindings: [
      {
        provider: "fal",
        model: "fal-ai/luma-dream-machine/ray-2",
        mapping: {
          prompt: "prompt",
          aspectRatio: { field: "aspect_ratio" },
          duration: { field: "duration", as: "string", suffix: "s" },
          resolution: "resolution",
        },
      },
    ],
    price: { unit: "video", credits: 60, multipliers: { resolution: { "720p": 2, "1080p": 4 } } },
    cost: 0.5,
    options: {
      aspectRatios: ["16:9", "9:16"],
      maxCount: 1,
      durations: [5],
      styles: VIDEO_STYLES,
      negativePrompt: false,
      seed: false,
      strength: false,
      resolutions: ["540p", "720p", "1080p"],
    },
    parameters: [
      {
        name: "loop",
        type: "boolean",
        label: "Loop",
        description: "Blend the end of the video into its beginning.",
        default: false,
      },
    ],
    expectedSeconds: 120,
    timeoutSeconds: 900,
  },
  // Google's Gemini API, models/{id}:generateContent with generationConfig.imageConfig.aspectRatio and seed
  // (ai.google.dev/gemini-api/docs/image-generation); image output is billed as tokens (about $0.039 an image).
  {
    id: "nano-banana-2-1",
    name: "Nano Banana 2.1",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [{ provider: "google", model: "gemini-nano-banana-2.1" }],
    price: { unit: "image", credits: 3 },
    cost: 0.039,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    expectedSeconds: 12,
    timeoutSeconds: 180,
  },
  // Gemini 3 Pro Image on the Gemini API (ai.google.dev/gemini-api/docs/nanobanana): $0.134 an image at 1K or 2K.
  {
    id: "nano-banana-pro",
    name: "Nano Banana Pro",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [{ provider: "google", model: "gemini-3-pro-image" }],
    price: { unit: "image", credits: 8 },
    cost: 0.134,
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    expectedSeconds: 25,
    timeoutSeconds: 240,
  },
  // Veo on the Gemini API, models/{id}:predictLongRunning (ai.google.dev/gemini-api/docs/video): aspectRatio 16:9|9:16,
  // durationSeconds 4|6|8, negativePrompt, seed; billed per second of video.
  {
    id: "veo-3-1",
    name: "Veo 3.1",
    kind: "video",
    tools: ["text-to-video"],
    bindings: [{ provider: "google", model: "veo-3.1-generate" }],
    // Veo makes clips of 4, 6 or 8 seconds: a 5-second request gets 6 (see the Google provider), at one price.
    price: { unit: "video", credits: 120 },
    options: {
      aspectRatios: ["16:9", "9:16"],
      maxCount: 1,
      durations: [5],
      styles: VIDEO_STYLES,
      negativePrompt: true,
      seed: true,
      strength: false,
    },
    expectedSeconds: 120,
    timeoutSeconds: 900,
  },
];

/** Image models of the OpenAI-compatible server the environment names, one built-in model each. */
export function compatibleModels(imageModels: readonly string[]): CatalogModel<Binding>[] {
  return imageModels.map((model) => ({
    id: compatibleId(model),
    name: model,
    kind: "image" as const,
    tools: ["text-to-image" as const],
    bindings: [{ provider: "openai-compatible" as const, model }],
    price: { unit: "image" as const, credits: 2 },
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: false, strength: false },
    expectedSeconds: 20,
    timeoutSeconds: 180,
  }));
}

/** The catalog id of a model of the OpenAI-compatible server. */
export function compatibleId(model: string): string {
  return `compat-${model.replace(/[^\w.-]+/g, "-").toLowerCase()}`;
}

/** Credits a request costs: the model's price formula over what was asked (see `priceOf`). */
export { costOf };
