import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { creditOrder, paymentEvent, plan, subscription, user } from "#server/db/schema/index.ts";
import { applyMovement, type Tx } from "#server/modules/credits/ledger.ts";
import type { StripeClient } from "#server/modules/payments/stripe-client.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { sendInTx, uuidFrom, warmQueue } from "#server/jobs/send-in-tx.ts";
import { MAIL_QUEUE, type MailJob } from "#server/modules/mail/queue-mail.ts";
import { DEFAULT_LOCALE, isLocale, localizedUrl, type Locale } from "#common/locales.ts";
import { formatDate } from "#common/format.ts";
import { displayName } from "#config/models.ts";
import { FREE_PLAN_ID, SUBSCRIPTION_STATUSES, type PlanInterval, type SubscriptionStatus } from "#common/plans.ts";

export type BillingOutcome = "applied" | "duplicate" | "ignored";

export interface BillingEventOptions {
  db: Db;
  stripe: StripeClient;
  logger: Logger;
  event: Stripe.Event;
  /** Days a failed renewal keeps the plan (the console's billing settings). */
  graceDays: number;
  /** Where the subscriber is told of a renewal that was not paid (left out: nobody is told). */
  mail?: { boss: PgBoss; siteUrl: string };
}

/** The Stripe events that concern subscriptions; `handleStripeEvent` passes them here. */
export const SUBSCRIPTION_EVENTS = new Set([
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
  "invoice.payment_action_required",
]);

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === "string" ? value : (value?.id ?? null);

/**
 * Applies one verified subscription event. The subscription is read again from Stripe rather than taken from the
 * event: events arrive in any order and more than once, and what Stripe says now is what the account should have.
 * Each event is recorded in the transaction that applies it; an invoice's credits are granted with its order, which
 * its id makes unique, so a repeated `invoice.paid` (twenty at once) grants once.
 */
export async function handleSubscriptionEvent(options: BillingEventOptions): Promise<BillingOutcome> {
  const { stripe, event } = options;
  const log = options.logger.child({ stripeEvent: event.id, type: event.type });
  if (event.type === "checkout.session.completed") {
    const subscriptionId = idOf((event.data.object as Stripe.Checkout.Session).subscription);
    if (!subscriptionId) return "ignored";
    return apply(options, log, subscriptionId, async () => undefined);
  }
  if (event.type.startsWith("customer.subscription.")) {
    const subscriptionId = (event.data.object as Stripe.Subscription).id;
    return apply(options, log, subscriptionId, async () => undefined);
  }
  const invoice = event.data.object as Stripe.Invoice;
  const subscriptionId = subscriptionOfInvoice(invoice);
  if (!subscriptionId) return "ignored";
  if (event.type === "invoice.paid") {
    await takeUpPendingPlan(options, invoice, subscriptionId);
    const paymentIntentId = await paymentOfInvoice(stripe, invoice.id!);
    return apply(options, log, subscriptionId, (tx, row) => grantInvoice(tx, row, invoice, paymentIntentId, log));
  }
  const issue = event.type === "invoice.payment_action_required" ? "action_required" : "failed";
  if (options.mail) await warmQueue(options.mail.boss, MAIL_QUEUE);
  return apply(options, log, subscriptionId, async (tx, row) => {
    // A later paid invoice already cleared it: a late failure of an earlier attempt changes nothing.
    const [paid] = await tx
      .select({ id: creditOrder.id })
      .from(creditOrder)
      .where(eq(creditOrder.invoiceId, invoice.id!));
    if (paid) return;
    const [changed] = await tx
      .update(subscription)
      .set({
        paymentIssue: issue,
        graceUntil: sql`coalesce(${subscription.graceUntil}, now() + make_interval(days => ${options.graceDays}))`,
        updatedAt: new Date(),
      })
      .where(eq(subscription.id, row.id))
      .returning({ graceUntil: subscription.graceUntil });
    log.info({ subscription: row.stripeSubscriptionId, issue }, "renewal not paid: grace period started");
    // Told once per change (Stripe's retries of the same failure say nothing new), in the job queue with the event.
    if (options.mail && row.paymentIssue !== issue)
      await tellSubscriber(tx, options.mail, event.id, row, issue, changed!.graceUntil!, invoice.hosted_invoice_url);
  });
}

