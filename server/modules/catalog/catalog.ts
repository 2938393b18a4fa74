import type { Env } from "#server/env.ts";
import type { Capability, ProviderDefinition } from "#server/providers/definition.ts";
import { isProviderId, providerDefinition, providers } from "#server/providers/registry.ts";
import {
  compatibleModels,
  modelCatalog,
  type Binding,
  type CatalogModel,
  type ResolvedBinding,
} from "#config/models.ts";
import { chatCatalog, compatibleChatModels, type ChatBinding, type ChatModel } from "#config/chat-models.ts";
import { modelDefinitionSchema, type ModelDefinition } from "./model-definition.ts";

/** Where a model or a connection comes from: the code (and the environment), or an operator. */
export type CatalogSource = "builtin" | "custom";

/** A provider connection with its settings, secrets included (never leaves the server). */
export interface Connection {
  id: string;
  name: string;
  provider: string;
  source: CatalogSource;
  enabled: boolean;
  /** Its settings, secrets opened; null when they cannot be opened (a key this process does not have). */
  settings: Record<string, unknown> | null;
  /** The last four characters of each secret. */
  secretHints: Record<string, string>;
  /** Its base URL may be plain http or on a private network (allowed explicitly; the environment's always are). */
  allowPrivateNetwork?: boolean;
  /** Why it cannot serve: its secrets unreadable, or its settings incomplete or invalid. */
  problem?: "unreadable" | "unconfigured";
  check?: { at: string; ok: boolean; message: string | null };
}

/** A connection row as the database keeps it, secrets opened (see connections.ts). */
export interface ConnectionRow {
  id: string;
  name: string;
  provider: string;
  enabled: boolean;
  position: number;
  settings: Record<string, unknown> | null;
  secretHints: Record<string, string>;
  allowPrivateNetwork?: boolean;
  check?: Connection["check"];
}

/** Why a model is offered or not. */
export type ModelState = "on" | "off" | "configOff" | "noProvider";

/** Every model of the catalog with where it comes from and whether it is offered. */
export interface CatalogEntry {
  id: string;
  source: CatalogSource;
  /** The whole definition: the built-in one with the operators' changes, or the one they added. */
  definition: ModelDefinition;
  /** The fields an operator changed of a built-in model (empty for an added one, whose row is the whole of it). */
  changed: string[];
  state: ModelState;
  /** Its bindings as they run now: one per connection that can serve, in failover order. */
  resolved: ResolvedBinding[] | ChatBinding[];
}

export interface CatalogInputs {
  env: Env;
  connections: ConnectionRow[];
  /** Model rows: a patch of a built-in model, or a whole added model. */
  models: { id: string; definition: Record<string, unknown> }[];
  onInvalid?: (id: string, problem: string) => void;
}

export interface Catalog {
  connections: Connection[];
  entries: CatalogEntry[];
  /** Offered image and video models, in order. */
  media: CatalogModel[];
  /** Offered chat models, in order. */
  chat: ChatModel[];
  /** Offered models of either list visible to administrators only. */
  adminOnly: Set<string>;
}

/** The built-in models as definitions: the code's catalog and the environment's OpenAI-compatible models. */
export function builtInDefinitions(env: Env): Map<string, ModelDefinition> {
  const out = new Map<string, ModelDefinition>();
  for (const m of [...modelCatalog, ...compatibleModels(env.OPENAI_COMPATIBLE_IMAGE_MODELS)]) {
    const { id, bindings, offline: _offline, ...rest } = m;
    const own = env.MODEL_SETTINGS[id] ?? {};
    out.set(
      id,
      modelDefinitionSchema.parse({
        ...rest,
        price: { ...m.price, credits: own.credits ?? m.price.credits },
        expectedSeconds: own.expectedSeconds ?? m.expectedSeconds,
        timeoutSeconds: own.timeoutSeconds ?? m.timeoutSeconds,
        options: { ...m.options, aspectRatios: [...m.options.aspectRatios] } as never,
        bindings: bindings.map(plainBinding),
        enabled: true,
        visibility: "everyone",
      }),
    );
  }
  for (const m of [...chatCatalog, ...compatibleChatModels(env.OPENAI_COMPATIBLE_CHAT_MODELS)]) {
    const { id, bindings, offline: _offline, ...rest } = m;
    out.set(
      id,
      modelDefinitionSchema.parse({
        ...rest,
        bindings: bindings.map(plainBinding),
        enabled: true,
        visibility: "everyone",
      }),
    );
  }
  return out;
}

