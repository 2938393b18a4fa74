import type { Job } from "pg-boss";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { SiteConfig } from "#config/site.ts";
import { purgeExpiredSessions } from "#server/modules/users/purge-expired-sessions.ts";
import { purgeRateLimits } from "#server/modules/rate-limits/purge-rate-limits.ts";
import { MAIL_QUEUE, type MailJob } from "#server/modules/mail/queue-mail.ts";
import { renderMail } from "#server/modules/mail/templates.ts";
import type { Mailer } from "#server/modules/mail/transport.ts";

export interface JobContext {
  db: Db;
  logger: Logger;
  site: SiteConfig;
  mailer: Mailer;
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
      const purged = { ...(await purgeExpiredSessions({ db })), rateLimits: await purgeRateLimits({ db }) };
      logger.info(purged, "expired sessions purged");
      return purged;
    },
  }),
  defineQueue<MailJob>({
    name: MAIL_QUEUE,
    retryLimit: 8,
    expireInSeconds: 120,
    async handle(jobs, { site, mailer }) {
      for (const job of jobs) {
        const { to, kind, locale, name, url } = job.data;
        const content = renderMail({ kind, locale, name, url, site });
        await mailer.send({ to, link: url, ...content });
      }
    },
  }),
];

export const queueNames = queues.map((q) => q.name);
