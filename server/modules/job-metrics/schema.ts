/** How a job's run ended: done, failed with a retry to come, or failed for good. */
export type JobOutcome = "completed" | "retried" | "failed";
export const JOB_OUTCOMES: readonly JobOutcome[] = ["completed", "retried", "failed"];
export const JOB_STATES = ["queued", "retry", "active"] as const;

/**
 * Upper bounds (seconds) of the job duration histogram's buckets. A stored bucket is named by its bound, so bounds
 * may be added later: older rows then count in the smallest current bound at or above theirs.
 */
export const JOB_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800] as const;

/** The bucket of a job that ended without a measured run (pg-boss timed it out): counted, not in the histogram. */
export const NO_DURATION = -1;

/** pg-boss's own words for a job it failed because its worker went silent. */
export const TIMED_OUT_MESSAGES = ["job timed out", "job heartbeat timeout"] as const;

/** The installation's jobs as one read of the database gives them. */
export interface JobMetricsSnapshot {
  /** The installation's queues: each has every series, at 0 until something happens (an alert sees the first rise). */
  queues: string[];
  /** Jobs by queue and state: waiting to run (queued), waiting for a retry (retry), running (active). */
  depth: { queue: string; state: (typeof JOB_STATES)[number]; jobs: number }[];
  /** Finished jobs by queue, outcome and duration bucket, since the installation began counting. */
  tally: { queue: string; outcome: string; le: number; jobs: number; seconds: number }[];
}
