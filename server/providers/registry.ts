import type { Env } from "#server/env.ts";
import type { Capability, ConnectionCheck, ProviderDefinition } from "#server/providers/definition.ts";
import { anthropicProvider } from "#server/providers/anthropic/provider.ts";
import { comfyuiProvider } from "#server/providers/comfyui/provider.ts";
import { demoProvider } from "#server/providers/demo/provider.ts";
import { falProvider } from "#server/providers/fal/provider.ts";
import { googleProvider } from "#server/providers/google/provider.ts";
import { openaiCompatibleProvider } from "#server/providers/openai-compatible/provider.ts";
import { openaiProvider } from "#server/providers/openai/provider.ts";
import { replicateProvider } from "#server/providers/replicate/provider.ts";

/** Every provider Atelier speaks to, one line each. */
export const providers = [
  demoProvider,
  openaiProvider,
  replicateProvider,
  falProvider,
  openaiCompatibleProvider,
  anthropicProvider,
  googleProvider,
  comfyuiProvider,
] as const;

type Registered = (typeof providers)[number];

/** A registered provider's id. */
export type ProviderId = Registered["id"];

/** The ids of the providers with a capability (the image and video catalog names these, the chat catalog those). */
export type ProviderWith<C extends Capability> = Registered extends infer P
  ? P extends { id: infer Id; capabilities: readonly (infer Has)[] }
    ? C extends Has
      ? Id
      : never
    : never
  : never;

const byId = new Map<string, ProviderDefinition>(providers.map((p) => [p.id, p as unknown as ProviderDefinition]));

export function isProviderId(id: string): id is ProviderId {
  return byId.has(id);
}

/** A provider's definition. */
export function providerDefinition(id: string): ProviderDefinition {
  const definition = byId.get(id);
  if (!definition) throw new Error(`Unknown provider ${id}`);
  return definition;
}

/** The built-in connection of a provider: its settings as the environment gives them. */
export function builtInConnection(id: string, env: Env): unknown {
  return providerDefinition(id).builtInConnection(env);
}

/** Whether a provider's built-in connection is configured (for a capability: chat may need more than a key). */
export function providerConfigured(id: string, env: Env, capability?: Capability): boolean {
  const definition = providerDefinition(id);
  return definition.configured(definition.builtInConnection(env), capability);
}

/**
 * The settings a provider's models are made with: its built-in connection, which must be configured unless the
 * provider runs on this machine.
 */
export function connectionFor(id: string, env: Env): { definition: ProviderDefinition; settings: unknown } {
  const definition = providerDefinition(id);
  const settings = definition.builtInConnection(env);
  if (!definition.local && !definition.configured(settings)) throw new Error(`Provider ${id} is not configured`);
  return { definition, settings };
}

/**
 * Tries a connection's settings with its provider's check. Settings the provider's schema refuses, and a provider
 * without a check, are `invalid` without a request; the schema's complaint names fields, never their values.
 */
export async function checkConnection(
  providerId: string,
  settings: unknown,
  signal: AbortSignal = new AbortController().signal,
): Promise<ConnectionCheck> {
  const definition = byId.get(providerId);
  if (!definition) return { ok: false, code: "invalid", detail: `there is no provider ${providerId}` };
  if (!definition.check) return { ok: false, code: "invalid", detail: `${providerId} connections cannot be checked` };
  const parsed = definition.connectionSchema.safeParse(settings);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "settings"))];
    return { ok: false, code: "invalid", detail: `settings not valid for ${providerId}: ${fields.join(", ")}` };
  }
  return definition.check(parsed.data, signal);
}
