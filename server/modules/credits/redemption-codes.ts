import { createHash, randomInt } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { redemption, redemptionCode } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { consumeRateLimit } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { RATE_LIMITS } from "#server/modules/auth/policy.ts";
import { applyMovement, checkAmount } from "./ledger.ts";

// Crockford's base32: no I, L, O or U, so a code read aloud or typed by hand survives.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const PREFIX = "ATL";
const BODY_LENGTH = 12;
export const MAX_CODES_PER_BATCH = 1000;

/** A new code such as `ATL-7K2M-Q9XD-4HPA` (60 random bits). */
export function generateCode(): string {
  let body = "";
  for (let i = 0; i < BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${PREFIX}-${body.slice(0, 4)}-${body.slice(4, 8)}-${body.slice(8)}`;
}

/** What a person typed, reduced to the canonical code: case, spaces, dashes and look-alike letters forgiven. */
export function normalizeCode(input: string): string | null {
  let s = input.toUpperCase().replace(/[^0-9A-Z]/g, "");
  if (s.startsWith(PREFIX)) s = s.slice(PREFIX.length);
  s = s.replace(/O/g, "0").replace(/[IL]/g, "1");
  if (s.length !== BODY_LENGTH || [...s].some((c) => !ALPHABET.includes(c))) return null;
  return `${PREFIX}${s}`;
}

const hashOf = (normalized: string) => createHash("sha256").update(normalized).digest("hex");

export interface CreateCodesInput {
  credits: number;
  maxUses: number;
  count: number;
  expiresAt?: Date | null;
  batch?: string;
  createdBy?: string;
}

/** Creates a batch of codes and returns them in clear, the only time they exist outside their hashes. */
export async function createCodes(db: Db, input: CreateCodesInput): Promise<{ batch: string; codes: string[] }> {
  checkAmount(input.credits);
  if (!Number.isSafeInteger(input.maxUses) || input.maxUses < 1 || input.maxUses > 1_000_000) {
    throw new AppError("bad_request", "uses must be a whole number from 1 to 1000000");
  }
  if (!Number.isSafeInteger(input.count) || input.count < 1 || input.count > MAX_CODES_PER_BATCH) {
    throw new AppError("bad_request", `count must be a whole number from 1 to ${MAX_CODES_PER_BATCH}`);
  }
  if (input.expiresAt && (Number.isNaN(input.expiresAt.getTime()) || input.expiresAt.getTime() <= Date.now())) {
    throw new AppError("bad_request", "the expiry must be a date in the future");
  }
  const batch = input.batch ?? new Date().toISOString().slice(0, 19).replace(/[-:T]/g, "");
  const codes = Array.from({ length: input.count }, generateCode);
  await db.insert(redemptionCode).values(
    codes.map((code) => ({
      codeHash: hashOf(normalizeCode(code)!),
      hint: code.slice(0, 6),
      batch,
      credits: input.credits,
      maxUses: input.maxUses,
      expiresAt: input.expiresAt ?? null,
      createdBy: input.createdBy ?? null,
    })),
  );
  return { batch, codes };
}

/**
 * Redeems a code for a user, in one transaction: the code row is locked, the (code, user) pair is recorded once,
 * a use is counted only while uses remain, and the credits are granted with the ledger's idempotency key. Wrong,
 * expired, used-up and already-redeemed codes each get their own error; attempts are rate-limited per account.
 */
export async function redeemCode(db: Db, { userId, code }: { userId: string; code: string }) {
  const limit = await consumeRateLimit({ db, key: `redeem:user:${userId}`, rule: RATE_LIMITS.redeemPerUser });
  if (!limit.allowed) throw new AppError("rate_limited", `retry after ${limit.retryAfter} s`);
  const normalized = normalizeCode(code);
  if (!normalized) throw new AppError("code_invalid");
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(redemptionCode)
      .where(eq(redemptionCode.codeHash, hashOf(normalized)))
      .for("update");
    if (!row) throw new AppError("code_invalid");
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
    });
    return { credits: row.credits, entry };
  });
}
