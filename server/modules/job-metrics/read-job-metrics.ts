import { sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { jobTally } from "#server/db/schema/index.ts";
import { rowsOf, type JobMetricsSnapshot } from "#server/modules/job-metrics/schema.ts";
import { countTimedOutJobs } from "#server/modules/job-metrics/count-timed-out-jobs.ts";

const STATES = { created: "queued", retry: "retry", active: "active" } as const;

/**
 * The installation's job figures: what waits and runs now, read from pg-boss's job table, and the jobs finished so
 * far, read from Atelier's tally (after adding the ones pg-boss failed on its own since the last read).
 */
export async function readJobMetrics({ db }: { db: Db }): Promise<JobMetricsSnapshot> {
  await countTimedOutJobs({ db });
  const depth = rowsOf<{ queue: string; state: keyof typeof STATES; jobs: number }>(
    await db.execute(sql`
      select name as queue, state::text as state, count(*)::int as jobs
      from pgboss.job
      where state in ('created', 'retry', 'active')
      group by name, state`),
  );
  const tally = await db
    .select({
      queue: jobTally.queue,
      outcome: jobTally.outcome,
      le: jobTally.le,
      jobs: jobTally.jobs,
      seconds: jobTally.seconds,
    })
    .from(jobTally);
  return {
    depth: depth.map((row) => ({ queue: row.queue, state: STATES[row.state], jobs: Number(row.jobs) })),
    tally: tally.map((row) => ({ ...row, jobs: Number(row.jobs), le: Number(row.le), seconds: Number(row.seconds) })),
  };
}
