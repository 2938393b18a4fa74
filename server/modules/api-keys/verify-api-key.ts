import { and, eq, not, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { preparedPerDatabase } from "#server/db/prepared.ts";
import { apiKey, rateLimit, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { hashApiKey, looksLikeApiKey } from "./keys.ts";

/** Requests per minute the public API takes from one key, and from one account across all its keys. */
export interface ApiLimits {
  perKey: number;
  perAccount: number;
}

export interface VerifiedKey {
  keyId: string;
  userId: string;
  /** The key's fixed window: requests allowed, left (fewer when the account's are), and seconds until it starts again. */
  limit: number;
  remaining: number;
  resetSeconds: number;
  allowed: boolean;
  /** The account's limit over all its keys. */
  accountLimit: number;
  /** Which limit refused the request, when one did. */
  refusedBy: "key" | "account" | null;
}

const fresh = sql`${apiKey.windowResetAt} is null or ${apiKey.windowResetAt} <= now()`;

/**
 * One use of the key whose hash is the statement's `hash` placeholder, as a common table expression another read
 * can ride on: the key must exist and be active, and its owner not be banned; its request count, last use and
 * one-minute window move together under the row's lock, so the limit holds across every instance. It yields no row
 * when the key may not be used.
 */
export function keyUse(db: Db) {
  return db.$with("key_use").as(
    db
      .update(apiKey)
      .set({
        requestCount: sql`${apiKey.requestCount} + 1`,
        lastUsedAt: sql`now()`,
        windowCount: sql`case when ${fresh} then 1 else ${apiKey.windowCount} + 1 end`,
        windowResetAt: sql`case when ${fresh} then now() + interval '60 seconds' else ${apiKey.windowResetAt} end`,
      })
      .from(user)
      .where(
        and(
          eq(apiKey.keyHash, sql.placeholder("hash")),
          eq(apiKey.status, "active"),
          eq(user.id, apiKey.userId),
          not(user.banned),
        ),
      )
      .returning({
        keyId: apiKey.id,
        userId: apiKey.userId,
        count: apiKey.windowCount,
        reset: sql<number>`greatest(0, ceil(extract(epoch from ${apiKey.windowResetAt} - now())))::int`.as("reset"),
      }),
  );
}

/**
 * The same use counted against the key's owner, over all their keys (a `rate_limit` row per account and minute),
 * riding on `keyUse` in the same statement; no row when the key may not be used.
 */
function accountUse(db: Db, use: ReturnType<typeof keyUse>) {
  return db.$with("account_use").as(
    db
      .insert(rateLimit)
      .select(
        db
          .select({
            key: sql<string>`'api:account:' || ${use.userId}`.as("key"),
            count: sql<number>`1`.as("count"),
            resetAt: sql<Date>`now() + interval '60 seconds'`.as("reset_at"),
          })
          .from(use),
      )
      .onConflictDoUpdate({
        target: rateLimit.key,
        set: {
          count: sql`case when ${rateLimit.resetAt} <= now() then 1 else ${rateLimit.count} + 1 end`,
          resetAt: sql`case when ${rateLimit.resetAt} <= now() then now() + interval '60 seconds' else ${rateLimit.resetAt} end`,
        },
      })
      .returning({
        accountCount: rateLimit.count,
        accountReset: sql<number>`greatest(0, ceil(extract(epoch from ${rateLimit.resetAt} - now())))::int`.as(
          "account_reset",
        ),
      }),
  );
}

/**
 * A key's use and its account's, counted in one statement: the common table expressions a read adds with `with`,
 * the fields it selects (`fields`) and how it joins the account's count (`joinAccount`).
 */
export function apiUse(db: Db) {
  const key = keyUse(db);
  const account = accountUse(db, key);
  return {
    key,
    account,
    fields: {
      keyId: key.keyId,
      userId: key.userId,
      count: key.count,
      reset: key.reset,
      accountCount: account.accountCount,
      accountReset: account.accountReset,
    },
  };
}

/** What `apiUse` yields, as selected by a read that rides on it. */
export type KeyUseRow = {
  keyId: string;
  userId: string;
  count: number;
  reset: number;
  accountCount: number | null;
  accountReset: number | null;
};

const countUse = preparedPerDatabase((db) => {
  const use = apiUse(db);
  return db
    .with(use.key, use.account)
    .select(use.fields)
    .from(use.key)
    .leftJoin(use.account, sql`true`)
    .prepare("atelier_verify_api_key");
});

/** The hash of a bearer secret, refusing at once what is not an Atelier key. */
export function keyHashOf(secret: string): string {
  if (!looksLikeApiKey(secret)) throw new AppError("invalid_api_key", "not an Atelier API key");
  return hashApiKey(secret);
}

/** The key's verdict from its counted use, or the refusal that says why it was not counted. */
export async function verdictOf(
  db: Db,
  hash: string,
  row: KeyUseRow | undefined,
  limits: ApiLimits,
): Promise<VerifiedKey> {
  if (!row) {
    const [known] = await db.select({ status: apiKey.status }).from(apiKey).where(eq(apiKey.keyHash, hash));
    if (known?.status === "inactive") throw new AppError("api_key_inactive", "this key is deactivated");
    throw new AppError("invalid_api_key", known ? "the key's owner cannot use the API" : "no such key");
  }
  const used = Number(row.count);
  const accountUsed = Number(row.accountCount ?? 0);
  const keyAllowed = used <= limits.perKey;
  const accountAllowed = accountUsed <= limits.perAccount;
  return {
    keyId: row.keyId,
    userId: row.userId,
    limit: limits.perKey,
    remaining: Math.max(0, Math.min(limits.perKey - used, limits.perAccount - accountUsed)),
    // The window that refuses is the one to wait for.
    resetSeconds: keyAllowed && !accountAllowed ? Number(row.accountReset ?? 0) : Number(row.reset),
    allowed: keyAllowed && accountAllowed,
    accountLimit: limits.perAccount,
    refusedBy: !keyAllowed ? "key" : !accountAllowed ? "account" : null,
  };
}

/**
 * Checks a bearer secret and counts the request against the key and its account, in one statement (see `apiUse`).
 * Refusals say which: unknown (or deleted) and inactive keys are both 401.
 */
export async function verifyApiKey(options: { db: Db; secret: string; limits: ApiLimits }): Promise<VerifiedKey> {
  const hash = keyHashOf(options.secret);
  const [row] = await countUse(options.db).execute({ hash });
  return verdictOf(options.db, hash, row, options.limits);
}
