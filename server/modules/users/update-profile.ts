import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import type { Locale } from "#common/locales.ts";

/** Changes the name and/or the preferred language. */
export async function updateProfile({
  db,
  userId,
  name,
  locale,
}: {
  db: Db;
  userId: string;
  name?: string;
  locale?: Locale;
}) {
  const set: Partial<typeof user.$inferInsert> = { updatedAt: new Date() };
  if (name !== undefined) set.name = name;
  if (locale !== undefined) set.locale = locale;
  await db.update(user).set(set).where(eq(user.id, userId));
}