/**
 * The subscriber's e-mail about a renewal that was not paid, in their language: the plan, until when it stays, and
 * the way to fix it (the orders page for a declined card, Stripe's own invoice page to confirm a payment the bank
 * holds). Queued in the event's transaction under an id made from the event's, so the same event applied again after
 * a failure queues it once.
 */
async function tellSubscriber(
  tx: Tx,
  mail: { boss: PgBoss; siteUrl: string },
  eventId: string,
  row: Row,
  issue: "failed" | "action_required",
  graceUntil: Date,
  invoiceUrl: string | null | undefined,
) {
  const [account] = await tx
    .select({ email: user.email, name: user.name, locale: user.locale, plan: plan.name, names: plan.names })
    .from(user)
    .innerJoin(plan, eq(plan.id, row.planId))
    .where(eq(user.id, row.userId));
  if (!account) return;
  const locale: Locale = isLocale(account.locale) ? account.locale : DEFAULT_LOCALE;
  const orders = localizedUrl(mail.siteUrl, "/user/orders", locale);
  const job: MailJob = {
    to: account.email,
    kind: issue === "failed" ? "billing.paymentFailed" : "billing.actionRequired",
    locale,
    name: account.name,
    url: issue === "action_required" && invoiceUrl ? invoiceUrl : orders,
    values: {
      plan: displayName({ name: account.plan, names: account.names }, locale),
      date: formatDate(locale, graceUntil, { dateOnly: true }),
    },
  };
  await sendInTx(mail.boss, tx, MAIL_QUEUE, job, {
    id: uuidFrom(`mail:${eventId}`),
    retryLimit: 8,
    retryDelay: 15,
    retryBackoff: true,
  });
}

/**
 * A renewal paid after a downgrade: the plan that waited for it becomes the subscription's plan at Stripe (its
 * metadata), before the subscription is read again. Only for an invoice not yet recorded, so that a late repeat of an
 * older renewal's event does not undo a later change.
 */
async function takeUpPendingPlan(options: BillingEventOptions, invoice: Stripe.Invoice, subscriptionId: string) {
  const next = invoice.parent?.subscription_details?.metadata?.next_plan_id;
  if (invoice.billing_reason !== "subscription_cycle" || !next) return;
  const [recorded] = await options.db
    .select({ id: creditOrder.id })
    .from(creditOrder)
    .where(eq(creditOrder.invoiceId, invoice.id!));
  if (recorded) return;
  const live = await options.stripe.subscriptions.retrieve(subscriptionId);
  if (live.metadata?.next_plan_id !== next) return;
  await options.stripe.subscriptions.update(subscriptionId, {
    metadata: {
      ...live.metadata,
      plan_id: next,
      interval: live.metadata.next_interval || live.metadata.interval || "monthly",
      previous_plan_id: "",
      next_plan_id: "",
      next_interval: "",
    },
  });
}

/** Where an invoice names its subscription: under `parent` on current API versions, at the top on older ones. */
export function subscriptionOfInvoice(invoice: Stripe.Invoice): string | null {
  const details = invoice.parent?.subscription_details;
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  return idOf(details?.subscription ?? legacy ?? null);
}

/** The payment intent that paid an invoice (for its refunds and disputes), through its invoice payments. */
async function paymentOfInvoice(stripe: StripeClient, invoiceId: string): Promise<string | null> {
  const payments = await stripe.invoicePayments.list({ invoice: invoiceId, limit: 10 });
  const paid = payments.data.find((p) => p.status === "paid") ?? payments.data[0];
  return idOf(paid?.payment.payment_intent ?? null);
}

type Row = typeof subscription.$inferSelect;

/**
 * Reads the subscription from Stripe, then, in one transaction: records the event (a repeat stops here), writes the
 * subscription as read (unless a newer read was written meanwhile), and applies the event's own effect to it.
 */
