import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { apiIdempotency, type IdempotentAnswerKind } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";

/** How long a stored answer is kept, and how long a first request may run before a retry may take over. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
export const IDEMPOTENCY_LOCK_SECONDS = 60;
const KEY = /^[\x21-\x7e]{1,255}$/;

export type IdempotencyClaim =
  { kind: "run" } | { kind: "replay"; status: number; body: string; answerKind: IdempotentAnswerKind };

/**
 * Claims a user's idempotency key for a request (its `fingerprint` says what was asked). The first claim runs;
 * the same key with the same request afterwards replays the stored answer; with a different request it is
 * `idempotency_mismatch` (422); while the first is still running, `idempotency_in_flight` (409). A first request
 * that died without answering lets a retry run once its lock lapses.
 */
export async function claimIdempotencyKey(options: {
  db: Db;
  userId: string;
  key: string;
  fingerprint: string;
  /** How long the answer is kept, when not a day. */
  ttlSeconds?: number;
}): Promise<IdempotencyClaim> {
  const ttl = options.ttlSeconds ?? IDEMPOTENCY_TTL_SECONDS;
  if (!KEY.test(options.key)) {
    throw new AppError("idempotency_key_invalid", "Idempotency-Key: 1 to 255 visible ASCII characters");
  }
  for (let round = 0; round < 3; round++) {
    const [inserted] = await options.db
      .insert(apiIdempotency)
      .values({
        userId: options.userId,
        key: options.key,
        requestHash: options.fingerprint,
        lockedUntil: sql`now() + make_interval(secs => ${IDEMPOTENCY_LOCK_SECONDS})`,
        expiresAt: sql`now() + make_interval(secs => ${ttl})`,
      })
      .onConflictDoNothing()
      .returning({ key: apiIdempotency.key });
    if (inserted) return { kind: "run" };

    const [row] = await options.db
      .select({
        requestHash: apiIdempotency.requestHash,
        state: apiIdempotency.state,
        responseStatus: apiIdempotency.responseStatus,
        responseBody: apiIdempotency.responseBody,
        responseKind: apiIdempotency.responseKind,
        expired: sql<boolean>`${apiIdempotency.expiresAt} <= now()`,
        lapsed: sql<boolean>`${apiIdempotency.lockedUntil} <= now()`,
      })
      .from(apiIdempotency)
      .where(and(eq(apiIdempotency.userId, options.userId), eq(apiIdempotency.key, options.key)));
    if (!row) continue; // Released meanwhile: claim again.
    if (row.expired) {
      await options.db
        .delete(apiIdempotency)
        .where(
          and(
            eq(apiIdempotency.userId, options.userId),
            eq(apiIdempotency.key, options.key),
            sql`${apiIdempotency.expiresAt} <= now()`,
          ),
        );
      continue;
    }
    if (row.requestHash !== options.fingerprint) {
      throw new AppError("idempotency_mismatch", "this Idempotency-Key was used with a different request");
    }
    if (row.state === "done")
      return { kind: "replay", status: row.responseStatus!, body: row.responseBody!, answerKind: row.responseKind };
    if (row.lapsed) {
      const [taken] = await options.db
        .update(apiIdempotency)
        .set({ lockedUntil: sql`now() + make_interval(secs => ${IDEMPOTENCY_LOCK_SECONDS})` })
        .where(
          and(
            eq(apiIdempotency.userId, options.userId),
            eq(apiIdempotency.key, options.key),
            eq(apiIdempotency.state, "running"),
            sql`${apiIdempotency.lockedUntil} <= now()`,
          ),
        )
        .returning({ key: apiIdempotency.key });
      if (taken) return { kind: "run" };
    }
    throw new AppError("idempotency_in_flight", "a request with this Idempotency-Key is still being processed");
  }
  throw new AppError("idempotency_in_flight", "a request with this Idempotency-Key is still being processed");
}

/** Stores the answer of a claimed key (or what it is made again from: see `IdempotentAnswerKind`), for replays. */
export async function completeIdempotencyKey(options: {
  db: Db;
  userId: string;
  key: string;
  status: number;
  body: string;
  answerKind?: IdempotentAnswerKind;
}) {
  await options.db
    .update(apiIdempotency)
    .set({
      state: "done",
      responseStatus: options.status,
      responseBody: options.body,
      responseKind: options.answerKind ?? "json",
    })
    .where(and(eq(apiIdempotency.userId, options.userId), eq(apiIdempotency.key, options.key)));
}

/** Deletes a key's row while it is in `state` (and, when given, still holds `body`). */
async function deleteKey(options: { db: Db; userId: string; key: string }, state: "running" | "done", body?: string) {
  await options.db
    .delete(apiIdempotency)
    .where(
      and(
        eq(apiIdempotency.userId, options.userId),
        eq(apiIdempotency.key, options.key),
        eq(apiIdempotency.state, state),
        body === undefined ? undefined : eq(apiIdempotency.responseBody, body),
      ),
    );
}

/** Gives a claimed key up (the request failed in a way worth retrying): the next request with it runs afresh. */
export async function releaseIdempotencyKey(options: { db: Db; userId: string; key: string }) {
  await deleteKey(options, "running");
}

/**
 * Forgets a key's kept answer (a kept stream whose answer failed, charging nothing): the next request with the key
 * runs afresh. Only the answer read (`body`) is forgotten, not one kept by a request that ran again meanwhile.
 */
export async function forgetIdempotencyKey(options: { db: Db; userId: string; key: string; body: string }) {
  await deleteKey(options, "done", options.body);
}

/**
 * Leaves a claimed key running but free to take over at once: the request was answered "not finished yet", and the
 * next one with the key runs again on the same work (its jobs are keyed by it) instead of replaying that answer.
 */
export async function lapseIdempotencyKey(options: { db: Db; userId: string; key: string }) {
  await options.db
    .update(apiIdempotency)
    .set({ lockedUntil: sql`now()` })
    .where(
      and(
        eq(apiIdempotency.userId, options.userId),
        eq(apiIdempotency.key, options.key),
        eq(apiIdempotency.state, "running"),
      ),
    );
}

/** The newest unexpired key under `prefix` that a request with this fingerprint claimed: a retry's first attempt. */
export async function keyOfFingerprint(options: {
  db: Db;
  userId: string;
  fingerprint: string;
  prefix: string;
}): Promise<string | null> {
  const [row] = await options.db
    .select({ key: apiIdempotency.key })
    .from(apiIdempotency)
    .where(
      and(
        eq(apiIdempotency.userId, options.userId),
        eq(apiIdempotency.requestHash, options.fingerprint),
        sql`starts_with(${apiIdempotency.key}, ${options.prefix})`,
        sql`${apiIdempotency.expiresAt} > now()`,
      ),
    )
    .orderBy(desc(apiIdempotency.createdAt))
    .limit(1);
  return row?.key ?? null;
}

/** Forgets stored answers older than a day. */
export async function purgeIdempotencyKeys({ db, now = new Date() }: { db: Db; now?: Date }) {
  const rows = await db
    .delete(apiIdempotency)
    .where(lt(apiIdempotency.expiresAt, now))
    .returning({ key: apiIdempotency.key });
  return rows.length;
}
