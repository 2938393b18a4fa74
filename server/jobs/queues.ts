import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import type { Job } from "pg-boss";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { SiteConfig } from "#config/site.ts";
import { purgeExpiredSessions } from "#server/modules/users/purge-expired-sessions.ts";
import { purgeRateLimits } from "#server/modules/rate-limits/purge-rate-limits.ts";
import { purgeIdempotencyKeys } from "#server/modules/api-keys/idempotency.ts";
import { purgeApiConversations } from "#server/modules/chat/conversations.ts";
import type { MediaLinks } from "#server/modules/generation/media-links.ts";
import { MAIL_QUEUE, type MailJob } from "#server/modules/mail/queue-mail.ts";
import { renderMail } from "#server/modules/mail/templates.ts";
import type { Mailer } from "#server/modules/mail/transport.ts";
import type { Env } from "#server/env.ts";
import type { Storage } from "#server/storage/storage.ts";
import {
  GENERATION_QUEUE,
  GENERATION_SWEEP_QUEUE,
  HEARTBEAT_SECONDS,
  MAX_RUNS,
  type GenerationJob,
} from "#server/modules/generation/queue.ts";
import { runGeneration } from "#server/modules/generation/run-generation.ts";
import { sweepGenerations } from "#server/modules/generation/sweep-generations.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_QUEUE, type WebhookJob } from "#server/modules/webhooks/queue-webhook.ts";
import { deliverWebhook, expireWebhookDeliveries } from "#server/modules/webhooks/deliver-webhook.ts";
import { presentGeneration } from "#server/api/v1/present.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { AppError } from "#server/errors.ts";
import { MODEL_CHECK_QUEUE, runModelCheck, type ModelCheckJob } from "#server/modules/generation/model-checks.ts";
import { sweepAnswers } from "#server/modules/chat/answer.ts";
import { expireCredits } from "#server/modules/credits/expire-credits.ts";
import { siteWithSettings, type SettingsStore } from "#server/modules/settings/settings-store.ts";
import {
  runTopUp,
  scanTopUps,
  TOPUP_QUEUE,
  TOPUP_SCAN_QUEUE,
  type TopUpJob,
} from "#server/modules/billing/auto-topup.ts";
import { createStripeClient, type StripeClient } from "#server/modules/payments/stripe-client.ts";

export interface JobContext {
  db: Db;
  boss: PgBoss;
  logger: Logger;
  site: SiteConfig;
  mailer: Mailer;
  env: Env;
  storage: Storage;
  /** Signs the links to private files that webhooks send. */
  mediaLinks: MediaLinks;
  /** The models and the connections they run on. */
  models: ModelRegistry;
  /** The console's settings (the visible label on outputs). */
  settings?: Pick<SettingsStore, "current">;
}

export interface QueueDefinition<T extends object = object> {
  name: string;
  /** Standard cron, UTC. */
  cron?: string;
  retryLimit: number;
  expireInSeconds: number;
  /** Workers prove they are alive this often; a job whose worker went silent is retried. */
  heartbeatSeconds?: number;
  /** Wake workers the moment a job is sent (LISTEN/NOTIFY) instead of at their next poll. */
  notify?: boolean;
  /** pg-boss's `short` policy: one job waits per singleton key; sending another while it waits adds nothing. */
  policy?: "short";
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
      const purged = {
        ...(await purgeExpiredSessions({ db })),
        rateLimits: await purgeRateLimits({ db }),
        idempotencyKeys: await purgeIdempotencyKeys({ db }),
        apiConversations: await purgeApiConversations({ db }),
        webhooksGivenUp: await expireWebhookDeliveries({ db }),
      };
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
        const { to, kind, locale, name, url, id, values } = job.data;
        const content = renderMail({ kind, locale, name, url, site, values });
        await mailer.send({ to, link: url, id: id ?? job.id, ...content });
      }
    },
  }),
];

queues.push(
  defineQueue<GenerationJob>({
    name: GENERATION_QUEUE,
    retryLimit: MAX_RUNS - 1,
    expireInSeconds: 1800,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    notify: true,
    async handle(jobs, { db, boss, env, storage, logger, models, settings }) {
      for (const job of jobs) {
        await runGeneration(
          { db, boss, env, storage, logger, models, settings },
          { generationId: job.data.generationId, signal: job.signal },
        );
      }
    },
  }),
  defineQueue({
    name: GENERATION_SWEEP_QUEUE,
    cron: "* * * * *",
    retryLimit: 0,
    expireInSeconds: 120,
    async handle(_jobs, { db, boss, env, logger }) {
      const swept = await sweepGenerations({ db, boss, env, marginSeconds: env.GENERATION_SWEEP_MARGIN_SECONDS });
      if (swept.failed || swept.settled || swept.attemptsClosed) logger.warn(swept, "stale generations ended");
      return swept;
    },
  }),
);