const plainBinding = (b: Binding | ChatBinding) =>
  Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)) as ModelDefinition["bindings"][number];

/** A built-in model with a row's changes: its fields replace the built-in's whole, a null removes one; the kind stays. */
export function mergeRow(builtIn: ModelDefinition, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...builtIn };
  for (const [key, value] of Object.entries(row)) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  out.kind = builtIn.kind;
  return out;
}

/** The ids of the models that run on this machine (labelled "Offline demo"). */
const OFFLINE = new Set([...modelCatalog, ...chatCatalog].filter((m) => m.offline).map((m) => m.id));

/** The provider ids: a connection an operator adds cannot take one (they name the built-in ones). */
export const BUILT_IN_CONNECTION_IDS: readonly string[] = providers.map((p) => p.id);

/**
 * The connections: the environment's (one per provider, its id the provider's, configured or not; the local ones
 * always) first, then the operators', in failover order.
 */
export function connectionsOf(env: Env, rows: ConnectionRow[]): Connection[] {
  const builtIn: Connection[] = providers.map((p) => {
    const definition = p as unknown as ProviderDefinition;
    const settings = definition.builtInConnection(env) as Record<string, unknown>;
    return {
      id: p.id,
      name: p.id,
      provider: p.id,
      source: "builtin",
      enabled: true,
      settings,
      secretHints: hintsOf(definition, settings),
      problem: definition.configured(settings) ? undefined : "unconfigured",
    };
  });
  const added = [...rows]
    .sort((a, b) => a.position - b.position || a.id.localeCompare(b.id))
    .map((row): Connection => {
      const definition = isProviderId(row.provider) ? providerDefinition(row.provider) : undefined;
      const parsed = row.settings && definition ? definition.connectionSchema.safeParse(row.settings) : undefined;
      return {
        id: row.id,
        name: row.name,
        provider: row.provider,
        source: "custom",
        enabled: row.enabled,
        settings: parsed?.success ? (parsed.data as Record<string, unknown>) : row.settings,
        secretHints: row.secretHints,
        allowPrivateNetwork: row.allowPrivateNetwork ?? false,
        problem: !row.settings
          ? "unreadable"
          : !parsed?.success || !definition!.configured(parsed.data)
            ? "unconfigured"
            : undefined,
        check: row.check,
      };
    });
  return [...builtIn, ...added];
}

/** The last four characters of each secret setting (what pages and the command line show of a key). */
export function hintsOf(definition: ProviderDefinition, settings: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of definition.secrets) {
    const value = settings[name];
    if (typeof value === "string" && value) out[name] = value.length > 8 ? value.slice(-4) : "";
    // A map of secrets (a header per server): a hint for each, named by the secret and its key.
    else if (typeof value === "object" && value !== null && !Array.isArray(value))
      for (const [key, secret] of Object.entries(value))
        if (typeof secret === "string" && secret) out[`${name} ${key}`] = secret.length > 8 ? secret.slice(-4) : "";
  }
  return out;
}

/** Whether a connection can serve a capability now: enabled, readable, and configured for it. */
export function canServe(connection: Connection, capability: Capability): boolean {
  if (!connection.enabled || connection.problem || !connection.settings) return false;
  const definition = providerDefinition(connection.provider);
  if (!definition.capabilities.includes(capability)) return false;
  return definition.configured(connection.settings, capability);
}

/** A model binding on each connection that can serve it, in order (one connection when the binding names it). */
function resolve<B extends Binding | ChatBinding>(
  bindings: readonly B[],
  connections: Connection[],
  capability: Capability,
): (B & { connection: string })[] {
  const out: (B & { connection: string })[] = [];
  for (const b of bindings) {
    for (const c of connections) {
      if (c.provider !== b.provider || (b.connection !== undefined && c.id !== b.connection)) continue;
      if (canServe(c, capability)) out.push({ ...b, connection: c.id });
    }
  }
  return out;
}

