import { sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { rowsOf } from "#server/modules/job-metrics/schema.ts";
import { NO_DURATION, TIMED_OUT_MESSAGES } from "#server/modules/job-metrics/schema.ts";

/**
 * How long after pg-boss fails a job it is counted: the failure's time is its transaction's start, so a moment must
 * pass before no transaction still to commit can carry an earlier time.
 */
const SETTLE = sql`interval '30 seconds'`;
const MARK_LOCK = sql`hashtext('job_tally_mark')`;

/**
 * Adds to the tally, as failed, the jobs pg-boss failed for good on its own since the last count: their worker went
 * silent past the job's expiry or heartbeat (killed, cut off), so no handler was there to count them. pg-boss keeps
 * failed jobs for days (their deletion delay), far longer than between two reads; a mark in the database says how far
 * the count has gone, so each such job is counted once whichever process reads. A process that finds another one
 * counting leaves it the work.
 */
export async function countTimedOutJobs({ db }: { db: Db }): Promise<void> {
  await db.transaction(async (tx) => {
    const [lock] = rowsOf<{ locked: boolean }>(
      await tx.execute(sql`select pg_try_advisory_xact_lock(${MARK_LOCK}) as locked`),
    );
    if (!lock?.locked) return;
    // The first count starts now: failures from before the tally existed are history, not news.
    await tx.execute(sql`insert into job_tally_mark (id, counted_until) values (1, now()) on conflict do nothing`);
    await tx.execute(sql`
      with span as (
        select counted_until as since, now() - ${SETTLE} as until from job_tally_mark where id = 1
      ), moved as (
        update job_tally_mark set counted_until = span.until from span where id = 1 and span.until > span.since
        returning span.since, span.until
      ), failed as (
        select j.name as queue, count(*) as jobs
        from pgboss.job j, moved
        where j.state = 'failed'
          and j.completed_on > moved.since and j.completed_on <= moved.until
          and j.output -> 'value' ->> 'message' in (${sql.join(
            TIMED_OUT_MESSAGES.map((m) => sql`${m}`),
            sql`, `,
          )})
        group by j.name
      )
      insert into job_tally (queue, outcome, le, jobs, seconds)
      select queue, 'failed', ${NO_DURATION}::float8, jobs, 0 from failed
      on conflict (queue, outcome, le) do update set jobs = job_tally.jobs + excluded.jobs`);
  });
}