queues.push(
  defineQueue<WebhookJob>({
    name: WEBHOOK_QUEUE,
    retryLimit: WEBHOOK_MAX_ATTEMPTS - 1,
    expireInSeconds: 60,
    // Polled every 2 s rather than woken by NOTIFY: a notified worker falls back to a 30 s poll, which would
    // stretch the first retries (a NOTIFY comes only when a job is sent, not when a retry falls due)
    async handle(jobs, { db, env, site, logger, mediaLinks }) {
      const origin = new URL(site.url).origin;
      for (const job of jobs) {
        await deliverWebhook(
          {
            db,
            env,
            logger,
            // The body is the generation exactly as the public API returns it
            async describe({ generationId, userId }) {
              const view = await getGeneration({ db, env, id: generationId, viewerId: userId }).catch((error) => {
                if (error instanceof AppError && error.code === "not_found") return null;
                throw error;
              });
              return view ? presentGeneration(view, origin, mediaLinks) : null;
            },
          },
          { deliveryId: job.data.deliveryId, signal: job.signal },
        );
      }
    },
  }),
);

queues.push(
  // A model's health test, asked for in the console: one real generation on one provider (see model-checks.ts).
  defineQueue<ModelCheckJob>({
    name: MODEL_CHECK_QUEUE,
    retryLimit: 0,
    expireInSeconds: 1020,
    notify: true,
    async handle(jobs, { db, models, logger }) {
      for (const job of jobs)
        await runModelCheck({ db, models, logger }, { checkId: job.data.checkId, signal: job.signal });
    },
  }),
);

queues.push(
  // Chat answers whose process died while writing them: ended, their credits released (see answer.ts).
  defineQueue({
    name: "chat.sweep",
    cron: "* * * * *",
    retryLimit: 0,
    expireInSeconds: 120,
    async handle(_jobs, { db, logger }) {
      const swept = await sweepAnswers({ db });
      if (swept.ended) logger.warn(swept, "interrupted chat answers ended");
      return swept;
    },
  }),
  // Credits whose lot expired (a period's end, a pack's or a bonus's term): taken from the balance, as ledger entries.
  defineQueue({
    name: "credits.expire",
    cron: "5 * * * *",
    retryLimit: 2,
    expireInSeconds: 600,
    async handle(_jobs, { db, logger }) {
      const done = await expireCredits({ db });
      if (done.accounts > 0) logger.info(done, "credits expired");
      return done;
    },
  }),
  // Automatic top-up: one account's purchase (queued when a job's hold left it below its threshold, one at a time per
  // account), and a look each minute for accounts that fell below theirs some other way.
  defineQueue<TopUpJob>({
    name: TOPUP_QUEUE,
    policy: "short",
    notify: true,
    retryLimit: 5,
    expireInSeconds: 120,
    async handle(jobs, { db, boss, logger, site, env, settings }) {
      const stripe = await stripeOf(env);
      const current = settings?.current();
      for (const job of jobs) {
        const outcome = await runTopUp({
          db,
          stripe,
          boss,
          logger,
          site: current ? siteWithSettings(site, current) : site,
          userId: job.data.userId,
          packExpiryDays: current?.billing.packExpiryDays ?? 0,
        });
        logger.info({ userId: job.data.userId, outcome }, "automatic top-up");
      }
    },
  }),
  defineQueue({
    name: TOPUP_SCAN_QUEUE,
    cron: "* * * * *",
    retryLimit: 0,
    expireInSeconds: 60,
    async handle(_jobs, { db, boss }) {
      return { queued: await scanTopUps({ db, boss }) };
    },
  }),
);

const stripeClients = new WeakMap<Env, Promise<StripeClient | null>>();
/** One Stripe client per environment, made on first need. */
function stripeOf(env: Env): Promise<StripeClient | null> {
  let client = stripeClients.get(env);
  if (!client) stripeClients.set(env, (client = createStripeClient(env)));
  return client;
}
