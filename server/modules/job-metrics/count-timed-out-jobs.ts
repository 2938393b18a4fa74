import { sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { NO_DURATION, TIMED_OUT_MESSAGES } from "#server/modules/job-metrics/schema.ts";
import { rowsOf } from "#server/db/rows-of.ts";

/**
 * How long after pg-boss fails a job it is counted: the failure's time is its transaction's start, so a moment must
 * pass before no transaction still to commit can carry an earlier time.
 */
const SETTLE = sql`interval '30 seconds'`;
/** How often the count runs at most, whichever processes read. */
const INTERVAL = sql`interval '30 seconds'`;
const MARK_LOCK = sql`hashtext('job_tally_mark')`;

/**
 * Adds to the tally, as failed, the jobs pg-boss failed for good on its own since the last count: their worker went
 * silent past the job's expiry or heartbeat (killed, cut off), so no handler was there to count them. pg-boss keeps
 * failed jobs for days (their deletion delay), far longer than between two reads; a mark in the database says how far
 * the count has gone, so each such job is counted once whichever process reads. A process that finds another one
 * counting leaves it the work. A failure is counted between 30 s and about a minute and a half after it happened.
 */
export async function countTimedOutJobs({ db }: { db: Db }): Promise<void> {
  await db.transaction(async (tx) => {
    const [lock] = rowsOf<{ locked: boolean }>(
      await tx.execute(sql`select pg_try_advisory_xact_lock(${MARK_LOCK}) as locked`),
    );
    if (!lock?.locked) return;
    // The first count starts now: failures from before the tally existed are history, not news.
    await tx.execute(sql`insert into job_tally_mark (id, counted_until) values (1, now()) on conflict do nothing`);
    // At most once per interval for the whole installation: the scan reads pg-boss's table without an index to help.
    const [span] = rowsOf<{ since: string; until: string }>(
      await tx.execute(sql`
        update job_tally_mark m set counted_until = now() - ${SETTLE}
        from (select counted_until as since from job_tally_mark where id = 1) old
        where m.id = 1 and old.since < now() - ${SETTLE} - ${INTERVAL}
        returning old.since::text as since, m.counted_until::text as until`),
    );
    if (!span) return;
    await tx.execute(sql`
      insert into job_tally (queue, outcome, le, jobs, seconds)
      select name, 'failed', ${NO_DURATION}::float8, count(*), 0
      from pgboss.job
      where state = 'failed'
        and completed_on > ${span.since}::timestamptz and completed_on <= ${span.until}::timestamptz
        and output -> 'value' ->> 'message' in (${sql.join(
          TIMED_OUT_MESSAGES.map((m) => sql`${m}`),
          sql`, `,
        )})
      group by name
      on conflict (queue, outcome, le) do update set jobs = job_tally.jobs + excluded.jobs`);
  });
}
