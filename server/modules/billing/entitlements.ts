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
  if (await isAdmin(db, who)) return;
  const needed = offering[0]!;
  const language = locale ?? "en";
  throw new AppError("plan_required", `the model ${model.id} is reserved to the plan ${needed.id} (${needed.name})`, {
    values: {
      model: displayName({ ...model, name: model.name ?? model.id }, language),
      plan: displayName(needed, language),
    },
  });
}

/** Whether the account is an administrator (`role` left out by the caller: read from the account). */
async function isAdmin(db: Db, who: { id: string; role?: string | null }): Promise<boolean> {
  if (who.role !== undefined) return who.role === "admin";
  const [account] = await db.select({ role: user.role }).from(user).where(eq(user.id, who.id));
  return account?.role === "admin";
}

/** The first plan on sale (the pricing page's order) that unlocks what `has` says, for a refusal that names it. */
async function offeringOf(db: Db, has: (unlocks: PlanUnlocks) => boolean): Promise<PlanSummary | undefined> {
  const plans = await db
    .select(summary)
    .from(plan)
    .where(isNull(plan.archivedAt))
    .orderBy(plan.position, plan.createdAt);
  return plans.find((p) => p.id !== FREE_PLAN_ID && has(p.unlocks));
}

/** What a refusal says for an unlock the account's plan lacks: the plan that has it, or that none is sold. */
const REFUSALS = {
  api: { named: "pricing.errors.apiPlanRequired", none: "pricing.errors.apiNotIncluded" },
  privateResults: { named: "pricing.errors.privatePlanRequired", none: "pricing.errors.privateNotIncluded" },
} as const;

/** The refusal of an unlock the account's plan lacks, naming the first plan on sale that has it, in the language. */
async function planRequired(db: Db, unlock: keyof typeof REFUSALS, locale?: Locale): Promise<AppError> {
  const offering = await offeringOf(db, (u) => u[unlock]);
  return new AppError(
    "plan_required",
    offering ? `${unlock} is reserved to the plan ${offering.id}` : `no plan on sale unlocks ${unlock}`,
    offering
      ? { key: REFUSALS[unlock].named, values: { plan: displayName(offering, locale ?? "en") } }
      : { key: REFUSALS[unlock].none },
  );
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
  if (mine.unlocks.api || (await isAdmin(db, who))) return;
  throw await planRequired(db, "api", locale);
}

/**
 * Whether an account's results are public whatever it asks: the operator made results public for the plans that do
 * not include private ones (`billing.publicResults`), and the account's plan is one of them. Administrators keep
 * theirs private as anyone may by default (`role` left out: read from the account, as for an API key's request).
 */
export async function resultsMustBePublic(
  db: Db,
  settings: { billing: { publicResults: boolean } } | undefined,
  mine: PlanSummary,
  who: { id: string; role?: string | null },
): Promise<boolean> {
  if (!settings?.billing.publicResults || mine.unlocks.privateResults) return false;
  return !(await isAdmin(db, who));
}

/**
 * Refuses to make a result private for an account whose results must be public, naming the cheapest plan that keeps
 * them private, in the person's language. What is private already stays private.
 */
export async function requirePrivateAllowed(
  db: Db,
  who: { id: string; role?: string | null },
  settings: { billing: { publicResults: boolean } } | undefined,
  locale?: Locale,
): Promise<void> {
  if (!settings?.billing.publicResults) return;
  const mine = await currentPlan(db, who.id);
  if (mine.unlocks.privateResults || (await isAdmin(db, who))) return;
  throw await planRequired(db, "privateResults", locale);
}

/** For the result page: the plan that keeps results private when the account's must be public, or null. */
export async function publicByPlan(
  db: Db,
  who: { id: string; role?: string | null },
  settings: { billing: { publicResults: boolean } },
  locale: Locale,
): Promise<{ plan: string | null } | null> {
  if (!settings.billing.publicResults) return null;
  const mine = await currentPlan(db, who.id);
  if (!(await resultsMustBePublic(db, settings, mine, who))) return null;
  const offering = await offeringOf(db, (u) => u.privateResults);
  return { plan: offering ? displayName(offering, locale) : null };
}
