import { sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { jobTally } from "#server/db/schema/index.ts";
import { JOB_DURATION_BUCKETS, NO_DURATION, type JobOutcome } from "#server/modules/job-metrics/schema.ts";

export interface RecordJobOutcomeOptions {
  db: Db;
  queue: string;
  outcome: JobOutcome;
  /** How long the run took, or null when it ended without a measured run. */
  seconds: number | null;
  /** Jobs counted at once (a batch that ended together). */
  jobs?: number;
}

/**
 * Adds finished jobs to the installation's tally: one upsert of the row for their queue, outcome and duration
 * bucket, so processes finishing jobs at once only queue briefly behind each other on that row.
 */
export async function recordJobOutcome({ db, queue, outcome, seconds, jobs = 1 }: RecordJobOutcomeOptions) {
  const le = seconds === null ? NO_DURATION : (JOB_DURATION_BUCKETS.find((bound) => seconds <= bound) ?? Infinity);
  await db
    .insert(jobTally)
    .values({ queue, outcome, le, jobs, seconds: (seconds ?? 0) * jobs })
    .onConflictDoUpdate({
      target: [jobTally.queue, jobTally.outcome, jobTally.le],
      set: {
        jobs: sql`${jobTally.jobs} + excluded.jobs`,
        seconds: sql`${jobTally.seconds} + excluded.seconds`,
      },
    });
}