async function apply(
  options: BillingEventOptions,
  log: Logger,
  subscriptionId: string,
  effect: (tx: Tx, row: Row) => Promise<void>,
): Promise<BillingOutcome> {
  const { db, stripe, event } = options;
  const readAt = new Date();
  const current = await stripe.subscriptions.retrieve(subscriptionId);
  const fields = await fieldsOf(db, current);
  if (!fields) {
    log.warn({ subscription: subscriptionId }, "subscription not opened here (no known account or plan): ignored");
    return "ignored";
  }
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(paymentEvent)
      .values({ id: event.id, provider: "stripe", type: event.type })
      .onConflictDoNothing()
      .returning({ id: paymentEvent.id });
    if (inserted.length === 0) return "duplicate";
    const values = { ...fields, stripeUpdatedAt: readAt, updatedAt: new Date() };
    await tx
      .insert(subscription)
      .values(values)
      .onConflictDoUpdate({
        target: subscription.stripeSubscriptionId,
        set: {
          planId: sql`excluded.plan_id`,
          interval: sql`excluded.interval`,
          status: sql`excluded.status`,
          amount: sql`excluded.amount`,
          currency: sql`excluded.currency`,
          currentPeriodStart: sql`excluded.current_period_start`,
          currentPeriodEnd: sql`excluded.current_period_end`,
          cancelAtPeriodEnd: sql`excluded.cancel_at_period_end`,
          nextPlanId: sql`excluded.next_plan_id`,
          trialEnd: sql`excluded.trial_end`,
          endedAt: sql`excluded.ended_at`,
          // Back in good standing: the failed renewal's grace is over.
          paymentIssue: sql`case when excluded.status in ('active', 'trialing') then null else ${subscription.paymentIssue} end`,
          graceUntil: sql`case when excluded.status in ('active', 'trialing') then null else ${subscription.graceUntil} end`,
          stripeUpdatedAt: sql`excluded.stripe_updated_at`,
          updatedAt: sql`excluded.updated_at`,
        },
        setWhere: sql`${subscription.stripeUpdatedAt} <= excluded.stripe_updated_at`,
      });
    const [row] = await tx
      .select()
      .from(subscription)
      .where(eq(subscription.stripeSubscriptionId, current.id))
      .for("update");
    await effect(tx, row!);
    return "applied" as const;
  });
}

/** The row a Stripe subscription makes: its account and plan from the metadata the checkout gave it. */
async function fieldsOf(db: Db, s: Stripe.Subscription) {
  const userId = s.metadata?.user_id;
  const planId = s.metadata?.plan_id;
  const item = s.items.data[0];
  if (!userId || !planId || planId === FREE_PLAN_ID || !item) return null;
  const [known] = await db
    .select({ user: user.id, plan: plan.id })
    .from(user)
    .leftJoin(plan, eq(plan.id, planId))
    .where(eq(user.id, userId));
  if (!known?.plan) return null;
  const status = (SUBSCRIPTION_STATUSES as readonly string[]).includes(s.status)
    ? (s.status as SubscriptionStatus)
    : "incomplete";
  const interval: PlanInterval = item.price.recurring?.interval === "year" ? "yearly" : "monthly";
  const seconds = (value: number | null | undefined) => (value ? new Date(value * 1000) : null);
  return {
    userId,
    planId,
    interval,
    status,
    stripeSubscriptionId: s.id,
    stripeCustomerId: idOf(s.customer)!,
    amount: (item.price.unit_amount ?? 0) * (item.quantity ?? 1),
    currency: item.price.currency,
    currentPeriodStart: seconds(item.current_period_start)!,
    currentPeriodEnd: seconds(item.current_period_end)!,
    cancelAtPeriodEnd: s.cancel_at_period_end || Boolean(s.cancel_at),
    nextPlanId: s.metadata?.next_plan_id || null,
    trialEnd: seconds(s.trial_end),
    endedAt: seconds(s.ended_at),
  };
}

/**
 * What an upgrade's invoice grants: the new plan's credits beyond the old one's, for the part of the period its
 * prorated line covers (twelve months' a year); a new period begun by the change (a move to yearly) grants the new
 * plan's whole period, as a renewal would.
 */
