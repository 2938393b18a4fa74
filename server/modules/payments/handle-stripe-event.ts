import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { creditOrder, paymentEvent, type DisputeStatus } from "#server/db/schema/index.ts";
import { applyMovement, expiryOfGrant, takeBackInTx, type Tx } from "#server/modules/credits/ledger.ts";
import { grantPack } from "./grant-pack.ts";
import { handleSubscriptionEvent, SUBSCRIPTION_EVENTS } from "#server/modules/billing/subscription-events.ts";
import type { StripeClient } from "./stripe-client.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { warmQueue } from "#server/jobs/send-in-tx.ts";
import { MAIL_QUEUE } from "#server/modules/mail/queue-mail.ts";
import { CUSTOMER_EVENTS, customerChanged } from "#server/modules/billing/billing-details.ts";
import { cardSaved, savesCard, topUpFailed, topUpOrderOf, topUpPaid } from "#server/modules/billing/auto-topup.ts";

type Order = typeof creditOrder.$inferSelect;
export type EventOutcome = "applied" | "duplicate" | "ignored";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface HandleStripeEventOptions {
  db: Db;
  stripe: StripeClient;
  logger: Logger;
  /** A verified event (the caller checked its signature against the raw body). */
  event: Stripe.Event;
  /** Days a failed subscription renewal keeps the plan (the console's billing settings). */
  graceDays?: number;
  /** Days a pack's credits last once bought; 0: they never expire (the console's billing settings). */
  packExpiryDays?: number;
  /** Where a subscriber is told of a renewal that was not paid. */
  mail?: { boss: PgBoss; siteUrl: string };
}

/**
 * Applies one verified Stripe event to its order. Each event is recorded in the same transaction as its effect:
 * a repeated or concurrent delivery finds it recorded and changes nothing, and a failure records nothing, so
 * Stripe's retry applies it later. Effects are idempotent on their own too (order status moves conditionally
 * under a row lock, ledger entries carry keys derived from the order), so two different events meaning the same
 * thing (completed, then async payment succeeded) grant once, and events arriving out of order converge.
 */
