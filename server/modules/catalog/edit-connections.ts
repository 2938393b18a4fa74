import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { providerConnection } from "#server/db/schema/index.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import type { ProviderDefinition } from "#server/providers/definition.ts";
import { isProviderId, providerDefinition } from "#server/providers/registry.ts";
import { BUILT_IN_CONNECTION_IDS, hintsOf } from "./catalog.ts";
import { CatalogRefusal } from "./edit-models.ts";
import { CATALOG_ID } from "./model-definition.ts";
import type { SecretBox } from "./secret-box.ts";
import { checkOutboundUrlStatically, OutboundError, resolveOutbound } from "#server/net/outbound.ts";

/** A connection as an operator gives it: the provider's settings, secrets included (a blank secret keeps the old). */
export interface ConnectionInput {
  name?: string;
  settings?: Record<string, unknown>;
  enabled?: boolean;
  position?: number;
  /** Its base URL may be plain http or on a private network (said explicitly; refused otherwise). */
  allowPrivateNetwork?: boolean;
}

/**
 * A connection's base URL must be https on public addresses, as any URL the server is given, unless the operator
 * said it is on their own network. Checked with a DNS lookup when it is saved.
 */
async function checkBaseUrl(
  definition: ProviderDefinition,
  settings: Record<string, unknown>,
  allowPrivate: boolean,
): Promise<void> {
  const addresses = definition.addresses
    ? definition.addresses(settings).map((url, i) => ({ url, field: `servers.${i}.url` }))
    : typeof settings.baseURL === "string"
      ? [{ url: settings.baseURL, field: "baseURL" }]
      : [];
  const allowed = allowPrivate || Boolean(definition.ownNetwork);
  const policy = allowed ? { allowHttp: true, allowAddress: () => true } : {};
  for (const { url: raw, field } of addresses) {
    try {
      const url = checkOutboundUrlStatically(raw, policy);
      if (!allowed) await resolveOutbound(url, policy, AbortSignal.timeout(10_000));
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      throw new CatalogRefusal(
        "invalid",
        error.refused
          ? `${field}: ${error.message}; a server on your own network (or on plain http) must be allowed explicitly`
          : `${field}: ${error.message}`,
        field,
      );
    }
  }
}

/** The settings checked against the provider's schema, split into the plain ones and the secrets. */
function splitSettings(provider: string, settings: Record<string, unknown>) {
  const definition = providerDefinition(provider);
  const shape = (definition.connectionSchema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  for (const key of Object.keys(settings))
    if (!(key in shape))
      throw new CatalogRefusal(
        "invalid",
        `${provider} connections have no setting ${key} (they take ${Object.keys(shape).join(", ") || "none"}).`,
        key,
      );
  const parsed = definition.connectionSchema.safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".");
    throw new CatalogRefusal("invalid", `${field || "settings"}: ${issue.message}`, field || undefined);
  }
  const values = parsed.data as Record<string, unknown>;
  const secrets: Record<string, unknown> = {};
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if ((definition.secrets as readonly string[]).includes(key)) secrets[key] = value;
    else plain[key] = value;
  }
  return { definition, plain, secrets, values };
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A new connection's id: the one given, or the provider's id and the next free number. */
async function newId(db: Db, provider: string, wanted: string | undefined): Promise<string> {
  if (wanted !== undefined) {
    if (!CATALOG_ID.test(wanted))
      throw new CatalogRefusal(
        "invalid",
        `${wanted} is not a connection id: lower-case letters, digits, dots, dashes and underscores.`,
        "id",
      );
    if (BUILT_IN_CONNECTION_IDS.includes(wanted))
      throw new CatalogRefusal(
        "exists",
        `${wanted} is the id of the environment's ${wanted} connection; choose another.`,
        "id",
      );
    return wanted;
  }
  const taken = new Set((await db.select({ id: providerConnection.id }).from(providerConnection)).map((r) => r.id));
  for (let n = 2; ; n++) if (!taken.has(`${provider}-${n}`)) return `${provider}-${n}`;
}

