import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { accountWhere, type AccountRef } from "./account-ref.ts";

export type Role = "user" | "admin";

/**
 * Gives an account a role, and writes it to the audit log in the same transaction; false when
 * there is no such account.
 */
export async function setRole({
  db,
  account,
  role,
  actor,
}: {
  db: Db;
  account: AccountRef;
  role: Role;
  actor: AdminActor;
}) {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ id: user.id, email: user.email, role: user.role })
      .from(user)
      .where(accountWhere(account))
      .for("update");
    if (!before) return false;
    await tx.update(user).set({ role, updatedAt: new Date() }).where(eq(user.id, before.id));
    await recordAdminAction(tx, actor, {
      action: role === "admin" ? "role.grant" : "role.revoke",
      targetType: "user",
      targetId: before.id,
      targetLabel: before.email,
      before: { role: before.role ?? "user" },
      after: { role },
    });
    return true;
  });
}
