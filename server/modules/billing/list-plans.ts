import { asc, desc, isNull, sql } from "drizzle-orm";
import { FREE_PLAN_ID } from "#common/plans.ts";
import type { Db } from "#server/db/client.ts";
import { plan } from "#server/db/schema/index.ts";
import type { PlanDefinition } from "./plan-schema.ts";

export type PlanView = PlanDefinition & { archivedAt: string | null };

export const planColumns = {
  id: plan.id,
  name: plan.name,
  names: plan.names,
  description: plan.description,
  monthly: plan.monthly,
  yearly: plan.yearly,
  credits: plan.credits,
  rollover: plan.rollover,
  unlocks: plan.unlocks,
  trialDays: plan.trialDays,
  position: plan.position,
  archivedAt: plan.archivedAt,
};

/** The plans in their order (the free plan first), archived ones too when asked. */
export async function listPlans({ db, archived = false }: { db: Db; archived?: boolean }): Promise<PlanView[]> {
  const rows = await db
    .select(planColumns)
    .from(plan)
    .where(archived ? undefined : isNull(plan.archivedAt))
    .orderBy(desc(sql`${plan.id} = ${FREE_PLAN_ID}`), asc(plan.position), asc(plan.createdAt), asc(plan.id));
  return rows.map((r) => ({ ...r, archivedAt: r.archivedAt?.toISOString() ?? null }));
}