/**
 * Adds a provider connection: its settings checked by the provider's schema, its secrets sealed (the database never
 * holds them in plain text), after the provider's other connections in failover order; logged in the audit log.
 */
export async function addConnection({
  db,
  box,
  provider,
  id: wanted,
  input,
  actor,
}: {
  db: Db;
  box: SecretBox;
  provider: string;
  id?: string;
  input: ConnectionInput;
  actor: AdminActor;
}): Promise<{ id: string; name: string }> {
  if (!isProviderId(provider)) throw new CatalogRefusal("unknown", `No provider ${provider}.`, "provider");
  const { definition, plain, secrets, values } = splitSettings(provider, input.settings ?? {});
  if (!definition.configured(values))
    throw new CatalogRefusal(
      "invalid",
      `A ${provider} connection needs ${definition.secrets.join(" and ") || "more settings"}.`,
      definition.secrets[0],
    );
  await checkBaseUrl(definition, values, input.allowPrivateNetwork ?? false);
  const id = await newId(db, provider, wanted);
  const name = input.name?.trim() || id;
  return db.transaction(async (tx) => {
    const [last] = await tx
      .select({ position: sql<number>`coalesce(max(${providerConnection.position}), 0)::int` })
      .from(providerConnection);
    const inserted = await tx
      .insert(providerConnection)
      .values({
        id,
        name,
        provider,
        settings: plain,
        sealedSecrets: Object.keys(secrets).length > 0 ? box.seal(JSON.stringify(secrets)) : null,
        secretHints: hintsOf(definition, values),
        enabled: input.enabled ?? true,
        allowPrivateNetwork: input.allowPrivateNetwork ?? false,
        position: input.position ?? (last?.position ?? 0) + 1,
      })
      .onConflictDoNothing({ target: providerConnection.id })
      .returning({ id: providerConnection.id });
    if (inserted.length === 0)
      throw new CatalogRefusal("exists", `A connection ${id} exists already; choose another id.`, "id");
    await recordAdminAction(tx, actor, {
      action: "connections.add",
      targetType: "connection",
      targetId: id,
      targetLabel: name,
      after: { provider, name, settings: plain, secrets: hintsOf(definition, values) },
    });
    return { id, name };
  });
}

/**
 * Changes a connection: its name, order, whether it serves, and its settings (a secret left out or blank keeps the
 * one kept; a plain setting given as null is removed). False when nothing changed.
 */
