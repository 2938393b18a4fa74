import type { Env } from "#server/env.ts";

export type ModelKind = "image" | "video";
export type Tool = "text-to-image" | "image-to-image" | "text-to-video";
export type Provider = "demo";

/** What one unit of a model's output costs, in credits. */
export interface ModelPrice {
  unit: "image" | "video" | "videoSecond";
  credits: number;
}

export interface CatalogModel {
  id: string;
  /** A product name, shown as is in every language. */
  name: string;
  kind: ModelKind;
  tools: Tool[];
  provider: Provider;
  price: ModelPrice;
  /** Seconds a job usually takes, until the model's own recent durations are known. */
  expectedSeconds: number;
}

/** The catalog; a model is offered only when its provider is configured. */
export const modelCatalog: CatalogModel[] = [
  {
    id: "demo-image",
    name: "Atelier Demo Image",
    kind: "image",
    tools: ["text-to-image", "image-to-image"],
    provider: "demo",
    price: { unit: "image", credits: 1 },
    expectedSeconds: 3,
  },
  {
    id: "demo-video",
    name: "Atelier Demo Video",
    kind: "video",
    tools: ["text-to-video"],
    provider: "demo",
    price: { unit: "video", credits: 5 },
    expectedSeconds: 12,
  },
];

/** The offline demo provider needs nothing, so there is always something to try. */
function providerConfigured(provider: Provider, _env: Env): boolean {
  return provider === "demo";
}

export function offeredModels(env: Env): CatalogModel[] {
  return modelCatalog.filter((m) => providerConfigured(m.provider, env));
}
