import { and, desc, eq, inArray } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { plan, subscription } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import type { StripeClient } from "#server/modules/payments/stripe-client.ts";
import type { Locale } from "#common/locales.ts";
import { FREE_PLAN_ID, PLAN_INTERVALS, type PlanInterval } from "#common/plans.ts";

export type PlanChange = "upgraded" | "scheduled" | "unscheduled";

/** A month's worth of a price: how an upgrade is told from a downgrade across intervals. */
const perMonth = (amount: number, interval: PlanInterval) => (interval === "yearly" ? amount / 12 : amount);

/**
 * Moves an account's subscription to another plan. Worth more a month (or a monthly plan made yearly): at once, the
 * difference prorated and charged now (`always_invoice`; a declined card changes nothing), the new plan's
 * entitlements from the change, and the prorated difference in credits with that invoice. Worth less: at the
 * period's end, the plan paid for kept until then; the new price is set without proration so that the renewal bills
 * it, and the subscription's metadata names the plan to come (`next_plan_id`), which the renewal's `invoice.paid`
 * makes the plan. Choosing the current plan again takes back a pending downgrade.
 */
export async function changeSubscription(options: {
  db: Db;
  stripe: StripeClient | null;
  logger: Logger;
  userId: string;
  planId: string;
  interval: string;
  locale: Locale;
}): Promise<PlanChange> {
  const { db, stripe } = options;
  if (!stripe) throw new AppError("purchasing_disabled");
  const interval = options.interval as PlanInterval;
  if (!(PLAN_INTERVALS as readonly string[]).includes(interval)) throw new AppError("unknown_plan", "no such interval");
  const [current] = await db
    .select()
    .from(subscription)
    .where(and(eq(subscription.userId, options.userId), inArray(subscription.status, ["active", "trialing"])))
    .orderBy(desc(subscription.createdAt))
    .limit(1);
  if (!current) throw new AppError("not_found", "no subscription in good standing to change");
  const [target] = await db.select().from(plan).where(eq(plan.id, options.planId));
  if (!target || target.id === FREE_PLAN_ID || target.archivedAt) throw new AppError("unknown_plan", "no such plan");
  // A subscription keeps its currency at Stripe: the new plan must be priced in it.
  const amount = target[interval][current.currency];
  if (amount === undefined)
    throw new AppError("unknown_plan", `the plan ${target.id} has no ${interval} price in ${current.currency}`);

  const live = await stripe.subscriptions.retrieve(current.stripeSubscriptionId);
  const item = live.items.data[0];
  if (!item) throw new AppError("checkout_failed", "the subscription has no item");
  const same = target.id === current.planId && interval === current.interval;
  if (same) {
    if (!current.nextPlanId) throw new AppError("conflict", "already on this plan");
    // Keep the plan after all: its price back for the renewal, nothing pending.
    await update(options, live.id, {
      items: [{ id: item.id, price_data: await priceData(options, target, interval, amount, current.currency) }],
      proration_behavior: "none",
      metadata: { ...live.metadata, next_plan_id: "", next_interval: "" },
    });
    return "unscheduled";
  }
  const upgrade =
    perMonth(amount, interval) > perMonth(current.amount, current.interval) ||
    (interval === "yearly" && current.interval === "monthly");
  if (!upgrade && interval !== current.interval)
    throw new AppError("conflict", "a move to a shorter period is made by cancelling, then subscribing again");
  const price = await priceData(options, target, interval, amount, current.currency);
  if (upgrade) {
    await update(options, live.id, {
      items: [{ id: item.id, price_data: price }],
      proration_behavior: "always_invoice",
      payment_behavior: "error_if_incomplete",
      metadata: {
        ...live.metadata,
        plan_id: target.id,
        interval,
        previous_plan_id: current.planId,
        previous_interval: current.interval,
        next_plan_id: "",
        next_interval: "",
      },
    });
    return "upgraded";
  }
  await update(options, live.id, {
    items: [{ id: item.id, price_data: price }],
    proration_behavior: "none",
    metadata: { ...live.metadata, next_plan_id: target.id, next_interval: interval },
  });
  return "scheduled";
}

/** The new item's price, on the plan's product at Stripe (made once, on the first change to the plan). */
async function priceData(
  options: { db: Db; stripe: StripeClient | null; locale: Locale },
  target: typeof plan.$inferSelect,
  interval: PlanInterval,
  amount: number,
  currency: string,
) {
  let product = target.stripeProductId;
  if (!product) {
    const made = await options.stripe!.products.create(
      { name: target.name, metadata: { plan_id: target.id } },
      { idempotencyKey: `atelier-plan-product-${target.id}` },
    );
    await options.db
      .update(plan)
      .set({ stripeProductId: made.id })
      .where(and(eq(plan.id, target.id)));
    product = made.id;
  }
  return {
    currency,
    product,
    unit_amount: amount,
    recurring: { interval: interval === "yearly" ? ("year" as const) : ("month" as const) },
  };
}

async function update(
  options: { stripe: StripeClient | null; logger: Logger },
  id: string,
  params: Parameters<StripeClient["subscriptions"]["update"]>[1],
) {
  try {
    await options.stripe!.subscriptions.update(id, params);
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    options.logger.warn({ err: (error as Error).message, subscription: id }, "plan change refused by Stripe");
    // A declined card for the upgrade's difference: nothing changed.
    if (status === 402) throw new AppError("payment_declined", "the card was declined for the difference");
    throw new AppError("checkout_failed", "the plan could not be changed");
  }
}
