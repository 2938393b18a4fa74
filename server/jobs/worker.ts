import type { Logger } from "pino";
import type { PgBoss } from "#server/jobs/boss.ts";
import { queues, type JobContext } from "#server/jobs/queues.ts";
import type { JobWithMetadata } from "pg-boss";
import { recordJob } from "#server/metrics.ts";
import { recordJobOutcome } from "#server/modules/job-metrics/record-job-outcome.ts";
import { TIMED_OUT_MESSAGES, type JobOutcome } from "#server/modules/job-metrics/schema.ts";

function elapsedSeconds(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Whether the job's previous run was ended by pg-boss's timeout (its output then holds pg-boss's message). */
function timedOutBefore(job: JobWithMetadata<object>): boolean {
  const message = (job.output as { value?: { message?: unknown } } | null)?.value?.message;
  return job.retryCount > 0 && (TIMED_OUT_MESSAGES as readonly unknown[]).includes(message);
}

/** Creates the queues and cron schedules (idempotent); every process that sends or works jobs calls this. */
export async function defineQueues(boss: PgBoss): Promise<void> {
  for (const q of queues) {
    await boss.createQueue(q.name, {
      retryLimit: q.retryLimit,
      expireInSeconds: q.expireInSeconds,
      ...(q.heartbeatSeconds ? { heartbeatSeconds: q.heartbeatSeconds } : {}),
      ...(q.notify ? { notify: true } : {}),
      ...(q.policy ? { policy: q.policy } : {}),
    });
    if (q.cron) await boss.schedule(q.name, q.cron, {}, { tz: "UTC" });
  }
}

/**
 * Subscribes this process to every queue, with `concurrency` workers per queue.
 *
 * A worker that has just finished a job fetches again at once, so a backlog drains at full speed; only a fetch that
 * finds nothing lets it wait — for the NOTIFY that a job arrived, or pg-boss's polling backstop. Without this, a
 * worker on a notify-enabled queue would sleep out the 30 s backstop between jobs of a backlog, since a NOTIFY only
 * comes when a job is sent. One work() call per worker gives each handler its own worker id to wake.
 */
export async function startWorking(boss: PgBoss, ctx: JobContext, concurrency: number, logger: Logger) {
  for (const q of queues) {
    for (let i = 0; i < concurrency; i++) {
      const worker = { id: "" };
      worker.id = await boss.work(
        q.name,
        { pollingIntervalSeconds: 2, includeMetadata: true },
        async (jobs: JobWithMetadata<object>[]) => {
          const started = process.hrtime.bigint();
          // Written before the run is handed back to pg-boss, so a graceful stop waits for it like for the job. The
          // tally is a figure for operators: a database error writing it is logged, never the job's failure.
          const tally = async (outcome: JobOutcome, batch: JobWithMetadata<object>[], seconds: number | null) => {
            if (batch.length === 0) return;
            await recordJobOutcome({ db: ctx.db, queue: q.name, outcome, seconds, jobs: batch.length }).catch(
              (error: Error) => logger.warn({ queue: q.name, err: error.message }, "job tally not written"),
            );
          };
          // A job whose previous run pg-boss timed out (its worker killed or silent) was retried with no handler to
          // count it: it is counted now, when it runs again.
          await tally("retried", jobs.filter(timedOutBefore), null);
          try {
            const result = await q.handle(jobs, { ...ctx, logger: logger.child({ queue: q.name }) });
            recordJob(q.name, "completed", started);
            await tally("completed", jobs, elapsedSeconds(started));
            return result;
          } catch (error) {
            recordJob(q.name, "failed", started);
            const seconds = elapsedSeconds(started);
            await tally(
              "retried",
              jobs.filter((job) => job.retryCount < job.retryLimit),
              seconds,
            );
            await tally(
              "failed",
              jobs.filter((job) => job.retryCount >= job.retryLimit),
              seconds,
            );
            logger.error({ queue: q.name, err: (error as Error).message }, "job failed");
            throw error;
          } finally {
            if (worker.id) boss.notifyWorker(worker.id);
          }
        },
      );
    }
  }
  logger.info({ queues: queues.length, concurrency }, "worker started");
}
