import type { Logger } from "pino";
import type { PgBoss } from "#server/jobs/boss.ts";
import { queues, type JobContext } from "#server/jobs/queues.ts";
import { recordJob } from "#server/http/metrics.ts";

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

/** Subscribes this process to every queue. */
export async function startWorking(boss: PgBoss, ctx: JobContext, concurrency: number, logger: Logger) {
  for (const q of queues) {
    await boss.work<object>(q.name, { localConcurrency: concurrency, pollingIntervalSeconds: 2 }, async (jobs) => {
      const started = process.hrtime.bigint();
      try {
        const result = await q.handle(jobs, { ...ctx, logger: logger.child({ queue: q.name }) });
        recordJob(q.name, "completed", started);
        return result;
      } catch (error) {
        recordJob(q.name, "failed", started);
        logger.error({ queue: q.name, err: (error as Error).message }, "job failed");
        throw error;
      }
    });
  }
  logger.info({ queues: queues.length, concurrency }, "worker started");
}
