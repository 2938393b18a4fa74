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
