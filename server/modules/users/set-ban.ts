import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { session, user } from "#server/db/schema/index.ts";

/**
 * Suspends (or lifts the suspension of) the account with this e-mail. A suspension ends every session of the
 * account at once, in the same transaction; sign-in then answers that the account is suspended. False when there
 * is no such account.
 */
export async function setBanByEmail({
  db,
  email,
  banned,
  reason,
}: {
  db: Db;
  email: string;
  banned: boolean;
  reason?: string;
}) {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(user)
      .set({ banned, banReason: banned ? (reason ?? null) : null, banExpires: null, updatedAt: new Date() })
      .where(eq(sql`lower(${user.email})`, email.trim().toLowerCase()))
      .returning({ id: user.id });
    if (rows.length === 0) return false;
    if (banned) await tx.delete(session).where(eq(session.userId, rows[0]!.id));
    return true;
  });
}
