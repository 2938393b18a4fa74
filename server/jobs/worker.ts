import type { Logger } from "pino";
import type { PgBoss } from "#server/jobs/boss.ts";
import { queues, type JobContext } from "#server/jobs/queues.ts";
import { recordJob } from "#server/metrics.ts";

/** Creates the queues and cron schedules (idempotent); every process that sends or works jobs calls this. */
export async function defineQueues(boss: PgBoss): Promise<void> {
  for (const q of queues) {
    await boss.createQueue(q.name, {
      retryLimit: q.retryLimit,
      expireInSeconds: q.expireInSeconds,
      ...(q.heartbeatSeconds ? { heartbeatSeconds: q.heartbeatSeconds } : {}),
      ...(q.notify ? { notify: true } : {}),
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
      worker.id = await boss.work<object>(q.name, { pollingIntervalSeconds: 2 }, async (jobs) => {
        const started = process.hrtime.bigint();
        try {
          const result = await q.handle(jobs, { ...ctx, logger: logger.child({ queue: q.name }) });
          recordJob(q.name, "completed", started);
          return result;
        } catch (error) {
          recordJob(q.name, "failed", started);
          logger.error({ queue: q.name, err: (error as Error).message }, "job failed");
          throw error;
        } finally {
          if (worker.id) boss.notifyWorker(worker.id);
        }
      });
    }
  }
  logger.info({ queues: queues.length, concurrency }, "worker started");
}
