import { and, eq, lt, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import { webhookDelivery, type WebhookFailure } from "#server/db/schema/index.ts";
import {
  checkOutboundUrl,
  openOutbound,
  OutboundError,
  resolveOutbound,
  type OutboundPolicy,
} from "#server/net/outbound.ts";
import { signingSecrets } from "./secret.ts";
import { signWebhook } from "./sign.ts";
import { webhookPolicy } from "./webhook-url.ts";
import { WEBHOOK_GIVE_UP_HOURS, WEBHOOK_MAX_ATTEMPTS } from "./queue-webhook.ts";

/** How long a receiver has to answer. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

export interface DeliverDeps {
  db: Db;
  env: Pick<Env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS">;
  logger: Logger;
  /** The generation as the public API shows it to its owner; null when it no longer exists. */
  describe(o: { generationId: string; userId: string }): Promise<object | null>;
}

/** Thrown so the queue tries again later (with backoff). */
export class WebhookRetry extends Error {}

/**
 * One attempt at a webhook message: signed POST of the stored body; a 2xx answer delivers it. An address the policy
 * refuses (a private one, resolved now) ends the message at once: asking again would be refused again. Anything
 * else is recorded and, until the attempts run out, thrown as WebhookRetry for the queue's next try. Safe to run
 * twice: a delivered or failed message is not sent again (a receiver that got one twice tells by `webhook-id`).
 */
export async function deliverWebhook(deps: DeliverDeps, options: { deliveryId: string; signal?: AbortSignal }) {
  const { db } = deps;
  const [d] = await db
    .select()
    .from(webhookDelivery)
    .where(and(eq(webhookDelivery.id, options.deliveryId), eq(webhookDelivery.status, "pending")));
  if (!d) return;
  const log = deps.logger.child({ deliveryId: d.id, generationId: d.generationId });

  let body = d.payload;
  if (body === null) {
    const data = d.generationId ? await deps.describe({ generationId: d.generationId, userId: d.userId }) : null;
    if (!data) {
      await record(db, d.id, { outcome: "failed", error: "gone" });
      log.info("webhook not sent: the generation was deleted first");
      return;
    }
    const payload = JSON.stringify({ type: d.event, timestamp: d.createdAt.toISOString(), data });
    // Two attempts at once agree on the first body stored
    const [row] = await db
      .update(webhookDelivery)
      .set({ payload: sql`coalesce(${webhookDelivery.payload}, ${payload})` })
      .where(eq(webhookDelivery.id, d.id))
      .returning({ payload: webhookDelivery.payload });
    body = row!.payload!;
  }

  const timestamp = Math.floor(Date.now() / 1000);
  const signature = signWebhook({
    id: d.id,
    timestamp,
    body,
    secrets: await signingSecrets({ db, userId: d.userId }),
  });
  const answer = await post(d.url, webhookPolicy(deps.env), {
    headers: {
      "content-type": "application/json",
      "user-agent": "Atelier-Webhooks/1",
      "webhook-id": d.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signature,
    },
    body,
    signal: options.signal,
  });
  if (answer.ok) {
    await record(db, d.id, { outcome: "delivered", statusCode: answer.statusCode });
    log.info({ status: answer.statusCode }, "webhook delivered");
    return;
  }
  if (answer.error === "refused") {
    // The user's own URL, refused by design: theirs to change, not a failure of this server.
    if ((await record(db, d.id, { outcome: "refused" })) !== null)
      log.info({ detail: answer.detail }, "webhook not sent: the address is not allowed");
    return;
  }
  const attempts = await record(db, d.id, {
    outcome: "attempt-failed",
    statusCode: answer.statusCode,
    error: answer.error,
  });
  if (attempts === null) return;
  log.warn({ status: answer.statusCode, error: answer.error, detail: answer.detail, attempts }, "webhook not accepted");
  if (attempts < WEBHOOK_MAX_ATTEMPTS) throw new WebhookRetry(`attempt ${attempts} failed: ${answer.error}`);
}

type Answer =
  { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: WebhookFailure; detail: string };

async function post(
  rawUrl: string,
  policy: OutboundPolicy,
  r: { headers: Record<string, string>; body: string; signal?: AbortSignal },
): Promise<Answer> {
  const deadline = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
  const signal = r.signal ? AbortSignal.any([r.signal, deadline]) : deadline;
  try {
    const url = checkOutboundUrl(rawUrl, policy);
    const target = await resolveOutbound(url, policy, signal);
    const response = await openOutbound(url, target, { method: "POST", headers: r.headers, body: r.body, signal });
    // The answer's body is of no use: not read, not kept
    response.destroy();
    const statusCode = response.statusCode ?? 0;
    if (statusCode >= 200 && statusCode <= 299) return { ok: true, statusCode };
    const redirect = statusCode >= 300 && statusCode <= 399;
    return { ok: false, statusCode, error: redirect ? "redirect" : "status", detail: `answered ${statusCode}` };
  } catch (error) {
    if (r.signal?.aborted) throw r.signal.reason;
    const detail = error instanceof Error ? error.message : String(error);
    if (error instanceof OutboundError && error.refused)
      return { ok: false, statusCode: null, error: "refused", detail };
    if (deadline.aborted) return { ok: false, statusCode: null, error: "timeout", detail };
    return { ok: false, statusCode: null, error: "unreachable", detail };
  }
}

/**
 * Records an attempt on a pending message; returns the attempts made so far, or null when the message was no
 * longer pending. The last allowed attempt that fails fails the message.
 */
async function record(
  db: Db,
  id: string,
  r:
    | { outcome: "delivered"; statusCode: number }
    | { outcome: "attempt-failed"; statusCode: number | null; error: WebhookFailure }
    | { outcome: "refused" }
    | { outcome: "failed"; error: WebhookFailure },
): Promise<number | null> {
  const attempts = sql`${webhookDelivery.attempts} + ${r.outcome === "failed" ? 0 : 1}`;
  const lastError: WebhookFailure | null =
    r.outcome === "delivered" ? null : r.outcome === "refused" ? "refused" : r.error;
  const [row] = await db
    .update(webhookDelivery)
    .set({
      attempts,
      status:
        r.outcome === "delivered"
          ? "delivered"
          : r.outcome === "failed" || r.outcome === "refused"
            ? "failed"
            : sql`case when ${attempts} >= ${WEBHOOK_MAX_ATTEMPTS} then 'failed' else 'pending' end`,
      lastStatusCode: "statusCode" in r ? r.statusCode : null,
      lastError,
      ...(r.outcome === "failed" ? {} : { lastAttemptAt: sql`now()` }),
      ...(r.outcome === "delivered" ? { deliveredAt: sql`now()` } : {}),
    })
    .where(and(eq(webhookDelivery.id, id), eq(webhookDelivery.status, "pending")))
    .returning({ attempts: webhookDelivery.attempts });
  return row?.attempts ?? null;
}

/**
 * The backstop for messages whose job was lost (no worker for a day, a job store reset): pending longer than
 * the retries could ever take, they are marked failed.
 */
export async function expireWebhookDeliveries(options: { db: Db }): Promise<number> {
  const rows = await options.db
    .update(webhookDelivery)
    .set({ status: "failed", lastError: sql`coalesce(${webhookDelivery.lastError}, 'expired')` })
    .where(
      and(
        eq(webhookDelivery.status, "pending"),
        lt(webhookDelivery.createdAt, sql`now() - make_interval(hours => ${WEBHOOK_GIVE_UP_HOURS})`),
      ),
    )
    .returning({ id: webhookDelivery.id });
  return rows.length;
}
