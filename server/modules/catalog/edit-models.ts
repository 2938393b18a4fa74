import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import { catalogModel } from "#server/db/schema/index.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { builtInDefinitions, mergeRow } from "./catalog.ts";
import { CATALOG_ID, modelDefinitionSchema, type ModelDefinition } from "./model-definition.ts";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Why a change of the catalog is refused; `message` says what is wrong in one English line (the command line's). */
export class CatalogRefusal extends Error {
  readonly reason: "exists" | "unknown" | "invalid" | "kind";
  /** The field that is wrong, when one is. */
  readonly field?: string;
  constructor(reason: CatalogRefusal["reason"], message: string, field?: string) {
    super(message);
    this.reason = reason;
    this.field = field;
  }
}

/** A model as exported and imported: its id and its whole definition. */
export type ModelRecord = { id: string } & ModelDefinition;

/** The definition parsed, or the first problem as one line naming its field. */
export function parseDefinition(value: unknown, label = "the model"): ModelDefinition {
  const parsed = modelDefinitionSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join(".");
  throw new CatalogRefusal("invalid", `${label}: ${field ? `${field}: ` : ""}${issue.message}`, field || undefined);
}

/** The fields of `definition` that differ from the built-in model's (what a row keeps of a built-in). */
function patchOf(builtIn: ModelDefinition, definition: ModelDefinition): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const keys = new Set([...Object.keys(builtIn), ...Object.keys(definition)]);
  for (const key of keys) {
    const was = (builtIn as Record<string, unknown>)[key];
    const now = (definition as Record<string, unknown>)[key];
    if (JSON.stringify(was) !== JSON.stringify(now)) patch[key] = now ?? null;
  }
  return patch;
}

/** The model's definition now: a built-in one with its row's changes, or an added one's row. */
async function currentOf(tx: Tx, env: Env, id: string) {
  // One change of a model at a time: two administrators saving at once are applied one after the other.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`catalog_model:${id}`}))`);
  const builtIn = builtInDefinitions(env).get(id);
  const [row] = await tx.select().from(catalogModel).where(eq(catalogModel.id, id));
  if (!row) return { builtIn, current: builtIn };
  const merged = modelDefinitionSchema.safeParse(builtIn ? mergeRow(builtIn, row.definition) : row.definition);
  return { builtIn, current: merged.success ? merged.data : builtIn };
}

/** Writes a model's row: the changed fields of a built-in (none: no row) or the whole of an added one. */
async function write(tx: Tx, id: string, builtIn: ModelDefinition | undefined, next: ModelDefinition) {
  const definition = builtIn ? patchOf(builtIn, next) : (next as Record<string, unknown>);
  if (builtIn && Object.keys(definition).length === 0) {
    await tx.delete(catalogModel).where(eq(catalogModel.id, id));
    return;
  }
  await tx
    .insert(catalogModel)
    .values({ id, definition })
    .onConflictDoUpdate({ target: catalogModel.id, set: { definition, updatedAt: sql`now()` } });
}

/**
 * Changes one model (built-in or added) in one transaction with its audit log entry: `change` makes the new
 * definition from the current one, which must still be valid and of the same kind. False when nothing changed.
 */
export async function changeModel({
  db,
  env,
  id,
  change,
  actor,
}: {
  db: Db;
  env: Env;
  id: string;
  change: (current: ModelDefinition) => unknown;
  actor: AdminActor;
}): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { builtIn, current } = await currentOf(tx, env, id);
    if (!current) throw new CatalogRefusal("unknown", `No model ${id} in the catalog.`);
    const next = parseDefinition(change(structuredClone(current)), id);
    if (next.kind !== current.kind)
      throw new CatalogRefusal("kind", `${id} is a ${current.kind} model; its kind stays.`, "kind");
    if (JSON.stringify(next) === JSON.stringify(current)) return false;
    await write(tx, id, builtIn, next);
    await recordAdminAction(tx, actor, {
      action: current.enabled !== next.enabled ? (next.enabled ? "models.enable" : "models.disable") : "models.update",
      targetType: "model",
      targetId: id,
      targetLabel: next.name,
      before: patchOf(next, current),
      after: patchOf(current, next),
    });
    return true;
  });
}

