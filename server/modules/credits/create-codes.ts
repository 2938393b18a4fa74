import type { Db } from "#server/db/client.ts";
import { redemptionBatch, redemptionCode } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { checkAmount, MAX_EXPIRY_DAYS } from "./ledger.ts";
import { generateCode, hashOf, MAX_CODES_PER_BATCH, normalizeCode } from "./redemption-codes.ts";

export interface CreateCodesInput {
  credits: number;
  maxUses: number;
  count: number;
  expiresAt?: Date | null;
  /** Days the credits of a redeemed code last; 0 or left out: they never expire. */
  creditsExpireDays?: number;
  batch?: string;
  createdBy?: string;
  /** Who creates them: the batch goes into the audit log with the codes, in one transaction. */
  actor?: AdminActor;
}

/** Creates a batch of codes and returns them in clear, the only time they exist outside their hashes. */
export async function createCodes({
  db,
  ...input
}: CreateCodesInput & { db: Db }): Promise<{ batch: string; batchId: string; codes: string[] }> {
  checkAmount(input.credits);
  if (!Number.isSafeInteger(input.maxUses) || input.maxUses < 1 || input.maxUses > 1_000_000) {
    throw new AppError("bad_request", "uses must be a whole number from 1 to 1000000");
  }
  if (!Number.isSafeInteger(input.count) || input.count < 1 || input.count > MAX_CODES_PER_BATCH) {
    throw new AppError("bad_request", `count must be a whole number from 1 to ${MAX_CODES_PER_BATCH}`);
  }
  const creditsExpireDays = input.creditsExpireDays ?? 0;
  if (!Number.isSafeInteger(creditsExpireDays) || creditsExpireDays < 0 || creditsExpireDays > MAX_EXPIRY_DAYS) {
    throw new AppError("bad_request", `the credits' term must be a whole number of days from 0 to ${MAX_EXPIRY_DAYS}`);
  }
  if (input.expiresAt && (Number.isNaN(input.expiresAt.getTime()) || input.expiresAt.getTime() <= Date.now())) {
    throw new AppError("bad_request", "the expiry must be a date in the future");
  }
  const batch = input.batch?.trim() || new Date().toISOString().slice(0, 19).replace(/[-:T]/g, "");
  const codes = Array.from({ length: input.count }, generateCode);
  const batchId = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(redemptionBatch)
      .values({
        name: batch,
        credits: input.credits,
        maxUses: input.maxUses,
        codeCount: codes.length,
        expiresAt: input.expiresAt ?? null,
        creditsExpireDays,
        createdBy: input.createdBy ?? input.actor?.label ?? null,
      })
      .returning({ id: redemptionBatch.id });
    await tx.insert(redemptionCode).values(
      codes.map((code) => ({
        codeHash: hashOf(normalizeCode(code)!),
        hint: code.slice(0, 6),
        batch,
        batchId: row!.id,
        credits: input.credits,
        maxUses: input.maxUses,
        expiresAt: input.expiresAt ?? null,
        createdBy: input.createdBy ?? null,
      })),
    );
    if (input.actor) {
      await recordAdminAction(tx, input.actor, {
        action: "codes.create",
        targetType: "codes",
        targetId: row!.id,
        targetLabel: batch,
        after: {
          count: codes.length,
          credits: input.credits,
          maxUses: input.maxUses,
          expiresAt: input.expiresAt?.toISOString() ?? null,
          creditsExpireDays,
        },
      });
    }
    return row!.id;
  });
  return { batch, batchId, codes };
}
