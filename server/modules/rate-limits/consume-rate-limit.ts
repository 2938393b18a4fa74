import { and, eq, gt, sql } from "drizzle-orm";
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
    });
  const count = row?.count ?? 1;
  return count <= rule.max
    ? { allowed: true, count, retryAfter: 0 }
    : { allowed: false, count, retryAfter: row?.retryAfter ?? 1 };
}

/** Consumes every rule (all count the attempt); the first one exceeded decides. */
export async function consumeRateLimits(
  db: Db,
  checks: Array<{ key: string; rule: RateLimitRule }>,
): Promise<RateLimitResult> {
  let result: RateLimitResult = { allowed: true, count: 0, retryAfter: 0 };
  for (const check of checks) {
    const one = await consumeRateLimit({ db, ...check });
    if (!one.allowed && (result.allowed || one.retryAfter > result.retryAfter)) result = one;
  }
  return result;
}

/** How many attempts a counter holds in its current window (0 once the window is over), counting none. */
export async function rateLimitCount({ db, key }: { db: Db; key: string }): Promise<number> {
  const [row] = await db
    .select({ count: rateLimit.count })
    .from(rateLimit)
    .where(and(eq(rateLimit.key, key), gt(rateLimit.resetAt, sql`now()`)));
  return row?.count ?? 0;
}

/** Forgets a counter: a successful sign-in clears the failures counted against that account. */
export async function resetRateLimit({ db, key }: { db: Db; key: string }) {
  await db.delete(rateLimit).where(eq(rateLimit.key, key));
}
