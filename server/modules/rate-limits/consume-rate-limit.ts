import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { rateLimit } from "#server/db/schema/index.ts";

export interface RateLimitRule {
  /** Window length in seconds. */
  window: number;
  /** Attempts allowed per window. */
  max: number;
}

export interface ConsumeRateLimitOptions {
  db: Db;
  /** What is limited and for whom, e.g. `sign-in:email:a@b.c`. */
  key: string;
  rule: RateLimitRule;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Attempts counted in the current window, this one included. */
  count: number;
  /** Seconds until the window resets; 0 when allowed. */
  retryAfter: number;
  /** Which window counted this attempt (its end, as the database wrote it), for `refundRateLimit`. */
  window: string;
}

/**
 * Counts one attempt in a fixed window and says whether it is within the rule. A single upsert, so concurrent
 * requests on any number of app instances never both get the last slot.
 */
export async function consumeRateLimit({ db, key, rule }: ConsumeRateLimitOptions): Promise<RateLimitResult> {
  const window = sql`make_interval(secs => ${rule.window})`;
  const [row] = await db
    .insert(rateLimit)
    .values({ key, count: 1, resetAt: sql`now() + ${window}` })
    .onConflictDoUpdate({
      target: rateLimit.key,
      set: {
        count: sql`case when ${rateLimit.resetAt} <= now() then 1 else ${rateLimit.count} + 1 end`,
        resetAt: sql`case when ${rateLimit.resetAt} <= now() then now() + ${window} else ${rateLimit.resetAt} end`,
      },
    })
    .returning({
      count: rateLimit.count,
      retryAfter: sql<number>`greatest(0, ceil(extract(epoch from ${rateLimit.resetAt} - now())))::int`,
      window: sql<string>`${rateLimit.resetAt}::text`,
    });
  const count = row?.count ?? 1;
  const counted = row?.window ?? "";
  return count <= rule.max
    ? { allowed: true, count, retryAfter: 0, window: counted }
    : { allowed: false, count, retryAfter: row?.retryAfter ?? 1, window: counted };
}

/** Consumes every rule (all count the attempt); the first one exceeded decides. */
export async function consumeRateLimits(
  db: Db,
  checks: Array<{ key: string; rule: RateLimitRule }>,
): Promise<RateLimitResult> {
  let result: RateLimitResult = { allowed: true, count: 0, retryAfter: 0, window: "" };
  for (const check of checks) {
    const one = await consumeRateLimit({ db, ...check });
    if (!one.allowed && (result.allowed || one.retryAfter > result.retryAfter)) result = one;
  }
  return result;
}

/**
 * Gives back one attempt that `consumeRateLimit` counted, when what it guarded turned out not to count (a right
 * password). Only in the window that counted it: once that window is over, a new one owes it nothing.
 */
export async function refundRateLimit({ db, key, window }: { db: Db; key: string; window: string }) {
  if (!window) return;
  await db
    .update(rateLimit)
    .set({ count: sql`greatest(${rateLimit.count} - 1, 0)` })
    .where(and(eq(rateLimit.key, key), eq(rateLimit.resetAt, sql`${window}::timestamptz`)));
}
