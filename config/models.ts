import type { ProviderWith } from "#server/providers/registry.ts";
import type { Locale } from "#common/locales.ts";
import type { ParameterField } from "#common/model-parameters.ts";
import type { InputMapping } from "#common/input-mapping.ts";
import {
  costOf as formulaCost,
  type ModelOptions,
  type ModelPrice,
  IMAGE_ASPECT_RATIOS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DURATIONS,
  VIDEO_STYLES,
  type GenerationKind,
  type GenerationParams,
  type GenerationTool,
} from "#common/generation.ts";

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
  /** The provider's id for image-to-image, when it differs. */
  imageToImageModel?: string;
  /** One connection only (its id). */
  connection?: string;
  /** Fixed inputs sent with every request, in the provider's own names. */
  options?: Record<string, unknown>;
  /** Where each of Atelier's common parameters goes in the provider's input (read from its schema). */
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
 * The built-in catalog: the seed the operators' changes and added models are merged over (by id). A model is offered
 * only when at least one of its providers has a connection that can serve.
 */
export const modelCatalog: CatalogModel<Binding>[] = [
  {
    id: "demo-image",
    name: "Atelier Demo Image",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
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
    tools: ["text-to-video"],
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
  {
    id: "gpt-image-1",
    name: "GPT Image 1",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [{ provider: "openai", model: "gpt-image-1" }],
    price: { unit: "image", credits: 8 },
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: false, strength: false },
    expectedSeconds: 40,
    timeoutSeconds: 240,
  },
  {
    id: "dall-e-3",
    name: "DALL·E 3",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [{ provider: "openai", model: "dall-e-3" }],
    price: { unit: "image", credits: 6 },
    options: {
      aspectRatios: ["1:1", "16:9", "9:16"],
      maxCount: 1,
      negativePrompt: false,
      seed: false,
      strength: false,
    },
    expectedSeconds: 20,
    timeoutSeconds: 180,
  },
  {
    id: "flux-schnell",
    name: "FLUX.1 [schnell]",
    kind: "image",
    tools: ["text-to-image"],
    bindings: [
      { provider: "fal", model: "fal-ai/flux/schnell" },
      { provider: "replicate", model: "black-forest-labs/flux-schnell" },
    ],
    price: { unit: "image", credits: 1 },
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    expectedSeconds: 4,
    timeoutSeconds: 120,
  },
  {
    id: "flux-dev",
    name: "FLUX.1 [dev]",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [
      { provider: "fal", model: "fal-ai/flux/dev", imageToImageModel: "fal-ai/flux/dev/image-to-image" },
      { provider: "replicate", model: "black-forest-labs/flux-dev" },
    ],
    price: { unit: "image", credits: 3 },
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: true },
    expectedSeconds: 10,
    timeoutSeconds: 180,
  },
  {
    id: "kling-video",
    name: "Kling 2.5 Turbo",
    kind: "video",
    tools: ["text-to-video"],
    bindings: [
      { provider: "fal", model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video" },
      { provider: "replicate", model: "kwaivgi/kling-v2.5-turbo-pro" },
    ],
    price: { unit: "videoSecond", credits: 6 },
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
  {
    id: "nano-banana-2-1",
    name: "Nano Banana 2.1",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [{ provider: "google", model: "gemini-nano-banana-2.1" }],
    price: { unit: "image", credits: 3 },
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    expectedSeconds: 12,
    timeoutSeconds: 180,
  },
  {
    id: "nano-banana-pro",
    name: "Nano Banana Pro",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    bindings: [{ provider: "google", model: "gemini-3-pro-image" }],
    price: { unit: "image", credits: 8 },
    options: { aspectRatios: IMAGE_RATIOS, maxCount: 4, negativePrompt: false, seed: true, strength: false },
    expectedSeconds: 25,
    timeoutSeconds: 240,
  },
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
export function costOf(
  model: Pick<CatalogModel, "price" | "parameters">,
  params: Pick<GenerationParams, "count" | "duration" | "resolution" | "audio" | "aspectRatio" | "options">,
): number {
  return formulaCost(model, params);
}
