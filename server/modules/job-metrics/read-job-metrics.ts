import { sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { jobTally } from "#server/db/schema/index.ts";
import { rowsOf } from "#server/db/rows-of.ts";
import type { JobMetricsSnapshot } from "#server/modules/job-metrics/schema.ts";
import { countTimedOutJobs } from "#server/modules/job-metrics/count-timed-out-jobs.ts";

const STATES = { created: "queued", retry: "retry", active: "active" } as const;

/**
 * The installation's job figures: what waits and runs now, read from pg-boss's job table, and the jobs finished so
 * far, read from Atelier's tally (after adding the ones pg-boss failed on its own since the last read).
 */
export async function readJobMetrics({ db }: { db: Db }): Promise<JobMetricsSnapshot> {
  await countTimedOutJobs({ db });
  // The queues (pg-boss's own internal ones left out) and the unfinished jobs, in one round trip.
  const rows = rowsOf<{ queue: string; state: keyof typeof STATES | null; jobs: number }>(
    await db.execute(sql`
      select name as queue, null as state, 0 as jobs from pgboss.queue where not starts_with(name, '__pgboss__')
      union all
      select name, state::text, count(*)::int
      from pgboss.job
      where state in ('created', 'retry', 'active') and not starts_with(name, '__pgboss__')
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
    queues: rows.filter((row) => row.state === null).map((row) => row.queue),
    depth: rows.flatMap((row) =>
      row.state ? [{ queue: row.queue, state: STATES[row.state], jobs: Number(row.jobs) }] : [],
    ),
    tally: tally.map((row) => ({ ...row, jobs: Number(row.jobs), le: Number(row.le), seconds: Number(row.seconds) })),
  };
}
