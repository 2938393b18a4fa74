import type { Env } from "#server/env.ts";
import type { Capability, ProviderDefinition } from "#server/providers/definition.ts";
import { anthropicProvider } from "#server/providers/anthropic/provider.ts";
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

/** What a connection's test found: its key and address work, or why not. */
export type ConnectionCheckOutcome =
  | { ok: true; detail?: string }
  | { ok: false; code: "unauthorized" | "unreachable" | "refused" | "invalid"; detail: string };

/** Tests a connection's settings with its provider, when the provider has a test. */
export async function checkConnection(id: string, settings: unknown): Promise<ConnectionCheckOutcome> {
  const definition = providerDefinition(id) as ProviderDefinition & {
    check?: (settings: unknown, signal: AbortSignal) => Promise<ConnectionCheckOutcome>;
  };
  if (!definition.check) return { ok: false, code: "invalid", detail: `${id} has no connection test` };
  return definition.check(settings, AbortSignal.timeout(15_000));
}