/** Merges the operators' rows over the built-ins by id and resolves every model's bindings on the connections. */
export function buildCatalog({ env, connections: rows, models, onInvalid }: CatalogInputs): Catalog {
  const connections = connectionsOf(env, rows);
  const builtIns = builtInDefinitions(env);
  const rowsById = new Map(models.map((r) => [r.id, r.definition]));
  const disabledByConfig = new Set(env.DISABLED_MODELS);
  const entries: CatalogEntry[] = [];
  const ids = [...builtIns.keys(), ...models.map((r) => r.id).filter((id) => !builtIns.has(id))];
  for (const id of ids) {
    const builtIn = builtIns.get(id);
    const row = rowsById.get(id);
    let definition: ModelDefinition | undefined = builtIn;
    if (row) {
      const merged = modelDefinitionSchema.safeParse(builtIn ? mergeRow(builtIn, row) : row);
      if (merged.success) definition = merged.data;
      else onInvalid?.(id, merged.error.issues[0]?.message ?? "invalid");
    }
    if (!definition) continue;
    const capability: Capability = definition.kind;
    const resolved = resolve(definition.bindings as (Binding | ChatBinding)[], connections, capability);
    const state: ModelState = disabledByConfig.has(id)
      ? "configOff"
      : !definition.enabled
        ? "off"
        : resolved.length > 0
          ? "on"
          : "noProvider";
    entries.push({
      id,
      source: builtIn ? "builtin" : "custom",
      definition,
      changed: builtIn && row ? Object.keys(row) : [],
      state,
      resolved: resolved as ResolvedBinding[],
    });
  }
  // Ordered ones first by position, the rest in the catalog's order.
  const order = entries.map((e, index) => ({ e, index }));
  order.sort(
    (a, b) =>
      (a.e.definition.position ?? Number.MAX_SAFE_INTEGER) - (b.e.definition.position ?? Number.MAX_SAFE_INTEGER) ||
      a.index - b.index,
  );
  const sorted = order.map((o) => o.e);
  const media: CatalogModel[] = [];
  const chat: ChatModel[] = [];
  const adminOnly = new Set<string>();
  for (const e of sorted) {
    if (e.state !== "on") continue;
    if (e.definition.visibility === "admins") adminOnly.add(e.id);
    if (e.definition.kind === "chat") chat.push(chatModelOf(e));
    else media.push(mediaModelOf(e));
  }
  return { connections, entries: sorted, media, chat, adminOnly };
}

function presentationOf(e: CatalogEntry) {
  const d = e.definition;
  return {
    id: e.id,
    name: d.name,
    ...(d.names ? { names: d.names } : {}),
    ...(d.description ? { description: d.description } : {}),
    ...(d.tags ? { tags: d.tags } : {}),
    ...(d.cover ? { cover: d.cover } : {}),
    ...(OFFLINE.has(e.id) ? { offline: true } : {}),
    ...(d.safety ? { safety: d.safety } : {}),
  };
}

/** An image or video model of the catalog as generation runs it (its bindings resolved on the connections). */
export function mediaModelOf(e: CatalogEntry): CatalogModel {
  const d = e.definition;
  if (d.kind === "chat") throw new Error(`${e.id} is a chat model`);
  return {
    ...presentationOf(e),
    kind: d.kind,
    tools: d.tools,
    bindings: e.resolved as ResolvedBinding[],
    price: d.price,
    ...(d.cost === undefined ? {} : { cost: d.cost }),
    options: d.options,
    ...(d.parameters?.length ? { parameters: d.parameters } : {}),
    expectedSeconds: d.expectedSeconds,
    timeoutSeconds: d.timeoutSeconds,
  };
}

/** A chat model of the catalog as the chat runs it. */
export function chatModelOf(e: CatalogEntry): ChatModel {
  const d = e.definition;
  if (d.kind !== "chat") throw new Error(`${e.id} is not a chat model`);
  return {
    ...presentationOf(e),
    kind: "chat",
    bindings: e.resolved as ChatModel["bindings"],
    price: d.price,
    contextTokens: d.contextTokens,
    maxOutputTokens: d.maxOutputTokens,
    vision: d.vision,
    tools: d.tools,
  };
}
