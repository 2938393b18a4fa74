import type { Env } from "#server/env.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { sendInTx, warmQueue } from "#server/jobs/send-in-tx.ts";
import { webhookDelivery, type WebhookEvent } from "#server/db/schema/index.ts";
import type { Tx } from "#server/modules/credits/ledger.ts";

export const WEBHOOK_QUEUE = "webhook.deliver";

export interface WebhookJob {
  deliveryId: string;
}

/** Attempts per message: the first and eleven retries, waits doubling from WEBHOOK_RETRY_DELAY_SECONDS. */
export const WEBHOOK_MAX_ATTEMPTS = 12;
/** The longest wait between two attempts. */
export const WEBHOOK_MAX_DELAY_SECONDS = 3600;
/** A message still not delivered after this long is given up, whatever happened to its job. */
export const WEBHOOK_GIVE_UP_HOURS = 24;

/** What ending a generation needs to announce it: the queue, and the retry timing from the configuration. */
export interface WebhookSender {
  boss: PgBoss;
  env: Pick<Env, "WEBHOOK_RETRY_DELAY_SECONDS">;
}

/**
 * In the transaction that ends a generation: when its request named a webhook URL (`url`, as the statement that
 * ended it returned it), records the message and enqueues its delivery, so a generation that ended has its message
 * and one that did not end has none. Call warmWebhookQueue before the transaction.
 */
export async function queueWebhookInTx(
  tx: Tx,
  s: WebhookSender,
  options: { generationId: string; userId: string; url: string | null; event: WebhookEvent },
): Promise<void> {
  if (!options.url) return;
  const [delivery] = await tx
    .insert(webhookDelivery)
    .values({ userId: options.userId, generationId: options.generationId, event: options.event, url: options.url })
    .onConflictDoNothing()
    .returning({ id: webhookDelivery.id });
  if (!delivery) return;
  await sendInTx(s.boss, tx, WEBHOOK_QUEUE, { deliveryId: delivery.id } satisfies WebhookJob, {
    id: delivery.id,
    retryLimit: WEBHOOK_MAX_ATTEMPTS - 1,
    retryDelay: s.env.WEBHOOK_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    retryDelayMax: WEBHOOK_MAX_DELAY_SECONDS,
    expireInSeconds: 60,
  });
}

export const warmWebhookQueue = (boss: PgBoss) => warmQueue(boss, WEBHOOK_QUEUE);
