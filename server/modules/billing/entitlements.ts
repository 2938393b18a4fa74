import { and, desc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { plan, subscription, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { FREE_PLAN_ID, FREE_UNLOCKS, type PlanUnlocks } from "#common/plans.ts";
import type { Locale } from "#common/locales.ts";
import { displayName, type ModelPresentation } from "#config/models.ts";

export interface PlanSummary {
  id: string;
  name: string;
  names: Partial<Record<Locale, string>>;
  unlocks: PlanUnlocks;
}

const summary = { id: plan.id, name: plan.name, names: plan.names, unlocks: plan.unlocks };

/**
 * The plan whose entitlements an account has now: its subscription's while Stripe says it is active or trialing,
 * and while a failed renewal's grace period lasts; the free plan otherwise (a canceled, ended or unpaid one). One
 * statement: the plan row of the live subscription, or the free plan's.
 */
export async function currentPlan(db: Db, userId: string): Promise<PlanSummary> {
  const live = db
    .select({ planId: subscription.planId })
    .from(subscription)
    .where(
      and(
        eq(subscription.userId, userId),
        or(
          inArray(subscription.status, ["active", "trialing"]),
          and(inArray(subscription.status, ["past_due", "unpaid"]), gt(subscription.graceUntil, sql`now()`)),
        ),
      ),
    )
    .orderBy(desc(subscription.createdAt))
    .limit(1);
  const [row] = await db
    .select(summary)
    .from(plan)
    .where(eq(plan.id, sql`coalesce((${live}), ${FREE_PLAN_ID})`));
  return row ?? { id: FREE_PLAN_ID, name: "Free", names: {}, unlocks: FREE_UNLOCKS };
}

export async function freePlan(db: Db): Promise<PlanSummary> {
  const [free] = await db.select(summary).from(plan).where(eq(plan.id, FREE_PLAN_ID));
  return free ?? { id: FREE_PLAN_ID, name: "Free", names: {}, unlocks: FREE_UNLOCKS };
}

/** Whether a plan's unlocked models (ids or tags) cover a model. */
export function covers(unlocks: PlanUnlocks, model: { id: string; tags?: string[] }): boolean {
  return unlocks.models.some((m) => m === model.id || (model.tags ?? []).includes(m));
}

/**
 * Refuses a model the account's plan does not include: one that some plan unlocks and the free plan does not is
 * reserved to those plans' subscribers, media and chat models alike. Administrators may use every model, to try
 * what they sell (`role` left out: read from the account). The refusal names
 * the cheapest plan that has it (the first in the pricing page's order), in the person's language.
 */
export async function requireModelAllowed(
  db: Db,
  who: { id: string; role?: string | null },
  model: Pick<ModelPresentation, "id" | "names" | "tags"> & { name?: string },
  locale?: Locale,
  /** The account's plan when the caller has read it already. */
  known?: PlanSummary,
): Promise<void> {
  if (who.role === "admin") return;
  const plans = await db
    .select(summary)
    .from(plan)
    .where(isNull(plan.archivedAt))
    .orderBy(plan.position, plan.createdAt);
  const free = plans.find((p) => p.id === FREE_PLAN_ID);
  if (free && covers(free.unlocks, model)) return;
  const offering = plans.filter((p) => p.id !== FREE_PLAN_ID && covers(p.unlocks, model));
  if (offering.length === 0) return;
  const mine = known ?? (await currentPlan(db, who.id));
  if (covers(mine.unlocks, model)) return;
  // A caller that did not say the account's role (an API key's): read it, for an administrator's key.
  if (who.role === undefined) {
    const [account] = await db.select({ role: user.role }).from(user).where(eq(user.id, who.id));
    if (account?.role === "admin") return;
  }
  const needed = offering[0]!;
  const language = locale ?? "en";
  throw new AppError("plan_required", `the model ${model.id} is reserved to the plan ${needed.id} (${needed.name})`, {
    values: {
      model: displayName({ ...model, name: model.name ?? model.id }, language),
      plan: displayName(needed, language),
    },
  });
}

/**
 * Refuses the public APIs to an account whose plan does not include them (`unlocks.api`), naming the cheapest plan
 * that does, in the person's language. Administrators may always use them.
 */
export async function requireApiAllowed(
  db: Db,
  who: { id: string; role?: string | null },
  mine: PlanSummary,
  locale?: Locale,
): Promise<void> {
  if (mine.unlocks.api || who.role === "admin") return;
  if (who.role === undefined) {
    const [account] = await db.select({ role: user.role }).from(user).where(eq(user.id, who.id));
    if (account?.role === "admin") return;
  }
  const plans = await db
    .select(summary)
    .from(plan)
    .where(isNull(plan.archivedAt))
    .orderBy(plan.position, plan.createdAt);
  const offering = plans.find((p) => p.id !== FREE_PLAN_ID && p.unlocks.api);
  const language = locale ?? "en";
  throw new AppError(
    "plan_required",
    offering ? `the API is reserved to the plan ${offering.id}` : "the account's plan does not include the API",
    offering
      ? { key: "pricing.errors.apiPlanRequired", values: { plan: displayName(offering, language) } }
      : { key: "pricing.errors.apiNotIncluded" },
  );
}