export async function handleStripeEvent({
  db,
  stripe,
  logger,
  event,
  graceDays = 7,
  packExpiryDays = 0,
  mail,
}: HandleStripeEventOptions): Promise<EventOutcome> {
  const log = logger.child({ stripeEvent: event.id, type: event.type });
  const subscriptionCheckout = event.type === "checkout.session.completed" && event.data.object.mode === "subscription";
  if (subscriptionCheckout || SUBSCRIPTION_EVENTS.has(event.type))
    return handleSubscriptionEvent({ db, stripe, logger, event, graceDays, mail });
  // The billing details entered at Stripe: applied by their time, so a repeated or late delivery changes nothing.
  if (CUSTOMER_EVENTS.has(event.type)) return customerChanged(db, event, log);
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      // A card saved for automatic top-up: no order, and applying it again changes nothing.
      if (savesCard(session)) return cardSaved(db, stripe, session, log);
      const order = await orderOfSession(db, session);
      if (!order) return ignored(log, "no order for this session");
      const paid = session.payment_status === "paid" || session.payment_status === "no_payment_required";
      // An unpaid completion (a bank transfer on its way) waits for async_payment_succeeded or _failed.
      if (!paid) return record(db, event, order.id, async () => undefined);
      const receiptUrl = await receiptOf(stripe, session.payment_intent, log);
      return record(db, event, order.id, (tx, locked) => fulfil(tx, locked, session, receiptUrl, log, packExpiryDays));
    }
    case "checkout.session.async_payment_failed":
    case "checkout.session.expired": {
      const order = await orderOfSession(db, event.data.object);
      if (!order) return ignored(log, "no order for this session");
      const status = event.type === "checkout.session.expired" ? "canceled" : "failed";
      return record(db, event, order.id, async (tx, locked) => {
        if (locked.status !== "pending") return;
        await tx.update(creditOrder).set({ status, updatedAt: new Date() }).where(eq(creditOrder.id, locked.id));
      });
    }
    case "payment_intent.succeeded":
    case "payment_intent.payment_failed": {
      // Only automatic top-ups' payments are settled here; Checkout's are settled by their sessions' events.
      const intent = event.data.object;
      const orderId = topUpOrderOf(intent);
      if (!orderId) return "ignored";
      if (mail) await warmQueue(mail.boss, MAIL_QUEUE);
      if (event.type === "payment_intent.succeeded") {
        const receiptUrl = await receiptOf(stripe, intent.id, log);
        return record(db, event, orderId, async (tx) => {
          await topUpPaid(tx, orderId, intent, { expiryDays: packExpiryDays, mail, log, receiptUrl });
        });
      }
      const code = intent.last_payment_error?.code;
      return record(db, event, orderId, (tx) =>
        topUpFailed(tx, orderId, {
          reason: code === "authentication_required" ? "authentication_required" : "declined",
          paymentIntentId: intent.id,
          mail,
        }),
      );
    }
    case "charge.refunded": {
      const charge = event.data.object;
      const found = await orderOfPayment(db, stripe, idOf(charge.payment_intent), log);
      if (!found) return ignored(log, "no order for this payment");
      const receiptUrl = charge.receipt_url ?? null;
      return record(db, event, found.order.id, async (tx, locked) => {
        if (found.session) await fulfil(tx, locked, found.session, receiptUrl, log, packExpiryDays);
        const current = await lockOrder(tx, locked.id);
        // The share of what was charged (tax included, when Stripe Tax added it) that was refunded.
        const ratio = Math.min(1, charge.amount_refunded / (charge.amount > 0 ? charge.amount : current.amount));
        const target = charge.refunded ? current.credits : Math.ceil(current.credits * ratio);
        await reverse(tx, current, { target, kind: "refund", refundedAmount: charge.amount_refunded });
      });
    }
    case "charge.dispute.created":
    case "charge.dispute.funds_withdrawn":
    case "charge.dispute.funds_reinstated":
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      const found = await orderOfPayment(db, stripe, idOf(dispute.payment_intent), log);
      if (!found) return ignored(log, "no order for this payment");
      const step = disputeStep(event.type, dispute.status);
      return record(db, event, found.order.id, async (tx, locked) => {
        if (found.session) await fulfil(tx, locked, found.session, null, log, packExpiryDays);
        const current = await lockOrder(tx, locked.id);
        if (step === "reinstate") await reinstate(tx, current, dispute.id);
        else await withdraw(tx, current, dispute.id, step);
      });
    }
    default:
      return "ignored";
  }
}

function ignored(log: Logger, why: string): EventOutcome {
  log.warn(why);
  return "ignored";
}

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === "string" ? value : (value?.id ?? null);

async function lockOrder(tx: Tx, id: string): Promise<Order> {
  const [order] = await tx.select().from(creditOrder).where(eq(creditOrder.id, id)).for("update");
  if (!order) throw new Error(`order ${id} vanished`);
  return order;
}

/** Records the event and applies its effect to the locked order, all or nothing. */
async function record(
  db: Db,
  event: Stripe.Event,
  orderId: string,
  effect: (tx: Tx, order: Order) => Promise<void>,
): Promise<EventOutcome> {
  return db.transaction(async (tx) => {
    // Concurrent deliveries of one event wait here on the key until the first commits, then find it recorded.
    const inserted = await tx
      .insert(paymentEvent)
      .values({ id: event.id, provider: "stripe", type: event.type, orderId })
      .onConflictDoNothing()
      .returning({ id: paymentEvent.id });
    if (inserted.length === 0) return "duplicate";
    await effect(tx, await lockOrder(tx, orderId));
    return "applied";
  });
}

/** The order a session was opened for: by its metadata (or reference), checked against what was charged. */
async function orderOfSession(db: Db, session: Stripe.Checkout.Session): Promise<Order | undefined> {
  const id = session.metadata?.order_id ?? session.client_reference_id;
  if (!id || !UUID.test(id)) return undefined;
  const [order] = await db.select().from(creditOrder).where(eq(creditOrder.id, id));
  if (!order) return undefined;
  if (order.providerSessionId && order.providerSessionId !== session.id) return undefined;
  return order;
}

/**
 * The order a payment belongs to. A refund or dispute may arrive before the completed session was applied: then the
 * payment is not on any order yet, and the session that made it (found through the API) names the order, and is
 * returned so the caller applies the completion first.
 */
