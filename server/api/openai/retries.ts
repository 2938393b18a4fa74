import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createMiddleware } from "hono/factory";
import { AppError } from "#server/errors.ts";
import {
  claimIdempotencyKey,
  forgetIdempotencyKey,
  keyOfFingerprint,
  type IdempotencyClaim,
} from "#server/modules/api-keys/idempotency.ts";
import { fingerprintOf, replay, runClaimed, type ClaimedAnswer } from "#server/api/v1/idempotency.ts";
import type { KeyEnv } from "#server/api/v1/env.ts";
import { replayChatStream } from "./chat-completions.ts";

/** The keys this API makes for requests that came without one: kept an hour, long enough for any client's retries. */
const IMPLICIT = "v1-retry:";
const IMPLICIT_TTL_SECONDS = 60 * 60;

export type RetryEnv = KeyEnv & {
  Variables: {
    /** The request's idempotency key, its own or the one made for it: the jobs it starts are keyed by it. */
    retryKey: string;
    /**
     * What the handler made of its answer, when the answer itself is not what is kept: its work is still running
     * (`pending`), or what is kept is a stream's message or a note that the answer is made again from the request's
     * jobs (images: large in base64, and their links are signed anew).
     */
    claimedAnswer?: ClaimedAnswer;
    /** The request repeats one already answered: its answer is made again, charging nothing more. */
    replayed?: boolean;
  };
};

/** A job key from a request's idempotency key: the same request retried finds the job its first attempt made. */
export const jobKeyOf = (key: string) => `v1:${createHash("sha256").update(key).digest("hex").slice(0, 48)}`;

/**
 * Makes `/v1`'s writes safe to retry, so that a client's retry never charges twice.
 *
 * - With an `Idempotency-Key`, as on `/api/v1`: the first request runs and its answer is kept for a day.
 * - Without one, the official SDKs still retry a request whose answer was lost (a dropped connection, a timeout),
 *   and they number their attempts in `X-Stainless-Retry-Count`. Every first attempt runs. A retry (a count above
 *   0) of the same request, by the same account, is matched to its first attempt within the hour and answered with
 *   its answer, or runs again on its jobs if that answer was "not finished yet".
 *
 * A retry that arrives while the first attempt still runs waits for it (up to `waitMs`) rather than failing. What a
 * handler marks `pending` is not kept: the key is left open, and the request repeated runs again on the same jobs.
 * A kept stream is streamed again from its message; an answer kept as `remade` is made again by the handler from
 * the request's jobs, with nothing more charged.
 */
export function retrySafe(options: { waitMs: number }) {
  return createMiddleware<RetryEnv>(async (c, next) => {
    const db = c.var.runtime.database.db;
    const userId = c.var.apiUserId;
    const given = c.req.header("idempotency-key");
    const attempt = Number.parseInt(c.req.header("x-stainless-retry-count") ?? "0", 10) || 0;
    const fingerprint = await fingerprintOf(c.req);
    const key =
      given ??
      (attempt > 0 ? await keyOfFingerprint({ db, userId, fingerprint, prefix: IMPLICIT }) : null) ??
      `${IMPLICIT}${randomUUID()}`;
    const ttlSeconds = given === undefined ? IMPLICIT_TTL_SECONDS : undefined;
    c.set("retryKey", key);

    const deadline = Date.now() + options.waitMs;
    for (;;) {
      let claim: IdempotencyClaim;
      try {
        claim = await claimIdempotencyKey({ db, userId, key, fingerprint, ttlSeconds });
      } catch (error) {
        if (!(error instanceof AppError && error.code === "idempotency_in_flight") || Date.now() > deadline)
          throw error;
        await sleep(250);
        continue;
      }
      if (claim.kind === "run") return runClaimed(c, next, { db, userId, key }, () => c.get("claimedAnswer"));
      if (claim.answerKind === "json") return replay(c, claim);
      c.set("replayed", true);
      if (claim.answerKind === "remade") {
        await next();
        c.res.headers.set("Idempotent-Replayed", "true");
        return;
      }
      const replayed = await replayChatStream(c, JSON.parse(claim.body));
      if (replayed) return replayed;
      // The kept stream's answer failed and charged nothing: the request runs again.
      await forgetIdempotencyKey({ db, userId, key, body: claim.body });
      c.set("replayed", false);
    }
  });
}
