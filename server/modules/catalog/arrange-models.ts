import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import type { AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { addModel, CatalogRefusal, changeModel } from "./edit-models.ts";
import type { ModelRegistry } from "./model-registry.ts";

/**
 * Copies a model (built-in or added) as a new added model, switched off so it can be changed before anyone is
 * offered it; its id is the original's with `-copy` (then `-copy-2`, …). Returns the copy's id.
 */
export async function duplicateModel({
  db,
  env,
  models,
  id,
  actor,
}: {
  db: Db;
  env: Env;
  models: ModelRegistry;
  id: string;
  actor: AdminActor;
}): Promise<string> {
  const entry = models.entry(id);
  if (!entry) throw new CatalogRefusal("unknown", `No model ${id} in the catalog.`);
  const base = `${id.slice(0, 90)}-copy`;
  let copy = base;
  for (let n = 2; models.entry(copy); n++) copy = `${base}-${n}`;
  const { position: _position, ...definition } = entry.definition;
  await addModel({ db, env, id: copy, definition: { ...definition, enabled: false }, actor });
  return copy;
}

/**
 * Moves a model one place up (-1) or down (+1) in the catalog's order, which every list follows: the models are
 * numbered in their order now with the two swapped, and each one whose place changes is written (with its log entry).
 * False when it is already first or last.
 */
export async function moveModel({
  db,
  env,
  models,
  id,
  by,
  actor,
}: {
  db: Db;
  env: Env;
  models: ModelRegistry;
  id: string;
  by: -1 | 1;
  actor: AdminActor;
}): Promise<boolean> {
  const order = models.entries().map((e) => ({ id: e.id, position: e.definition.position }));
  const at = order.findIndex((e) => e.id === id);
  if (at < 0) throw new CatalogRefusal("unknown", `No model ${id} in the catalog.`);
  const to = at + by;
  if (to < 0 || to >= order.length) return false;
  [order[at], order[to]] = [order[to]!, order[at]!];
  for (const [index, e] of order.entries()) {
    const position = index + 1;
    if (e.position === position) continue;
    await changeModel({ db, env, id: e.id, actor, change: (current) => ({ ...current, position }) });
  }
  return true;
}