async function orderOfPayment(
  db: Db,
  stripe: StripeClient,
  paymentIntent: string | null,
  log: Logger,
): Promise<{ order: Order; session?: Stripe.Checkout.Session } | undefined> {
  if (!paymentIntent) return undefined;
  const [order] = await db.select().from(creditOrder).where(eq(creditOrder.paymentIntentId, paymentIntent));
  if (order) return { order };
  const sessions = await stripe.checkout.sessions.list({ payment_intent: paymentIntent, limit: 1 });
  const session = sessions.data[0];
  if (!session) {
    // A subscription's invoice whose `invoice.paid` has not been applied yet: fail, so that Stripe delivers this again.
    const payments = await stripe.invoicePayments.list({
      payment: { type: "payment_intent", payment_intent: paymentIntent },
      limit: 1,
    });
    if (payments.data[0]) throw new Error(`the invoice paid by ${paymentIntent} is not recorded yet`);
    return undefined;
  }
  const byMetadata = await orderOfSession(db, session);
  if (!byMetadata) return undefined;
  const paid = session.payment_status === "paid" || session.payment_status === "no_payment_required";
  log.info({ orderId: byMetadata.id }, "payment event before its completed session");
  return paid ? { order: byMetadata, session } : { order: byMetadata };
}

/** The receipt link of the payment's charge, when Stripe gives one; never worth failing the event for. */
async function receiptOf(
  stripe: StripeClient,
  paymentIntent: string | Stripe.PaymentIntent | null,
  log: Logger,
): Promise<string | null> {
  const id = idOf(paymentIntent);
  if (!id) return null;
  try {
    const intent = await stripe.paymentIntents.retrieve(id, { expand: ["latest_charge"] });
    const charge = intent.latest_charge;
    return typeof charge === "object" && charge ? (charge.receipt_url ?? null) : null;
  } catch (error) {
    log.warn({ err: (error as Error).message }, "receipt link unavailable");
    return null;
  }
}

/** Marks the order paid and grants its credits, once: a paid or refunded order was already granted. */
async function fulfil(
  tx: Tx,
  order: Order,
  session: Stripe.Checkout.Session,
  receiptUrl: string | null,
  log: Logger,
  expiryDays: number,
): Promise<void> {
  if (order.status === "paid" || order.status === "refunded") return;
  // The pack's price before tax: with Stripe Tax adding tax on top, the total is more than the order's amount.
  const price = session.amount_subtotal ?? session.amount_total;
  if (price !== order.amount || session.currency?.toLowerCase() !== order.currency) {
    log.error(
      { orderId: order.id, charged: price, currency: session.currency },
      "paid amount differs from the order; not granting",
    );
    await tx.update(creditOrder).set({ status: "failed", updatedAt: new Date() }).where(eq(creditOrder.id, order.id));
    return;
  }
  await grantPack(tx, order, {
    sessionId: session.id,
    paymentIntentId: idOf(session.payment_intent),
    receiptUrl,
    expiryDays,
  });
}

/**
 * Takes back the order's credits up to `target` in all (what earlier refunds took counts): as many as the buyer
 * still has available, the rest recorded as the order's shortfall. A full reversal marks the order refunded.
 */
async function reverse(
  tx: Tx,
  order: Order,
  r: { target: number; kind: "refund" | "chargeback"; refundedAmount?: number },
): Promise<{ reversed: number; shortfall: number }> {
  // Not paid yet (its completion has not been applied): fail, so that Stripe delivers this again later.
  if (order.status === "pending") throw new Error(`order ${order.id} is not paid yet`);
  // Never granted (canceled, failed): nothing to take back.
  if (order.status !== "paid" && order.status !== "refunded") return { reversed: 0, shortfall: 0 };
  const target = Math.min(order.credits, Math.max(r.target, order.creditsReversed));
  const due = target - order.creditsReversed;
  let shortfall = 0;
  if (due > 0) {
    if (order.userId) {
      const result = await takeBackInTx(tx, {
        userId: order.userId,
        amount: due,
        kind: r.kind,
        reference: `order:${order.id}`,
        idempotencyKey: `${r.kind}:order:${order.id}:${target}`,
      });
      shortfall = result.shortfall;
    } else {
      shortfall = due;
    }
  }
  await tx
    .update(creditOrder)
    .set({
      creditsReversed: target,
      shortfall: order.shortfall + shortfall,
      refundedAmount: Math.max(order.refundedAmount, r.refundedAmount ?? 0),
      status: target >= order.credits ? "refunded" : order.status,
      updatedAt: new Date(),
    })
    .where(eq(creditOrder.id, order.id));
  return { reversed: target - order.creditsReversed, shortfall };
}

