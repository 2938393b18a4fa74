/** The plan every account is on without a subscription; it cannot be priced or archived. */
export const FREE_PLAN_ID = "free";

/** How often a plan is billed. */
export const PLAN_INTERVALS = ["monthly", "yearly"] as const;
export type PlanInterval = (typeof PLAN_INTERVALS)[number];

/** What a plan unlocks, checked wherever it applies. */
export interface PlanUnlocks {
  /** Models (ids or tags) only this plan's subscribers may use, beyond what every account may use. */
  models: string[];
  /** Jobs one account may have running at once; null: the site's own limit. */
  concurrentJobs: number | null;
  /** Results private by default and never shown on the home page. */
  privateResults: boolean;
  /** No visible label on outputs (the machine-readable mark stays). */
  noLabel: boolean;
  /** Jobs go ahead of other plans' in the queue. */
  priority: boolean;
  /** The public APIs (`/api/v1`, `/v1`) may be used. */
  api: boolean;
}

/** What the free plan unlocks until an operator changes it: what every account could do before plans existed. */
export const FREE_UNLOCKS: PlanUnlocks = {
  models: [],
  concurrentJobs: null,
  privateResults: false,
  noLabel: false,
  priority: false,
  api: true,
};

/** A Stripe Billing subscription's states, as Stripe names them. */
export const SUBSCRIPTION_STATUSES = [
  "incomplete",
  "incomplete_expired",
  "trialing",
  "active",
  "past_due",
  "unpaid",
  "canceled",
  "paused",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** A renewal that needs the subscriber: their card was declined, or their bank asks them to confirm the payment. */
export const PAYMENT_ISSUES = ["failed", "action_required"] as const;
export type PaymentIssue = (typeof PAYMENT_ISSUES)[number];

/** What an order is for: a credit pack bought once, or a subscription's invoice. */
export const ORDER_KINDS = ["pack", "subscription"] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** The longest term an operator may give credits before they expire (ten years), in days. */
export const MAX_EXPIRY_DAYS = 3650;
