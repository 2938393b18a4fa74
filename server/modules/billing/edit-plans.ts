import { canonicalJson } from "#common/canonical-json.ts";
import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { plan } from "#server/db/schema/index.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import { AppError } from "#server/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { FREE_PLAN_ID, FREE_UNLOCKS, type PlanUnlocks } from "#common/plans.ts";
import { planColumns } from "./list-plans.ts";
import { planSchema, type PlanDefinition } from "./plan-schema.ts";

/** The first problem of a definition, as the operator reads it (`credits: …`). */
function invalid(error: { issues: { path: PropertyKey[]; message: string }[] }): AppError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") || "plan";
  return new AppError("invalid_options", `${field}: ${issue?.message ?? "invalid"}`, { values: { field } });
}

/** What a new plan is unless said: no trial, no rollover, the free plan's unlocks, after the others. */
export function newPlan(
  input: Partial<Omit<PlanDefinition, "unlocks">> &
    Pick<PlanDefinition, "id" | "name"> & { unlocks?: Partial<PlanUnlocks> },
): PlanDefinition {
  return {
    names: {},
    description: {},
    monthly: {},
    yearly: {},
    credits: 0,
    rollover: 0,
    trialDays: 0,
    position: 0,
    ...input,
    unlocks: { ...FREE_UNLOCKS, ...input.unlocks },
  };
}

/** Adds a plan, with its audit log entry; a plan id already taken (archived plans included) is a conflict. */
export async function addPlan({ db, definition, actor }: { db: Db; definition: PlanDefinition; actor: AdminActor }) {
  const parsed = planSchema.safeParse(definition);
  if (!parsed.success) throw invalid(parsed.error);
  try {
    await db.transaction(async (tx) => {
      await tx.insert(plan).values(parsed.data);
      await recordAdminAction(tx, actor, {
        action: "plans.add",
        targetType: "plan",
        targetId: parsed.data.id,
        targetLabel: parsed.data.name,
        before: null,
        after: parsed.data,
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", `a plan ${parsed.data.id} exists already`);
    throw error;
  }
  return parsed.data;
}

/**
 * Changes a plan: `change` makes the new definition from the current one, checked whole; the row is locked, so two
 * changes at once apply one after the other. False when nothing changed.
 */
export async function changePlan({
  db,
  id,
  change,
  actor,
}: {
  db: Db;
  id: string;
  change: (current: PlanDefinition) => unknown;
  actor: AdminActor;
}): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select(planColumns).from(plan).where(eq(plan.id, id)).for("update");
    if (!row) throw new AppError("not_found", `no plan ${id}`);
    const { archivedAt: _archived, ...before } = row;
    const parsed = planSchema.safeParse(change(structuredClone(before)));
    if (!parsed.success) throw invalid(parsed.error);
    if (parsed.data.id !== id) throw new AppError("invalid_options", "id: a plan's id cannot change");
    // The database keeps a JSON object's keys in its own order: compared with their keys sorted.
    if (canonicalJson(parsed.data) === canonicalJson(before)) return false;
    await tx
      .update(plan)
      .set({ ...parsed.data, updatedAt: sql`now()` })
      .where(eq(plan.id, id));
    await recordAdminAction(tx, actor, {
      action: "plans.set",
      targetType: "plan",
      targetId: id,
      targetLabel: parsed.data.name,
      before,
      after: parsed.data,
    });
    return true;
  });
}

/** Stops selling a plan (its subscribers keep it); the free plan cannot be archived. False when it already was. */
export async function archivePlan({ db, id, actor }: { db: Db; id: string; actor: AdminActor }): Promise<boolean> {
  if (id === FREE_PLAN_ID)
    throw new AppError("conflict", "the free plan applies to every account and cannot be archived");
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ name: plan.name, archivedAt: plan.archivedAt })
      .from(plan)
      .where(eq(plan.id, id))
      .for("update");
    if (!row) throw new AppError("not_found", `no plan ${id}`);
    if (row.archivedAt) return false;
    await tx
      .update(plan)
      .set({ archivedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(plan.id, id));
    await recordAdminAction(tx, actor, {
      action: "plans.archive",
      targetType: "plan",
      targetId: id,
      targetLabel: row.name,
      before: { archived: false },
      after: { archived: true },
    });
    return true;
  });
}