async function upgradeCredits(
  tx: Tx,
  row: Row,
  to: typeof plan.$inferSelect,
  fromId: string,
  length: number | null,
  periodReset: boolean,
): Promise<number> {
  const [from] = await tx.select({ credits: plan.credits }).from(plan).where(eq(plan.id, fromId));
  const months = row.interval === "yearly" ? 12 : 1;
  if (periodReset) return to.credits * months;
  const period = (row.currentPeriodEnd.getTime() - row.currentPeriodStart.getTime()) / 1000;
  if (length === null || period <= 0) return 0;
  const more = Math.max(0, to.credits - (from?.credits ?? 0)) * months;
  return Math.ceil((more * Math.min(length, period)) / period);
}

/** Why an invoice grants the plan's credits: a period begun (the first, or a renewal); not a proration or a manual one. */
const GRANTING = new Set(["subscription_create", "subscription_cycle"]);

/**
 * Records a paid invoice as the account's order and grants the period's credits with it: the plan's monthly credits,
 * twelve months' for a yearly period. The invoice id is unique on orders and keys the ledger entry: once, however
 * many deliveries. The plan is the one the invoice was for (the subscription's metadata on the invoice).
 */
async function grantInvoice(tx: Tx, row: Row, invoice: Stripe.Invoice, paymentIntentId: string | null, log: Logger) {
  const metadata = invoice.parent?.subscription_details?.metadata ?? {};
  // A renewal after a downgrade bills (and grants) the plan that was waiting for it.
  const planId =
    (invoice.billing_reason === "subscription_cycle" && metadata.next_plan_id) || metadata.plan_id || row.planId;
  const [granted] = await tx.select().from(plan).where(eq(plan.id, planId));
  const line = invoice.lines?.data?.find((l) => l.amount > 0) ?? invoice.lines?.data?.[0];
  // A year's period grants twelve months' credits; a trial's (however long) one month's.
  const length = line?.period ? line.period.end - line.period.start : null;
  const yearly = length !== null ? length > 40 * 86_400 : row.interval === "yearly";
  let credits = granted && GRANTING.has(invoice.billing_reason ?? "") ? granted.credits * (yearly ? 12 : 1) : 0;
  if (granted && invoice.billing_reason === "subscription_update" && metadata.previous_plan_id) {
    const periodReset = Boolean(metadata.previous_interval) && metadata.previous_interval !== metadata.interval;
    credits = await upgradeCredits(tx, row, granted, metadata.previous_plan_id, length, periodReset);
  }
  const seconds = (value: number | null | undefined) => (value ? new Date(value * 1000) : null);
  const [order] = await tx
    .insert(creditOrder)
    .values({
      kind: "subscription",
      userId: row.userId,
      planId,
      subscriptionId: row.id,
      invoiceId: invoice.id!,
      billingReason: invoice.billing_reason ?? null,
      credits,
      amount: invoice.amount_paid,
      currency: invoice.currency.toLowerCase(),
      status: "paid",
      paymentIntentId,
      invoiceUrl: invoice.hosted_invoice_url ?? null,
      invoicePdf: invoice.invoice_pdf ?? null,
      periodStart: seconds(line?.period?.start ?? invoice.period_start),
      periodEnd: seconds(line?.period?.end ?? invoice.period_end),
      requestKey: `invoice:${invoice.id}`,
      paidAt: seconds(invoice.status_transitions?.paid_at) ?? new Date(),
    })
    .onConflictDoNothing()
    .returning({ id: creditOrder.id });
  await tx
    .update(subscription)
    .set({ paymentIssue: null, graceUntil: null, updatedAt: new Date() })
    .where(eq(subscription.id, row.id));
  if (!order) return;
  if (credits > 0) {
    await applyMovement(tx, {
      userId: row.userId,
      kind: "subscription",
      amount: credits,
      heldChange: 0,
      reference: `order:${order.id}`,
      idempotencyKey: `subscription:invoice:${invoice.id}`,
      // The period's credits last until its end; up to the plan's rollover carries over to the next one.
      lot: {
        expiresAt: seconds(line?.period?.end ?? invoice.period_end),
        rollover: granted?.rollover ?? 0,
        periodSeconds: length,
      },
    });
  }
  log.info({ invoice: invoice.id, credits, plan: planId }, "subscription invoice paid");
}
