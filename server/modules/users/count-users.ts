import { count, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";

/** Headline numbers for the admin landing page. */
export async function countUsers({ db }: { db: Db }) {
  const [total] = await db.select({ n: count() }).from(user);
  const [admins] = await db.select({ n: count() }).from(user).where(eq(user.role, "admin"));
  const [verified] = await db.select({ n: count() }).from(user).where(eq(user.emailVerified, true));
  return { users: total?.n ?? 0, admins: admins?.n ?? 0, verified: verified?.n ?? 0 };
}
