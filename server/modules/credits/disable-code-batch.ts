import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { redemptionBatch } from "#server/db/schema/index.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";

/**
 * Withdraws a batch: none of its codes can be redeemed from then on (what was redeemed stays). Written to the
 * audit log in the same transaction; false when there is no such batch or it was already withdrawn.
 */
export async function disableCodeBatch({ db, batchId, actor }: { db: Db; batchId: string; actor: AdminActor }) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(redemptionBatch)
      .set({ disabledAt: new Date() })
      .where(and(eq(redemptionBatch.id, batchId), isNull(redemptionBatch.disabledAt)))
      .returning({ id: redemptionBatch.id, name: redemptionBatch.name });
    if (!row) return false;
    await recordAdminAction(tx, actor, {
      action: "codes.disable",
      targetType: "codes",
      targetId: row.id,
      targetLabel: row.name,
      before: { disabled: false },
      after: { disabled: true },
    });
    return true;
  });
}
