import type { Env } from "#server/env.ts";
import { providerConfigured as connectionConfigured, type ProviderWith } from "#server/providers/registry.ts";
import {
  priceOf,
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

/** What one unit of a model's output costs, in credits. */
/** One way to run a model: a provider and its id for the model, per tool when the provider splits them. */
export interface Binding {
  provider: Provider;
  model: string;
  /** The provider's id for image-to-image, when it differs. */
  imageToImageModel?: string;
}

export interface CatalogModel {
  id: string;
  /** A product name, shown as is in every language. */
  name: string;
  kind: ModelKind;
  tools: Tool[];
  /** Tried in this order: a provider-side failure moves on to the next configured one. */
  bindings: Binding[];
  price: ModelPrice;
  options: ModelOptions;
  /** Seconds a job usually takes, until the model's own recent durations are known. */
  expectedSeconds: number;
  /** A run taking longer is stopped, failed and refunded. */
  timeoutSeconds: number;
  /** Runs on this machine with no key and no network; labelled "Offline demo". */
  offline?: boolean;
}

const IMAGE_RATIOS = IMAGE_ASPECT_RATIOS;

/** The catalog; a model is offered only when at least one of its providers is configured. */
export const modelCatalog: CatalogModel[] = [
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

/** Whether a provider's connection is configured, as its definition in the provider registry reads it. */
export function providerConfigured(provider: Provider, env: Env): boolean {
  return connectionConfigured(provider, env);
}

/** Image models of an OpenAI-compatible server, one catalog entry each. */
function compatibleModels(env: Env): CatalogModel[] {
  return env.OPENAI_COMPATIBLE_IMAGE_MODELS.map((model) => ({
    id: `compat-${model.replace(/[^\w.-]+/g, "-").toLowerCase()}`,
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

/** What the admin console changed of a model: switched off, or another price per unit (over the configuration's). */
export interface ModelOverride {
  enabled: boolean;
  credits?: number;
  /** What the provider charges per unit, in the currency of the credit packs (for the margin; never billed). */
  cost?: number;
}
export type ModelOverrides = Record<string, ModelOverride>;

/** Every model this deployment knows: the catalog and the OpenAI-compatible server's models. */
export function knownModels(env: Env): CatalogModel[] {
  return [...modelCatalog, ...compatibleModels(env)];
}

/** How long a run of the model may take: the configuration's (`MODEL_SETTINGS`) over the catalog's. */
export function timeoutSecondsOf(model: CatalogModel, env: Env): number {
  return env.MODEL_SETTINGS[model.id]?.timeoutSeconds ?? model.timeoutSeconds;
}

/**
 * The models this deployment offers: those with at least one configured provider (only those bindings kept),
 * minus the ones the operator disabled (in the configuration or the console), with the operator's prices (the
 * console's over the configuration's) and timeouts.
 */
export function offeredModels(env: Env, overrides: ModelOverrides = {}): CatalogModel[] {
  const disabled = new Set(env.DISABLED_MODELS);
  return knownModels(env)
    .filter((m) => !disabled.has(m.id) && overrides[m.id]?.enabled !== false)
    .map((m) => {
      const own = env.MODEL_SETTINGS[m.id] ?? {};
      return {
        ...m,
        price: { ...m.price, credits: overrides[m.id]?.credits ?? own.credits ?? m.price.credits },
        timeoutSeconds: timeoutSecondsOf(m, env),
        expectedSeconds: own.expectedSeconds ?? m.expectedSeconds,
        bindings: m.bindings.filter((b) => providerConfigured(b.provider, env)),
      };
    })
    .filter((m) => m.bindings.length > 0);
}

export function findOfferedModel(env: Env, id: string, overrides: ModelOverrides = {}): CatalogModel | undefined {
  return offeredModels(env, overrides).find((m) => m.id === id);
}

/** Credits a request costs: per image times the count, per video, or per second of video. */
export function costOf(model: CatalogModel, params: Pick<GenerationParams, "count" | "duration">): number {
  return priceOf(model.price, params);
}
