import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { applyMovement, type Tx } from "#server/modules/credits/ledger.ts";
import { isUuid } from "#common/ids.ts";

/** A generation with its owner, locked for the rest of the caller's transaction; `not_found` when there is none. */
export async function lockGeneration(tx: Tx, id: string) {
  if (!isUuid(id)) throw new AppError("not_found");
  const [row] = await tx
    .select({
      id: generation.id,
      userId: generation.userId,
      status: generation.status,
      creditsCharged: generation.creditsCharged,
      visibility: generation.visibility,
      hiddenAt: generation.hiddenAt,
      refundedAt: generation.refundedAt,
      email: user.email,
      name: user.name,
      locale: user.locale,
    })
    .from(generation)
    .innerJoin(user, eq(user.id, generation.userId))
    .where(eq(generation.id, id))
    .for("update", { of: generation });
  if (!row) throw new AppError("not_found");
  return row;
}

/**
 * Gives a finished generation's credits back to its owner, at most once (the generation is marked, and the
 * ledger entry's key is the generation's own), with the audit log entry, in one transaction.
 */
export async function refundGeneration({
  db,
  id,
  reason,
  actor,
}: {
  db: Db;
  id: string;
  reason: string;
  actor: AdminActor;
}): Promise<{ credits: number }> {
  return db.transaction(async (tx) => {
    const row = await lockGeneration(tx, id);
    const credits = row.creditsCharged ?? 0;
    if (row.status !== "succeeded" || credits <= 0 || row.refundedAt)
      throw new AppError("conflict", "only a finished, charged generation not refunded yet can be refunded");
    await applyMovement(tx, {
      userId: row.userId,
      kind: "admin_adjustment",
      amount: credits,
      heldChange: 0,
      reference: `job:${row.id}`,
      idempotencyKey: `generation_refund:${row.id}`,
    });
    await tx
      .update(generation)
      .set({ refundedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(generation.id, row.id));
    await recordAdminAction(tx, actor, {
      action: "generations.refund",
      targetType: "generation",
      targetId: row.id,
      targetLabel: row.email,
      before: { refunded: false },
      after: { refunded: true, credits },
      reason,
    });
    return { credits };
  });
}

/**
 * Hides a generation from the public (moderation): private from now on, so it leaves the showcase, its share page
 * and its public media at once, and its owner can no longer publish it. Logged with the reason.
 */
export async function hideGeneration({
  db,
  id,
  reason,
  actor,
}: {
  db: Db;
  id: string;
  reason: string;
  actor: AdminActor;
}): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await lockGeneration(tx, id);
    if (row.hiddenAt) throw new AppError("conflict", "already hidden");
    await hideLockedGeneration(tx, row, { reason, actor });
  });
}

/**
 * Hides a generation `lockGeneration` locked, with its audit log entry, in the caller's transaction (what else the
 * action did goes into the entry's `after`).
 */
export async function hideLockedGeneration(
  tx: Tx,
  row: Awaited<ReturnType<typeof lockGeneration>>,
  { reason, actor, after }: { reason: string; actor: AdminActor; after?: Record<string, unknown> },
): Promise<void> {
  await tx
    .update(generation)
    .set({ visibility: "private", hiddenAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(generation.id, row.id), isNull(generation.hiddenAt)));
  await recordAdminAction(tx, actor, {
    action: "generations.hide",
    targetType: "generation",
    targetId: row.id,
    targetLabel: row.email,
    before: { visibility: row.visibility },
    after: { visibility: "private", hidden: true, ...after },
    reason,
  });
}