export async function changeConnection({
  db,
  box,
  id,
  input,
  actor,
}: {
  db: Db;
  box: SecretBox;
  id: string;
  input: ConnectionInput;
  actor: AdminActor;
}): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(providerConnection).where(eq(providerConnection.id, id)).for("update");
    if (!row)
      throw new CatalogRefusal(
        "unknown",
        BUILT_IN_CONNECTION_IDS.includes(id)
          ? `${id} is the environment's connection: change its variables and restart.`
          : `No connection ${id}.`,
      );
    const definition = providerDefinition(row.provider);
    let sealed = row.sealedSecrets;
    let hints = row.secretHints;
    let plain = row.settings;
    if (input.settings) {
      const kept = row.sealedSecrets ? (JSON.parse(box.open(row.sealedSecrets)) as Record<string, unknown>) : {};
      const given = Object.fromEntries(
        Object.entries(input.settings).filter(
          ([key, value]) =>
            !((definition.secrets as readonly string[]).includes(key) && (value === "" || value === undefined)),
        ),
      );
      const merged: Record<string, unknown> = { ...row.settings, ...kept, ...given };
      // A map of secrets (a header per server) changes key by key: the ones not given stay, a null removes one.
      for (const key of definition.secrets as readonly string[]) {
        const before = kept[key];
        const after = given[key];
        if (!isMap(before) || !isMap(after)) continue;
        const map: Record<string, unknown> = { ...before, ...after };
        for (const [name, value] of Object.entries(map)) if (value === null) delete map[name];
        merged[key] = Object.keys(map).length > 0 ? map : null;
      }
      for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
      const split = splitSettings(row.provider, merged);
      await checkBaseUrl(split.definition, split.values, input.allowPrivateNetwork ?? row.allowPrivateNetwork);
      if (!split.definition.configured(split.values))
        throw new CatalogRefusal(
          "invalid",
          `A ${row.provider} connection needs ${definition.secrets.join(" and ")}.`,
          definition.secrets[0],
        );
      plain = split.plain;
      const secretsChanged = JSON.stringify(split.secrets) !== JSON.stringify(kept);
      if (secretsChanged)
        sealed = Object.keys(split.secrets).length > 0 ? box.seal(JSON.stringify(split.secrets)) : null;
      hints = hintsOf(definition, split.values);
    }
    const next = {
      name: input.name?.trim() || row.name,
      enabled: input.enabled ?? row.enabled,
      allowPrivateNetwork: input.allowPrivateNetwork ?? row.allowPrivateNetwork,
      position: input.position ?? row.position,
      settings: plain,
      sealedSecrets: sealed,
      secretHints: hints,
    };
    const before = {
      name: row.name,
      enabled: row.enabled,
      allowPrivateNetwork: row.allowPrivateNetwork,
      position: row.position,
      settings: row.settings,
      secrets: row.secretHints,
    };
    const after = {
      name: next.name,
      enabled: next.enabled,
      allowPrivateNetwork: next.allowPrivateNetwork,
      position: next.position,
      settings: next.settings,
      secrets: next.secretHints,
    };
    if (JSON.stringify(before) === JSON.stringify(after) && sealed === row.sealedSecrets) return false;
    await tx
      .update(providerConnection)
      .set({
        ...next,
        updatedAt: sql`now()`,
        ...(sealed !== row.sealedSecrets ? { checkedAt: null, checkOk: null, checkMessage: null } : {}),
      })
      .where(eq(providerConnection.id, id));
    await recordAdminAction(tx, actor, {
      action:
        row.enabled !== next.enabled
          ? next.enabled
            ? "connections.enable"
            : "connections.disable"
          : "connections.update",
      targetType: "connection",
      targetId: id,
      targetLabel: next.name,
      before,
      after,
    });
    return true;
  });
}

/** Removes a connection an operator added; models bound to it alone are then offered by no connection. */
export async function removeConnection({ db, id, actor }: { db: Db; id: string; actor: AdminActor }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx.delete(providerConnection).where(eq(providerConnection.id, id)).returning();
    if (!row) return false;
    await recordAdminAction(tx, actor, {
      action: "connections.remove",
      targetType: "connection",
      targetId: id,
      targetLabel: row.name,
      before: { provider: row.provider, name: row.name, settings: row.settings, secrets: row.secretHints },
    });
    return true;
  });
}

/** Records the outcome of a connection's test (shown in the console and by `connections list`). */
export async function recordConnectionCheck(db: Db, id: string, outcome: { ok: boolean; message: string | null }) {
  await db
    .update(providerConnection)
    .set({ checkedAt: sql`now()`, checkOk: outcome.ok, checkMessage: outcome.message })
    .where(eq(providerConnection.id, id));
}

/**
 * Seals again, under the current key, the secrets sealed under a key it replaced (after ENCRYPTION_KEY changed and
 * the old one was kept in ENCRYPTION_KEY_PREVIOUS). Returns how many connections it sealed again.
 */
export async function resealConnections(db: Db, box: SecretBox): Promise<number> {
  const rows = await db
    .select({ id: providerConnection.id, sealed: providerConnection.sealedSecrets })
    .from(providerConnection);
  let count = 0;
  for (const row of rows) {
    if (!row.sealed || !box.stale(row.sealed)) continue;
    let plain: string;
    try {
      plain = box.open(row.sealed);
    } catch {
      continue; // Sealed under a key this process does not have: left as it is (and reported by the registry).
    }
    const updated = await db
      .update(providerConnection)
      .set({ sealedSecrets: box.seal(plain) })
      .where(sql`${providerConnection.id} = ${row.id} and ${providerConnection.sealedSecrets} = ${row.sealed}`)
      .returning({ id: providerConnection.id });
    count += updated.length;
  }
  return count;
}
