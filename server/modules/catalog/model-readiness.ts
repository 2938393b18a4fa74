import type { ModelDefinition } from "#server/modules/catalog/model-definition.ts";
import type { ConnectionSource } from "#server/providers/index.ts";
import { connectionOf } from "#server/providers/index.ts";
import { isProviderId, providerDefinition } from "#server/providers/registry.ts";

/** How long the servers are asked before a model is switched on. */
const READY_TIMEOUT_MS = 20_000;

/**
 * What stands in the way of offering a model, as its providers see it before it is switched on: for a workflow on a
 * pool of the operator's servers, each server that lacks one of its node types or model files, named. Empty when
 * nothing does (or its providers have nothing to check).
 */
export async function modelProblems(
  connections: ConnectionSource,
  definition: ModelDefinition,
  signal: AbortSignal = AbortSignal.timeout(READY_TIMEOUT_MS),
): Promise<string[]> {
  if (definition.kind === "chat") return [];
  const problems: string[] = [];
  for (const binding of definition.bindings) {
    if (!isProviderId(binding.provider)) continue;
    const check = providerDefinition(binding.provider).ready;
    if (!check || !binding.connection) continue;
    let found;
    try {
      found = await connectionOf(connections, { connection: binding.connection });
    } catch {
      problems.push(`the connection ${binding.connection} cannot serve`);
      continue;
    }
    problems.push(...(await check(found.settings, binding, signal)));
  }
  return problems;
}
