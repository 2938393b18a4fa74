import { count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { redemptionBatch, redemptionCode } from "#server/db/schema/index.ts";

export interface CodeBatchView {
  id: string;
  name: string;
  credits: number;
  maxUses: number;
  codeCount: number;
  /** Redemptions so far, over all of the batch's codes (at most `codeCount × maxUses`). */
  uses: number;
  expiresAt: Date | null;
  disabledAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
  /** Whether its codes can still be redeemed, and if not, why. */
  status: "active" | "expired" | "usedUp" | "disabled";
}

function statusOf(batch: Omit<CodeBatchView, "status">, now: number): CodeBatchView["status"] {
  if (batch.disabledAt) return "disabled";
  if (batch.expiresAt && batch.expiresAt.getTime() <= now) return "expired";
  if (batch.uses >= batch.codeCount * batch.maxUses) return "usedUp";
  return "active";
}

/** One page of code batches, the newest first, with how much each has been used. */
export async function listCodeBatches({
  db,
  page,
  pageSize,
}: {
  db: Db;
  page: number;
  pageSize: number;
}): Promise<{ rows: CodeBatchView[]; total: number }> {
  const uses = sql<number>`coalesce(sum(${redemptionCode.uses}), 0)`.mapWith(Number);
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: redemptionBatch.id,
        name: redemptionBatch.name,
        credits: redemptionBatch.credits,
        maxUses: redemptionBatch.maxUses,
        codeCount: redemptionBatch.codeCount,
        uses,
        expiresAt: redemptionBatch.expiresAt,
        disabledAt: redemptionBatch.disabledAt,
        createdBy: redemptionBatch.createdBy,
        createdAt: redemptionBatch.createdAt,
      })
      .from(redemptionBatch)
      .leftJoin(redemptionCode, eq(redemptionCode.batchId, redemptionBatch.id))
      .groupBy(redemptionBatch.id)
      .orderBy(desc(redemptionBatch.createdAt), desc(redemptionBatch.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(redemptionBatch),
  ]);
  const now = Date.now();
  return { rows: rows.map((row) => ({ ...row, status: statusOf(row, now) })), total: total?.n ?? 0 };
}
