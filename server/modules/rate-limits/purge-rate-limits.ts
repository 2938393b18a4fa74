import { lt } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { rateLimit } from "#server/db/schema/index.ts";

/** Removes counters whose window has ended; they would restart at 1 anyway. */
export async function purgeRateLimits({ db, now = new Date() }: { db: Db; now?: Date }) {
  const rows = await db.delete(rateLimit).where(lt(rateLimit.resetAt, now)).returning({ key: rateLimit.key });
  return rows.length;
}
