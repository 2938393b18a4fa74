import { and, eq, not, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { preparedPerDatabase } from "#server/db/prepared.ts";
import { apiKey, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { hashApiKey, looksLikeApiKey } from "./keys.ts";

export interface VerifiedKey {
  keyId: string;
  userId: string;
  /** The key's fixed window: requests allowed, left, and seconds until it starts again. */
  limit: number;
  remaining: number;
  resetSeconds: number;
  allowed: boolean;
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

/** What `keyUse` yields, as selected by a read that rides on it. */
export type KeyUseRow = { keyId: string; userId: string; count: number; reset: number };

export const keyUseFields = (use: ReturnType<typeof keyUse>) => ({
  keyId: use.keyId,
  userId: use.userId,
  count: use.count,
  reset: use.reset,
});

const countUse = preparedPerDatabase((db) => {
  const use = keyUse(db);
  return db.with(use).select(keyUseFields(use)).from(use).prepare("atelier_verify_api_key");
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
  limitPerMinute: number,
): Promise<VerifiedKey> {
  if (!row) {
    const [known] = await db.select({ status: apiKey.status }).from(apiKey).where(eq(apiKey.keyHash, hash));
    if (known?.status === "inactive") throw new AppError("api_key_inactive", "this key is deactivated");
    throw new AppError("invalid_api_key", known ? "the key's owner cannot use the API" : "no such key");
  }
  const used = Number(row.count);
  return {
    keyId: row.keyId,
    userId: row.userId,
    limit: limitPerMinute,
    remaining: Math.max(0, limitPerMinute - used),
    resetSeconds: Number(row.reset),
    allowed: used <= limitPerMinute,
  };
}

/**
 * Checks a bearer secret and counts the request, in one statement (see `keyUse`). Refusals say which: unknown (or
 * deleted) and inactive keys are both 401.
 */
export async function verifyApiKey(options: { db: Db; secret: string; limitPerMinute: number }): Promise<VerifiedKey> {
  const hash = keyHashOf(options.secret);
  const [row] = await countUse(options.db).execute({ hash });
  return verdictOf(options.db, hash, row, options.limitPerMinute);
}
