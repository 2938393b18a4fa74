import type { Env } from "#server/env.ts";
import { offeredModels, type ModelOverrides } from "#config/models.ts";

/** The models this deployment offers, as the pages and the public API show them (no provider details). */
export function listModels(env: Env, overrides?: ModelOverrides) {
  return offeredModels(env, overrides).map((m) => ({
    id: m.id,
    name: m.name,
    kind: m.kind,
    tools: m.tools,
    price: m.price,
    options: m.options,
    offline: Boolean(m.offline),
    expectedSeconds: m.expectedSeconds,
  }));
}
