import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { subscription } from "./billing.ts";
import { ORDER_STATUSES, type OrderStatus } from "#common/orders.ts";
import { ORDER_KINDS, type OrderKind } from "#common/plans.ts";
import { list } from "./sql-list.ts";

export { ORDER_STATUSES, type OrderStatus };

/** A dispute on the order's payment: an inquiry takes nothing; `open` and `lost` have taken credits back. */
export const DISPUTE_STATUSES = ["inquiry", "open", "won", "lost"] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/**
 * A purchase of a credit pack, or a subscription's invoice. A pack's order is created `pending` with its checkout
 * session; a subscription's is created `paid` by the invoice's `invoice.paid` event (one per invoice, however often
 * it is delivered). The payment provider's signed events move it (paid, canceled, failed, refunded). Credits are granted through the ledger with the order as reference, and
 * taken back after refunds and disputes: what could not be taken back (already spent) is the `shortfall`.
 */
export const creditOrder = pgTable(
  "credit_order",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id").references(() => user.id, { onDelete: "set null" }),
    kind: text("kind").$type<OrderKind>().notNull().default("pack"),
    /** The pack bought (kind `pack`). */
    packId: text("pack_id"),
    /** The plan and subscription an invoice was for (kind `subscription`), and the period it paid. */
    planId: text("plan_id"),
    subscriptionId: uuid("subscription_id").references(() => subscription.id, { onDelete: "set null" }),
    invoiceId: text("invoice_id").unique(),
    billingReason: text("billing_reason"),
    periodStart: timestamp("period_start", { withTimezone: true }),
    periodEnd: timestamp("period_end", { withTimezone: true }),
    /** Stripe's hosted invoice page and its PDF. */
    invoiceUrl: text("invoice_url"),
    invoicePdf: text("invoice_pdf"),
    credits: bigint("credits", { mode: "number" }).notNull(),
    /** Price in the currency's minor units. */
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    status: text("status").$type<OrderStatus>().notNull().default("pending"),
    provider: text("provider").notNull().default("stripe"),
    providerSessionId: text("provider_session_id").unique(),
    checkoutUrl: text("checkout_url"),
    paymentIntentId: text("payment_intent_id"),
    receiptUrl: text("receipt_url"),
    /** Minor units refunded so far (cumulative, as the provider reports it). */
    refundedAmount: bigint("refunded_amount", { mode: "number" }).notNull().default(0),
    /** Credits the refunds and disputes called for, and the part of them that had already been spent. */
    creditsReversed: bigint("credits_reversed", { mode: "number" }).notNull().default(0),
    shortfall: bigint("shortfall", { mode: "number" }).notNull().default(0),
    disputedAt: timestamp("disputed_at", { withTimezone: true }),
    /**
     * The payment's dispute (Stripe allows one per charge): what its chargeback took from `creditsReversed`, and the
     * part of that which was `shortfall`, so that a won dispute gives back exactly what the chargeback took.
     */
    disputeId: text("dispute_id"),
    disputeStatus: text("dispute_status").$type<DisputeStatus>(),
    disputeCredits: bigint("dispute_credits", { mode: "number" }).notNull().default(0),
    disputeShortfall: bigint("dispute_shortfall", { mode: "number" }).notNull().default(0),
    /** Bought by the account's automatic top-up, off-session with its saved card, rather than through Checkout. */
    automatic: boolean("automatic").notNull().default(false),
    /** The buy form's one-time key: a double-click or a resent form finds the same order. */
    requestKey: text("request_key").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp("paid_at", { withTimezone: true }),
  },
  (t) => [
    check("credit_order_status", sql`${t.status} in (${list(ORDER_STATUSES)})`),
    check("credit_order_kind", sql`${t.kind} in (${list(ORDER_KINDS)})`),
    // A pack costs something and grants something; an invoice may be free (a trial) or grant nothing (a proration).
    check(
      "credit_order_positive",
      sql`${t.credits} >= 0 and ${t.amount} >= 0 and (${t.kind} = 'subscription' or (${t.credits} > 0 and ${t.amount} > 0 and ${t.packId} is not null))`,
    ),
    check(
      "credit_order_reversal",
      sql`${t.refundedAmount} >= 0 and ${t.shortfall} >= 0 and ${t.creditsReversed} between ${t.shortfall} and ${t.credits}`,
    ),
    check("credit_order_dispute_status", sql`${t.disputeStatus} in (${list(DISPUTE_STATUSES)})`),
    check(
      "credit_order_dispute",
      sql`${t.disputeShortfall} between 0 and ${t.disputeCredits} and ${t.disputeCredits} <= ${t.creditsReversed} and ${t.disputeShortfall} <= ${t.shortfall}`,
    ),
    uniqueIndex("credit_order_request_key_idx").on(t.userId, t.requestKey),
    index("credit_order_user_created_idx").on(t.userId, t.createdAt),
    index("credit_order_payment_intent_idx").on(t.paymentIntentId),
    index("credit_order_subscription_idx")
      .on(t.subscriptionId)
      .where(sql`${t.subscriptionId} is not null`),
    // Revenue and disputes over a period (the console's overview).
    index("credit_order_paid_idx").on(t.paidAt),
    index("credit_order_disputed_idx")
      .on(t.disputedAt)
      .where(sql`${t.disputedAt} is not null`),
  ],
);

/**
 * Provider events already applied. An event is recorded in the same transaction as its effect, so a failure
 * leaves it unrecorded and the provider's retry applies it; a repeated or concurrent delivery finds it recorded.
 */
export const paymentEvent = pgTable(
  "payment_event",
  {
    id: text("id").primaryKey(),
    provider: text("provider").notNull(),
    type: text("type").notNull(),
    orderId: uuid("order_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  // An order's events (its page in the console, its first refund in the overview); the failed renewals of a period
  // (the overview).
  (t) => [
    index("payment_event_order_idx").on(t.orderId, t.createdAt),
    index("payment_event_type_idx").on(t.type, t.createdAt),
  ],
);
