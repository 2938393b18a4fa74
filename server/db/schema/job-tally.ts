import { bigint, doublePrecision, pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Jobs finished across the installation, kept by Atelier because pg-boss deletes old jobs: one row per queue,
 * outcome (completed, retried, failed) and duration bucket, named by its upper bound in seconds (`Infinity` past the
 * last; -1 for jobs that ended without a measured run: those pg-boss timed out). Rows only ever grow, so the
 * exported counters never go down, whichever process reads them.
 */
export const jobTally = pgTable(
  "job_tally",
  {
    queue: text("queue").notNull(),
    outcome: text("outcome").notNull(),
    le: doublePrecision("le").notNull(),
    jobs: bigint("jobs", { mode: "number" }).notNull(),
    seconds: doublePrecision("seconds").notNull(),
  },
  (t) => [primaryKey({ columns: [t.queue, t.outcome, t.le] })],
);

/**
 * How far the jobs pg-boss itself failed for good (their worker went silent past the expiry or heartbeat) have
 * been counted into `job_tally`: one row, moved forward by whichever process counts next.
 */
export const jobTallyMark = pgTable("job_tally_mark", {
  id: smallint("id").primaryKey(),
  countedUntil: timestamp("counted_until", { withTimezone: true }).notNull(),
});
