import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { apiKey, user } from "#server/db/schema/index.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import type { SafetyLevel } from "#common/safety.ts";

/**
 * Sets the checks a key's requests get (null: each model's level), with its audit log entry, in one transaction.
 * False when the account has no such key; nothing is written when the level is already that.
 */
export async function setKeySafety({
  db,
  userId,
  keyId,
  level,
  actor,
}: {
  db: Db;
  userId: string;
  keyId: string;
  level: SafetyLevel | null;
  actor: AdminActor;
}): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: apiKey.id, prefix: apiKey.prefix, level: apiKey.safetyLevel, email: user.email })
      .from(apiKey)
      .innerJoin(user, eq(user.id, apiKey.userId))
      .where(and(eq(apiKey.id, keyId), eq(apiKey.userId, userId)))
      .for("update", { of: apiKey });
    if (!row) return false;
    if (row.level === level) return true;
    await tx
      .update(apiKey)
      .set({ safetyLevel: level, updatedAt: sql`now()` })
      .where(eq(apiKey.id, row.id));
    await recordAdminAction(tx, actor, {
      action: "user.keySafety",
      targetType: "user",
      targetId: userId,
      targetLabel: `${row.email} ${row.prefix}…`,
      before: { safety: row.level ?? "model" },
      after: { safety: level ?? "model" },
    });
    return true;
  });
}
