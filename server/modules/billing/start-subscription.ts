import { and, desc, eq, inArray } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { billingCustomer, plan, subscription } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import type { StripeClient } from "#server/modules/payments/stripe-client.ts";
import { CHECKOUT_LOCALES } from "#server/modules/payments/start-checkout.ts";
import { customerOf, TAXED } from "./stripe-customer.ts";
import type { SiteConfig } from "#config/site.ts";
import { localizePath, type Locale } from "#common/locales.ts";
import { FREE_PLAN_ID, PLAN_INTERVALS, type PlanInterval } from "#common/plans.ts";

/** A subscription that still holds the account (or will again once paid): a second one is not opened beside it. */
const LIVE = ["active", "trialing", "past_due", "unpaid", "incomplete", "paused"] as const;
const REQUEST_KEY = /^[\w-]{16,64}$/;

export interface StartSubscriptionOptions {
  db: Db;
  stripe: StripeClient | null;
  site: SiteConfig;
  logger: Logger;
  user: { id: string; email: string; name?: string | null };
  planId: string;
  interval: string;
  /** The currency chosen on the pricing page; the plan's first price in that interval otherwise. */
  currency?: string;
  /** The form's one-time key: a double-click opens the same checkout. */
  requestKey?: string;
  locale: Locale;
  /** Stripe Tax (the console's billing settings): the tax computed from the address Checkout asks for. */
  stripeTax?: boolean;
}

/**
 * Opens Stripe Checkout in subscription mode for a plan: the account's Stripe customer (made once), the plan's price
 * for the interval, its trial for an account that never subscribed, and the account and plan in the subscription's
 * metadata, which is how its events find them. Nothing is granted here: credits come with each paid invoice.
 */
export async function startSubscription(options: StartSubscriptionOptions): Promise<{ url: string }> {
  const stripe = options.stripe;
  if (!stripe) throw new AppError("purchasing_disabled");
  const interval = options.interval as PlanInterval;
  if (!(PLAN_INTERVALS as readonly string[]).includes(interval)) throw new AppError("unknown_plan", "no such interval");
  const [chosen] = await options.db.select().from(plan).where(eq(plan.id, options.planId));
  if (!chosen || chosen.id === FREE_PLAN_ID || chosen.archivedAt) throw new AppError("unknown_plan", "no such plan");
  const prices = chosen[interval];
  const currency =
    options.currency && prices[options.currency.toLowerCase()]
      ? options.currency.toLowerCase()
      : Object.keys(prices)[0];
  if (!currency) throw new AppError("unknown_plan", `the plan ${chosen.id} has no ${interval} price`);

  const mine = await options.db
    .select({ status: subscription.status })
    .from(subscription)
    .where(eq(subscription.userId, options.user.id))
    .orderBy(desc(subscription.createdAt));
  if (mine.some((s) => (LIVE as readonly string[]).includes(s.status)))
    throw new AppError("already_subscribed", "the account already has a subscription");

  const customer = await customerOf(options.db, stripe, options.user);
  const requestKey = options.requestKey && REQUEST_KEY.test(options.requestKey) ? options.requestKey : null;
  const trial = chosen.trialDays > 0 && mine.length === 0 ? { trial_period_days: chosen.trialDays } : {};
  const metadata = { user_id: options.user.id, plan_id: chosen.id, interval };
  try {
    const session = await stripe.checkout.sessions.create(
      {
        mode: "subscription",
        customer,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency,
              unit_amount: prices[currency]!,
              recurring: { interval: interval === "yearly" ? "year" : "month" },
              product_data: { name: chosen.names[options.locale] ?? chosen.name, metadata: { plan_id: chosen.id } },
            },
          },
        ],
        subscription_data: { metadata, ...trial },
        ...(options.stripeTax ? TAXED : {}),
        client_reference_id: options.user.id,
        metadata: { ...metadata, kind: "subscription" },
        locale: CHECKOUT_LOCALES[options.locale] as "en",
        success_url: `${options.site.url}${localizePath("/user/orders", options.locale)}?subscribed=${chosen.id}`,
        cancel_url: `${options.site.url}${localizePath("/pricing", options.locale)}?checkout=canceled`,
      },
      requestKey ? { idempotencyKey: `atelier-subscribe-${options.user.id}-${requestKey}` } : {},
    );
    if (!session.url) throw new Error("the checkout session has no URL");
    return { url: session.url };
  } catch (error) {
    options.logger.error({ err: (error as Error).message, plan: chosen.id }, "subscription checkout not opened");
    throw new AppError("checkout_failed");
  }
}

/**
 * Stripe's customer portal for the account: its card, its invoices, cancelling (at the period's end) or resuming its
 * subscription. Only for an account that has a customer at Stripe.
 */
export async function openBillingPortal(options: {
  db: Db;
  stripe: StripeClient | null;
  site: SiteConfig;
  userId: string;
  locale: Locale;
}): Promise<{ url: string }> {
  if (!options.stripe) throw new AppError("purchasing_disabled");
  const [known] = await options.db.select().from(billingCustomer).where(eq(billingCustomer.userId, options.userId));
  if (!known) throw new AppError("not_found", "no customer at Stripe");
  try {
    const session = await options.stripe.billingPortal.sessions.create({
      customer: known.stripeCustomerId,
      return_url: `${options.site.url}${localizePath("/user/orders", options.locale)}`,
      locale: CHECKOUT_LOCALES[options.locale] as "en",
    });
    return { url: session.url };
  } catch {
    throw new AppError("checkout_failed", "the portal could not be opened");
  }
}

/** The subscriptions an account has had, newest first, with their plan's names (its orders page). */
export async function listSubscriptions(db: Db, userId: string) {
  return db
    .select({
      id: subscription.id,
      planId: subscription.planId,
      planName: plan.name,
      planNames: plan.names,
      interval: subscription.interval,
      status: subscription.status,
      amount: subscription.amount,
      currency: subscription.currency,
      currentPeriodEnd: subscription.currentPeriodEnd,
      cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
      nextPlanId: subscription.nextPlanId,
      trialEnd: subscription.trialEnd,
      paymentIssue: subscription.paymentIssue,
      graceUntil: subscription.graceUntil,
      endedAt: subscription.endedAt,
    })
    .from(subscription)
    .innerJoin(plan, eq(plan.id, subscription.planId))
    .where(and(eq(subscription.userId, userId), inArray(subscription.status, [...LIVE, "canceled"])))
    .orderBy(desc(subscription.createdAt))
    .limit(5);
}
