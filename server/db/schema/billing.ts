import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { Locale } from "#common/locales.ts";
import {
  PAYMENT_ISSUES,
  PLAN_INTERVALS,
  SUBSCRIPTION_STATUSES,
  type PaymentIssue,
  type PlanInterval,
  type PlanUnlocks,
  type SubscriptionStatus,
} from "#common/plans.ts";
import { user } from "./auth.ts";
import { list } from "./sql-list.ts";

/**
 * A plan an operator sells by subscription (or the free one every account is on): its prices per currency and
 * interval (minor units), the credits each period grants and how many roll over, and what it unlocks. Archived plans
 * are sold no more; their subscribers keep them.
 */
export const plan = pgTable(
  "plan",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    names: jsonb("names").$type<Partial<Record<Locale, string>>>().notNull().default({}),
    description: jsonb("description").$type<Partial<Record<Locale, string>>>().notNull().default({}),
    /** Per interval, per currency (lower case): the amount in the currency's minor units. */
    monthly: jsonb("monthly").$type<Record<string, number>>().notNull().default({}),
    yearly: jsonb("yearly").$type<Record<string, number>>().notNull().default({}),
    /** Credits granted each month: with each monthly invoice, twelve months' with a yearly one. */
    credits: integer("credits").notNull().default(0),
    /** At most this many unused credits carry over to the next period; 0: none. */
    rollover: integer("rollover").notNull().default(0),
    unlocks: jsonb("unlocks").$type<PlanUnlocks>().notNull(),
    trialDays: integer("trial_days").notNull().default(0),
    /** The product a plan change prices its new item on at Stripe, made on the first change to this plan. */
    stripeProductId: text("stripe_product_id"),
    position: integer("position").notNull().default(0),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("plan_id", sql`${t.id} ~ '^[a-z0-9-]{1,32}$'`),
    check("plan_credits", sql`${t.credits} >= 0 and ${t.rollover} >= 0 and ${t.trialDays} between 0 and 365`),
  ],
);

/**
 * An account's Stripe Billing subscription to a plan, as Stripe's events last described it. The plan's entitlements
 * apply while it is active or trialing, and through the grace period after a failed renewal; its credits are granted
 * per paid invoice (a `credit_order` of kind `subscription`), not here.
 */
export const subscription = pgTable(
  "subscription",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    planId: text("plan_id")
      .notNull()
      .references(() => plan.id),
    interval: text("interval").$type<PlanInterval>().notNull(),
    status: text("status").$type<SubscriptionStatus>().notNull(),
    stripeSubscriptionId: text("stripe_subscription_id").notNull().unique(),
    stripeCustomerId: text("stripe_customer_id").notNull(),
    /** The price per period, in the currency's minor units. */
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    currentPeriodStart: timestamp("current_period_start", { withTimezone: true }).notNull(),
    currentPeriodEnd: timestamp("current_period_end", { withTimezone: true }).notNull(),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    /** A downgrade waiting for the period's end: the plan the next renewal bills and grants. */
    nextPlanId: text("next_plan_id"),
    trialEnd: timestamp("trial_end", { withTimezone: true }),
    /** The last renewal's trouble while it lasts; cleared when an invoice is paid. */
    paymentIssue: text("payment_issue").$type<PaymentIssue>(),
    /** Until when a failed renewal keeps the plan's entitlements (the operator's grace period from the failure). */
    graceUntil: timestamp("grace_until", { withTimezone: true }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /** Stripe's time of the event last applied: an older event arriving late does not undo a newer one. */
    stripeUpdatedAt: timestamp("stripe_updated_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("subscription_interval", sql`${t.interval} in (${list(PLAN_INTERVALS)})`),
    check("subscription_status", sql`${t.status} in (${list(SUBSCRIPTION_STATUSES)})`),
    check("subscription_payment_issue", sql`${t.paymentIssue} in (${list(PAYMENT_ISSUES)})`),
    index("subscription_user_idx").on(t.userId, t.createdAt),
    index("subscription_customer_idx").on(t.stripeCustomerId),
  ],
);

/** An account's customer at Stripe, made once on its first subscription and used for every later one and the portal. */
export const billingCustomer = pgTable("billing_customer", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  stripeCustomerId: text("stripe_customer_id").notNull().unique(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * What the account's invoices and receipts carry, as last accepted by Stripe (saved on the orders page, or entered
 * in Checkout and told by a `customer.updated` event). `stripeAt` is the time (whole seconds, as Stripe's events
 * have it) of the last change applied, so an older event delivered late changes nothing.
 */
export const billingDetails = pgTable("billing_details", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  name: text("name").notNull().default(""),
  line1: text("line1").notNull().default(""),
  line2: text("line2").notNull().default(""),
  city: text("city").notNull().default(""),
  postalCode: text("postal_code").notNull().default(""),
  state: text("state").notNull().default(""),
  country: text("country").notNull().default(""),
  taxIdType: text("tax_id_type").notNull().default(""),
  taxIdValue: text("tax_id_value").notNull().default(""),
  stripeAt: timestamp("stripe_at", { withTimezone: true }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Why automatic top-up stopped by itself: the card was declined, or its bank wanted the holder there to confirm. */
export const TOPUP_STOPS = ["declined", "authentication_required", "failed"] as const;
export type TopUpStop = (typeof TOPUP_STOPS)[number];

/**
 * An account's automatic top-up: when its available credits fall below `threshold`, buy `packId` with the card saved
 * for it (an off-session payment), at most once an hour and `monthlyMax` times a calendar month (UTC). A failed
 * charge turns it off and says why.
 */
export const autoTopUp = pgTable(
  "auto_topup",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    enabled: boolean("enabled").notNull().default(false),
    threshold: integer("threshold").notNull(),
    packId: text("pack_id").notNull(),
    monthlyMax: integer("monthly_max").notNull(),
    /** The card saved at Stripe for it (Checkout in setup mode), and what the page shows of it. */
    paymentMethodId: text("payment_method_id"),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    lastFiredAt: timestamp("last_fired_at", { withTimezone: true }),
    stoppedReason: text("stopped_reason").$type<TopUpStop>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("auto_topup_limits", sql`${t.threshold} >= 0 and ${t.monthlyMax} between 1 and 100`),
    check("auto_topup_stopped", sql`${t.stoppedReason} in (${list(TOPUP_STOPS)})`),
    check("auto_topup_card", sql`not ${t.enabled} or ${t.paymentMethodId} is not null`),
    index("auto_topup_enabled_idx")
      .on(t.userId)
      .where(sql`${t.enabled}`),
  ],
);
