import { and, eq, ne } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";

export interface PromoteConfiguredAdminOptions {
  db: Db;
  userId: string;
  adminEmails: readonly string[];
  logger: Logger;
}

/**
 * Makes the user an admin when their e-mail is listed in ADMIN_EMAILS. Runs when a session starts, so only an
 * address that was verified (e-mail sign-in requires it) or vouched for by an OAuth provider gets the role.
 */
export async function promoteConfiguredAdmin({ db, userId, adminEmails, logger }: PromoteConfiguredAdminOptions) {
  if (adminEmails.length === 0) return false;
  const [row] = await db
    .select({ email: user.email, emailVerified: user.emailVerified })
    .from(user)
    .where(eq(user.id, userId));
  if (!row || !row.emailVerified || !adminEmails.includes(row.email.toLowerCase())) return false;
  const updated = await db
    .update(user)
    .set({ role: "admin", updatedAt: new Date() })
    .where(and(eq(user.id, userId), ne(user.role, "admin")))
    .returning({ id: user.id });
  if (updated.length > 0) logger.info({ userId }, "promoted to admin from ADMIN_EMAILS");
  return updated.length > 0;
}
