import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { redemption, redemptionBatch, redemptionCode } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { consumeRateLimit } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { RATE_LIMITS } from "#server/modules/auth/policy.ts";
import { applyMovement, expiryAfter } from "./ledger.ts";
import { hashOf, normalizeCode } from "./redemption-codes.ts";

/**
 * Redeems a code for a user, in one transaction: the code row is locked, the (code, user) pair is recorded once,
 * a use is counted only while uses remain, and the credits are granted with the ledger's idempotency key. Wrong,
 * withdrawn, expired, used-up and already-redeemed codes each get their own error; attempts are rate-limited per account.
 */
export async function redeemCode({ db, userId, code }: { db: Db; userId: string; code: string }) {
  const limit = await consumeRateLimit({ db, key: `redeem:user:${userId}`, rule: RATE_LIMITS.redeemPerUser });
  if (!limit.allowed) throw new AppError("rate_limited", `retry after ${limit.retryAfter} s`);
  const normalized = normalizeCode(code);
  if (!normalized) throw new AppError("code_invalid");
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select({
        code: redemptionCode,
        disabledAt: redemptionBatch.disabledAt,
        creditsExpireDays: redemptionBatch.creditsExpireDays,
      })
      .from(redemptionCode)
      .innerJoin(redemptionBatch, eq(redemptionBatch.id, redemptionCode.batchId))
      .where(eq(redemptionCode.codeHash, hashOf(normalized)))
      .for("update", { of: redemptionCode });
    if (!found) throw new AppError("code_invalid");
    const row = found.code;
    if (found.disabledAt) throw new AppError("code_disabled");
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) throw new AppError("code_expired");
    const recorded = await tx
      .insert(redemption)
      .values({ codeId: row.id, userId })
      .onConflictDoNothing()
      .returning({ codeId: redemption.codeId });
    if (recorded.length === 0) throw new AppError("code_already_redeemed");
    const counted = await tx
      .update(redemptionCode)
      .set({ uses: sql`${redemptionCode.uses} + 1` })
      .where(sql`${redemptionCode.id} = ${row.id} and ${redemptionCode.uses} < ${redemptionCode.maxUses}`)
      .returning({ uses: redemptionCode.uses });
    if (counted.length === 0) throw new AppError("code_used_up");
    const entry = await applyMovement(tx, {
      userId,
      kind: "redemption",
      amount: row.credits,
      heldChange: 0,
      reference: `code:${row.id}`,
      idempotencyKey: `redemption:${row.id}:${userId}`,
      lot: { expiresAt: expiryAfter(found.creditsExpireDays) },
    });
    return { credits: row.credits, entry };
  });
}
