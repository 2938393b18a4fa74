import type { Job } from "pg-boss";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { purgeExpiredSessions } from "#server/modules/users/purge-expired-sessions.ts";

export interface JobContext {
  db: Db;
  logger: Logger;
}

export interface QueueDefinition<T extends object = object> {
  name: string;
  /** Standard cron, UTC. */
  cron?: string;
  retryLimit: number;
  expireInSeconds: number;
  handle(jobs: Job<T>[], ctx: JobContext): Promise<unknown>;
}

function defineQueue<T extends object>(queue: QueueDefinition<T>): QueueDefinition {
  return queue as unknown as QueueDefinition;
}

export const queues: QueueDefinition[] = [
  defineQueue({
    name: "maintenance.purge-expired-sessions",
    cron: "17 * * * *",
    retryLimit: 3,
    expireInSeconds: 300,
    async handle(_jobs, { db, logger }) {
      const purged = await purgeExpiredSessions({ db });
      logger.info(purged, "expired sessions purged");
      return purged;
    },
  }),
];

export const queueNames = queues.map((q) => q.name);