type DisputeStep = "inquiry" | "open" | "lost" | "reinstate";

/**
 * What a dispute event means for the order. An inquiry (`warning_…`) withdraws no money, so it takes nothing; an
 * opened dispute or withdrawn funds take the credits back; a dispute closed in the seller's favour (won, an inquiry
 * closed, a prevented one) or reinstated funds give them back; a lost one keeps them taken.
 */
function disputeStep(type: string, status: Stripe.Dispute.Status): DisputeStep {
  if (type === "charge.dispute.funds_reinstated") return "reinstate";
  if (type === "charge.dispute.funds_withdrawn") return "open";
  if (type === "charge.dispute.closed") return status === "lost" ? "lost" : "reinstate";
  return status.startsWith("warning_") ? "inquiry" : "open";
}

/**
 * A dispute taking the credits back (or an inquiry, marking the order only). The chargeback takes what refunds have
 * not taken yet; the order remembers that and the part of it that was shortfall, for a won dispute to undo. Once the
 * dispute was won, late or repeated events of it take nothing.
 */
async function withdraw(tx: Tx, order: Order, disputeId: string, step: Exclude<DisputeStep, "reinstate">) {
  const settled = order.disputeStatus === "won" || order.disputeStatus === "lost";
  const taken = order.disputeStatus === "open" || order.disputeStatus === "lost";
  let credits = order.disputeCredits;
  let shortfall = order.disputeShortfall;
  if (step !== "inquiry" && !taken && !settled) {
    ({ reversed: credits, shortfall } = await reverse(tx, order, { target: order.credits, kind: "chargeback" }));
  }
  // An inquiry's late `created` event does not undo a dispute already opened; a settled dispute stays settled.
  const status: DisputeStatus | null = settled
    ? order.disputeStatus
    : step === "inquiry"
      ? (order.disputeStatus ?? "inquiry")
      : step;
  await tx
    .update(creditOrder)
    .set({
      disputeId: order.disputeId ?? disputeId,
      disputeStatus: status,
      disputeCredits: credits,
      disputeShortfall: shortfall,
      disputedAt: order.disputedAt ?? new Date(),
      updatedAt: new Date(),
    })
    .where(eq(creditOrder.id, order.id));
}

/**
 * A dispute settled in the seller's favour: the money is back, so the credits its chargeback took come back too
 * (what refunds took stays taken), and the shortfall it recorded is no longer owed. Once per order: the entry's key
 * and the `won` status make a repeat (reinstated funds, then closed as won) a no-op.
 */
async function reinstate(tx: Tx, order: Order, disputeId: string) {
  if (order.disputeStatus === "won" || order.disputeStatus === "lost") return;
  const give = order.disputeCredits - order.disputeShortfall;
  if (give > 0 && order.userId) {
    await applyMovement(tx, {
      userId: order.userId,
      kind: "chargeback_reversal",
      amount: give,
      heldChange: 0,
      reference: `order:${order.id}`,
      idempotencyKey: `chargeback_reversal:order:${order.id}`,
      // The credits given back expire when the order's would have.
      lot: { expiresAt: await expiryOfGrant(tx, `order:${order.id}`) },
    });
  }
  const creditsReversed = order.creditsReversed - order.disputeCredits;
  await tx
    .update(creditOrder)
    .set({
      creditsReversed,
      shortfall: order.shortfall - order.disputeShortfall,
      status: order.status === "refunded" && creditsReversed < order.credits ? "paid" : order.status,
      disputeId: order.disputeId ?? disputeId,
      disputeStatus: "won",
      disputeCredits: 0,
      disputeShortfall: 0,
      disputedAt: order.disputedAt ?? new Date(),
      updatedAt: new Date(),
    })
    .where(eq(creditOrder.id, order.id));
}
