import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { session, user } from "#server/db/schema/index.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { accountWhere, type AccountRef } from "./account-ref.ts";

/**
 * Suspends (or lifts the suspension of) an account. A suspension ends every session of the
 * account at once, in the same transaction as its audit log entry; sign-in then answers that the account is
 * suspended. False when there is no such account.
 */
export async function setBan({
  db,
  account,
  banned,
  reason,
  actor,
}: {
  db: Db;
  account: AccountRef;
  banned: boolean;
  reason?: string;
  actor: AdminActor;
}) {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ id: user.id, email: user.email, banned: user.banned, banReason: user.banReason })
      .from(user)
      .where(accountWhere(account))
      .for("update");
    if (!before) return false;
    const banReason = banned ? (reason ?? null) : null;
    await tx
      .update(user)
      .set({ banned, banReason, banExpires: null, updatedAt: new Date() })
      .where(eq(user.id, before.id));
    if (banned) await tx.delete(session).where(eq(session.userId, before.id));
    await recordAdminAction(tx, actor, {
      action: banned ? "user.ban" : "user.unban",
      targetType: "user",
      targetId: before.id,
      targetLabel: before.email,
      before: { banned: Boolean(before.banned), reason: before.banReason ?? null },
      after: { banned, reason: banReason },
      reason: reason ?? null,
    });
    return true;
  });
}
