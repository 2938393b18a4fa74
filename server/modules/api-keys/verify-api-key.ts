import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { apiKey } from "#server/db/schema/index.ts";
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

/**
 * Checks a bearer secret and counts the request, in one statement: the key must exist and be active, and its owner
 * not be banned; its request count, last use and one-minute window move together under the row's lock, so the
 * limit holds across every instance. Refusals say which: unknown (or deleted) and inactive keys are both 401.
 */
export async function verifyApiKey(o: { db: Db; secret: string; limitPerMinute: number }): Promise<VerifiedKey> {
  if (!looksLikeApiKey(o.secret)) throw new AppError("invalid_api_key", "not an Atelier API key");
  const hash = hashApiKey(o.secret);
  const fresh = sql`${apiKey.windowResetAt} is null or ${apiKey.windowResetAt} <= now()`;
  const result = (await o.db.execute(sql`
    update ${apiKey} set
      request_count = ${apiKey.requestCount} + 1,
      last_used_at = now(),
      window_count = case when ${fresh} then 1 else ${apiKey.windowCount} + 1 end,
      window_reset_at = case when ${fresh} then now() + interval '60 seconds' else ${apiKey.windowResetAt} end
    from "user" u
    where ${apiKey.keyHash} = ${hash} and ${apiKey.status} = 'active' and u.id = ${apiKey.userId} and not u.banned
    returning ${apiKey.id} as id, ${apiKey.userId} as user_id, ${apiKey.windowCount} as count,
      greatest(0, ceil(extract(epoch from ${apiKey.windowResetAt} - now())))::int as reset
  `)) as unknown as { rows: Array<{ id: string; user_id: string; count: number; reset: number }> };
  const row = result.rows[0];
  if (!row) {
    const [known] = await o.db.select({ status: apiKey.status }).from(apiKey).where(eq(apiKey.keyHash, hash));
    if (known?.status === "inactive") throw new AppError("api_key_inactive", "this key is deactivated");
    throw new AppError("invalid_api_key", known ? "the key's owner cannot use the API" : "no such key");
  }
  const used = Number(row.count);
  return {
    keyId: row.id,
    userId: row.user_id,
    limit: o.limitPerMinute,
    remaining: Math.max(0, o.limitPerMinute - used),
    resetSeconds: Number(row.reset),
    allowed: used <= o.limitPerMinute,
  };
}