/** Adds a model to the catalog; an id already in it is refused. */
export async function addModel({
  db,
  env,
  id,
  definition,
  actor,
}: {
  db: Db;
  env: Env;
  id: string;
  definition: unknown;
  actor: AdminActor;
}): Promise<ModelRecord> {
  if (!CATALOG_ID.test(id))
    throw new CatalogRefusal(
      "invalid",
      `${id} is not a model id: lower-case letters, digits, dots, dashes and underscores.`,
      "id",
    );
  const next = parseDefinition(definition, id);
  return db.transaction(async (tx) => {
    const { current } = await currentOf(tx, env, id);
    if (current)
      throw new CatalogRefusal("exists", `A model ${id} is already in the catalog; choose another id.`, "id");
    await write(tx, id, undefined, next);
    await recordAdminAction(tx, actor, {
      action: "models.add",
      targetType: "model",
      targetId: id,
      targetLabel: next.name,
      after: next as Record<string, unknown>,
    });
    return { id, ...next };
  });
}

/** Removes an added model from the catalog (a built-in one goes back to its built-in definition). */
export async function removeModel({ db, env, id, actor }: { db: Db; env: Env; id: string; actor: AdminActor }) {
  return db.transaction(async (tx) => {
    const { builtIn, current } = await currentOf(tx, env, id);
    if (!current) throw new CatalogRefusal("unknown", `No model ${id} in the catalog.`);
    const removed = await tx.delete(catalogModel).where(eq(catalogModel.id, id)).returning({ id: catalogModel.id });
    if (removed.length === 0) return false;
    await recordAdminAction(tx, actor, {
      action: builtIn ? "models.reset" : "models.remove",
      targetType: "model",
      targetId: id,
      targetLabel: current.name,
      before: current as Record<string, unknown>,
    });
    return true;
  });
}

/** Every model of the catalog, built-in and added, whole (what `models export` writes). */
export function exportCatalog(entries: { id: string; definition: ModelDefinition }[]): ModelRecord[] {
  return entries.map((e) => ({ id: e.id, ...e.definition }));
}

/**
 * Reads a catalog file: a JSON array of models, each with its id and whole definition. Checked whole before anything
 * is written: the first wrong model is refused with its position, id and field, and nothing changes.
 */
export function parseCatalogFile(text: string): ModelRecord[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CatalogRefusal("invalid", `The file is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new CatalogRefusal("invalid", "The file must hold a JSON array of models.");
  const seen = new Set<string>();
  return value.map((item, index) => {
    const label = `model ${index + 1}${item && typeof item === "object" && "id" in item ? ` (${String(item.id)})` : ""}`;
    if (!item || typeof item !== "object") throw new CatalogRefusal("invalid", `${label}: not an object`);
    const { id, ...definition } = item as Record<string, unknown>;
    if (typeof id !== "string" || !CATALOG_ID.test(id))
      throw new CatalogRefusal(
        "invalid",
        `${label}: id: lower-case letters, digits, dots, dashes and underscores`,
        "id",
      );
    if (seen.has(id)) throw new CatalogRefusal("invalid", `${label}: id: ${id} appears twice`, "id");
    seen.add(id);
    return { id, ...parseDefinition(definition, label) };
  });
}

/**
 * Applies a checked catalog file in one transaction with one audit log entry: each model's definition becomes the
 * given one (a built-in model keeps only what differs from its built-in definition). Models not in the file stay.
 */
export async function importCatalog({
  db,
  env,
  records,
  actor,
}: {
  db: Db;
  env: Env;
  records: ModelRecord[];
  actor: AdminActor;
}): Promise<{ changed: string[] }> {
  return db.transaction(async (tx) => {
    const changed: string[] = [];
    for (const { id, ...definition } of records) {
      const { builtIn, current } = await currentOf(tx, env, id);
      if (builtIn && builtIn.kind !== definition.kind)
        throw new CatalogRefusal("kind", `${id} is a built-in ${builtIn.kind} model; its kind stays.`, "kind");
      if (JSON.stringify(current) === JSON.stringify(definition)) continue;
      await write(tx, id, builtIn, definition as ModelDefinition);
      changed.push(id);
    }
    if (changed.length > 0)
      await recordAdminAction(tx, actor, {
        action: "models.import",
        targetType: "model",
        targetId: "*",
        targetLabel: `${changed.length} model(s)`,
        after: { models: changed },
      });
    return { changed };
  });
}
