import { displayName } from "#config/models.ts";
import type { Viewer, ModelRegistry } from "#server/modules/catalog/model-registry.ts";

/** The models this deployment offers, as the pages and the public API show them (no provider details). */
export function listModels(models: Pick<ModelRegistry, "media">, viewer: Viewer = {}, locale?: string) {
  return models.media(viewer).map((m) => ({
    id: m.id,
    name: locale ? displayName(m, locale) : m.name,
    kind: m.kind,
    tools: m.tools,
    price: m.price,
    options: m.options,
    ...(m.parameters?.length ? { parameters: m.parameters } : {}),
    offline: Boolean(m.offline),
    expectedSeconds: m.expectedSeconds,
  }));
}
