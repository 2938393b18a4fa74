import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { appSetting } from "#server/db/schema/index.ts";

const KEY = "auth_secret";

/**
 * AUTH_SECRET when set; otherwise a random secret made on the first start and kept in the database, so sessions
 * survive restarts and every process on the same database signs alike with zero configuration.
 */
export async function loadAuthSecret({ db, configured }: { db: Db; configured?: string }): Promise<string> {
  if (configured) return configured;
  await db
    .insert(appSetting)
    .values({ key: KEY, value: randomBytes(32).toString("base64url") })
    .onConflictDoNothing({ target: appSetting.key });
  const [row] = await db.select({ value: appSetting.value }).from(appSetting).where(eq(appSetting.key, KEY));
  return String(row!.value);
}
