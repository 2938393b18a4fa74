import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditBalance, creditEntry, creditHold, creditLot, type CreditEntryKind } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
export { MAX_EXPIRY_DAYS } from "#common/plans.ts";

/** The largest amount one operation may move: far above any real pack, far below bigint's range. */
export const MAX_CREDIT_AMOUNT = 1_000_000_000;

export type CreditEntry = typeof creditEntry.$inferSelect;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Balance {
  balance: number;
  held: number;
  available: number;
}

/** A positive whole number of credits within bounds, or a 400. */
export function checkAmount(amount: number, { allowZero = false } = {}) {
  if (!Number.isSafeInteger(amount) || amount < (allowZero ? 0 : 1) || amount > MAX_CREDIT_AMOUNT) {
    throw new AppError("bad_request", `invalid credit amount: ${amount}`);
  }
}

async function entryByKey(db: Db | Tx, idempotencyKey: string) {
  const [row] = await db.select().from(creditEntry).where(eq(creditEntry.idempotencyKey, idempotencyKey));
  return row;
}

export async function getBalance({ db, userId }: { db: Db | Tx; userId: string }): Promise<Balance> {
  const [row] = await db
    .select({ balance: creditBalance.balance, held: creditBalance.held })
    .from(creditBalance)
    .where(eq(creditBalance.userId, userId));
  const balance = row?.balance ?? 0;
  const held = row?.held ?? 0;
  return { balance, held, available: balance - held };
}

interface Movement {
  userId: string;
  kind: CreditEntryKind;
  /** Change to the balance. */
  amount: number;
  /** Change to the held part. */
  heldChange: number;
  /** The balance may only go down while at least this much stays available (balance - held); null: no guard. */
  holdId?: string;
  reference?: string | null;
  idempotencyKey: string;
  /** A grant's lot: when its credits expire (never when null or left out), and how many may carry over then. */
  lot?: LotTerms;
  /** The caller changed the lots itself (the expiry, which takes from the lots due). */
  lots?: "taken";
}

/** When a grant's credits expire, and for a plan's credits, how many carry over one more period of the same length. */
export interface LotTerms {
  expiresAt?: Date | null;
  rollover?: number;
  periodSeconds?: number | null;
}

/**
 * Moves a balance and appends its ledger entry in one transaction. The balance row is changed by one guarded
 * update (the guard keeps balance - held from going below zero, the CHECKs are the backstop) and the entry's
 * unique idempotency key makes a repeated call a no-op that returns the first entry. Concurrent repeats race on
 * that key: the loser's transaction rolls back whole, balance change included.
 */
async function move(db: Db, m: Movement): Promise<{ entry: CreditEntry; repeated: boolean }> {
  const existing = await entryByKey(db, m.idempotencyKey);
  if (existing) return { entry: existing, repeated: true };
  try {
    const entry = await db.transaction(async (tx) => applyMovement(tx, m));
    return { entry, repeated: false };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await entryByKey(db, m.idempotencyKey);
    if (!winner) throw error;
    return { entry: winner, repeated: true };
  }
}

/** The guarded balance update and the entry, inside the caller's transaction. */
export async function applyMovement(tx: Tx, m: Movement): Promise<CreditEntry> {
  // Taking credits (or holding them) needs that much available; adding needs a row to exist.
  const needs = Math.max(0, -m.amount) + Math.max(0, m.heldChange);
  let row: { balance: number; held: number } | undefined;
  if (m.amount > 0 && m.heldChange === 0) {
    [row] = await tx
      .insert(creditBalance)
      .values({ userId: m.userId, balance: m.amount })
      .onConflictDoUpdate({
        target: creditBalance.userId,
        set: { balance: sql`${creditBalance.balance} + ${m.amount}`, updatedAt: sql`now()` },
      })
      .returning({ balance: creditBalance.balance, held: creditBalance.held });
  } else {
    [row] = await tx
      .update(creditBalance)
      .set({
        balance: sql`${creditBalance.balance} + ${m.amount}`,
        held: sql`${creditBalance.held} + ${m.heldChange}`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(creditBalance.userId, m.userId),
          // Settling a hold frees what it held, so only new takings are checked against what is available.
          m.heldChange < 0
            ? sql`${creditBalance.balance} + ${m.amount} >= ${creditBalance.held} + ${m.heldChange}`
            : sql`${creditBalance.balance} - ${creditBalance.held} >= ${needs}`,
        ),
      )
      .returning({ balance: creditBalance.balance, held: creditBalance.held });
  }
  if (!row) throw new AppError("insufficient_credits");
  if (m.lots === "taken") {
    // The caller took the credits from the lots it names.
  } else if (m.amount > 0) await addLot(tx, m);
  else if (m.amount < 0) await takeFromLots(tx, m.userId, -m.amount, TAKE_BACKS.has(m.kind) ? m.reference : null);
  const [entry] = await tx
    .insert(creditEntry)
    .values({
      userId: m.userId,
      kind: m.kind,
      amount: m.amount,
      heldChange: m.heldChange,
      balanceAfter: row.balance,
      holdId: m.holdId,
      reference: m.reference ?? null,
      idempotencyKey: m.idempotencyKey,
    })
    .returning();
  return entry!;
}

/** Kinds that take back a grant: they take from that grant's own lot first. */
const TAKE_BACKS = new Set<CreditEntryKind>(["refund", "chargeback"]);

/** A grant's lot, in the transaction that adds it to the balance. */
async function addLot(tx: Tx, m: Movement) {
  await tx.insert(creditLot).values({
    userId: m.userId,
    source: m.kind,
    reference: m.reference ?? null,
    amount: m.amount,
    remaining: m.amount,
    expiresAt: m.lot?.expiresAt ?? null,
    rollover: Math.min(m.lot?.rollover ?? 0, m.amount),
    periodSeconds: m.lot?.periodSeconds ?? null,
  });
}

/**
 * Takes `amount` from the account's lots, in the transaction that took it from the balance (whose row it has
 * locked, so the account's lots change one transaction at a time): the lot that expires first, then the next; a
 * take-back of a grant takes from that grant's lot (`preferred`, its reference) before the others.
 */
async function takeFromLots(tx: Tx, userId: string, amount: number, preferred: string | null | undefined) {
  const lots = await tx
    .select({ id: creditLot.id, remaining: creditLot.remaining })
    .from(creditLot)
    .where(and(eq(creditLot.userId, userId), gt(creditLot.remaining, 0)))
    .orderBy(
      ...(preferred ? [sql`${creditLot.reference} is not distinct from ${preferred} desc`] : []),
      sql`${creditLot.expiresAt} asc nulls last`,
      asc(creditLot.createdAt),
      asc(creditLot.id),
    )
    .for("update");
  let left = amount;
  for (const lot of lots) {
    if (left === 0) break;
    const take = Math.min(left, lot.remaining);
    await tx
      .update(creditLot)
      .set({ remaining: sql`${creditLot.remaining} - ${take}` })
      .where(eq(creditLot.id, lot.id));
    left -= take;
  }
  // The lots add up to the balance, which had this much: anything else is a bug, and the transaction is undone.
  if (left > 0) throw new Error(`the lots of ${userId} hold ${amount - left} of the ${amount} credits taken`);
}

/** The expiry of credits granted now that last `days` days; 0: never. */
export function expiryAfter(days: number, from = new Date()): Date | null {
  return days > 0 ? new Date(from.getTime() + days * 86_400_000) : null;
}

/** When the credits of an earlier grant expire (its first lot's), for credits given back to it. */
export async function expiryOfGrant(tx: Tx, reference: string): Promise<Date | null> {
  const [lot] = await tx
    .select({ expiresAt: creditLot.expiresAt })
    .from(creditLot)
    .where(eq(creditLot.reference, reference))
    .orderBy(asc(creditLot.createdAt))
    .limit(1);
  return lot?.expiresAt ?? null;
}

export type GrantKind = "signup_bonus" | "purchase" | "redemption" | "admin_adjustment";

/** Adds credits: a bonus, a purchase, a redemption or an admin's grant. Repeating the key changes nothing. */
export async function grantCredits({
  db,
  ...grant
}: {
  db: Db;
  userId: string;
  amount: number;
  kind: GrantKind;
  reference?: string;
  idempotencyKey: string;
  lot?: LotTerms;
}) {
  checkAmount(grant.amount);
  return move(db, { ...grant, heldChange: 0 });
}

/**
 * Reserves credits for a job. Fails with `insufficient_credits` (the catalogue's not-enough-credits message) when
 * less than `amount` is available. The same key returns the same hold.
 */
export async function holdCredits({
  db,
  ...hold
}: {
  db: Db;
  userId: string;
  amount: number;
  reference?: string;
  idempotencyKey: string;
}): Promise<{ holdId: string; entry: CreditEntry; repeated: boolean }> {
  checkAmount(hold.amount);
  const existing = await entryByKey(db, hold.idempotencyKey);
  if (existing) return { holdId: existing.holdId!, entry: existing, repeated: true };
  try {
    return await db.transaction(async (tx) => ({ ...(await holdInTx(tx, hold)), repeated: false }));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await entryByKey(db, hold.idempotencyKey);
    if (!winner) throw error;
    return { holdId: winner.holdId!, entry: winner, repeated: true };
  }
}

export type Settlement = "capture" | "release";
/** How to settle a hold: charge part or all of it, or give it all back. */
export type Settle = { holdId: string; as: "capture"; charge: number } | { holdId: string; as: "release" };

/**
 * Settles a hold exactly once: `capture` charges `charge` (at most what was held; the rest goes back), `release`
 * returns it all. The hold row moves from `open` with a conditional update and the ledger's partial unique index
 * refuses a second settlement entry, so concurrent settlements have one winner. Repeating the winning settlement
 * is a no-op; the other kind after it is a 409.
 */
export async function settleHold({
  db,
  ...s
}: { db: Db } & Settle): Promise<{ entry: CreditEntry; repeated: boolean }> {
  const charge = s.as === "capture" ? s.charge : 0;
  checkAmount(charge, { allowZero: true });
  const earlier = async () => {
    const [row] = await db
      .select()
      .from(creditEntry)
      .where(and(eq(creditEntry.holdId, s.holdId), sql`${creditEntry.kind} in ('capture', 'release')`));
    if (!row) return undefined;
    if (row.kind !== s.as) throw new AppError("conflict", `hold ${s.holdId} was already ${row.kind}d`);
    return { entry: row, repeated: true };
  };
  const done = await earlier();
  if (done) return done;
  try {
    const entry = await db.transaction((tx) => settleHoldInTx(tx, s));
    return { entry, repeated: false };
  } catch (error) {
    if (!(error instanceof HoldNotOpen) && !isUniqueViolation(error)) throw error;
    const settled = await earlier();
    if (settled) return settled;
    const [hold] = await db.select().from(creditHold).where(eq(creditHold.id, s.holdId));
    if (!hold) throw new AppError("not_found", `no hold ${s.holdId}`);
    throw new AppError("bad_request", `cannot charge ${charge} on a hold of ${hold.amount}`);
  }
}

export class HoldNotOpen extends Error {}

/**
 * The settlement inside the caller's transaction, for callers that change their own rows with it (a job's status).
 * Throws HoldNotOpen when the hold was already settled; the ledger's unique index stops a second settlement entry.
 */
export async function settleHoldInTx(tx: Tx, s: Settle): Promise<CreditEntry> {
  const charge = s.as === "capture" ? s.charge : 0;
  checkAmount(charge, { allowZero: true });
  const [hold] = await tx
    .update(creditHold)
    .set({
      status: s.as === "capture" ? "captured" : "released",
      captured: s.as === "capture" ? charge : null,
      settledAt: sql`now()`,
    })
    .where(and(eq(creditHold.id, s.holdId), eq(creditHold.status, "open"), sql`${creditHold.amount} >= ${charge}`))
    .returning({ userId: creditHold.userId, amount: creditHold.amount, reference: creditHold.reference });
  if (!hold) throw new HoldNotOpen();
  if (!hold.userId) throw new AppError("not_found", `hold ${s.holdId} belongs to a deleted account`);
  return applyMovement(tx, {
    userId: hold.userId,
    kind: s.as,
    amount: -charge,
    heldChange: -hold.amount,
    holdId: s.holdId,
    // The settlement is about what the hold was for (the job).
    reference: hold.reference,
    idempotencyKey: `${s.as}:${s.holdId}`,
  });
}

/** A hold inside the caller's transaction (a job created with its hold): refused when too little is available. */
export async function holdInTx(
  tx: Tx,
  h: { userId: string; amount: number; reference?: string; idempotencyKey: string },
): Promise<{ holdId: string; entry: CreditEntry }> {
  checkAmount(h.amount);
  const [hold] = await tx
    .insert(creditHold)
    .values({ userId: h.userId, amount: h.amount, reference: h.reference ?? null })
    .returning({ id: creditHold.id });
  const entry = await applyMovement(tx, {
    userId: h.userId,
    kind: "hold",
    amount: 0,
    heldChange: h.amount,
    holdId: hold!.id,
    reference: h.reference,
    idempotencyKey: h.idempotencyKey,
  });
  return { holdId: hold!.id, entry };
}

/**
 * Takes credits back after a refund or chargeback: as many as are available, never below zero (credits held for
 * jobs in flight stay held). Returns what was taken and the shortfall, which the caller records on the order.
 */
export async function takeBackCredits({
  db,
  ...t
}: {
  db: Db;
  userId: string;
  amount: number;
  kind: "refund" | "chargeback";
  reference?: string;
  idempotencyKey: string;
}): Promise<{ entry: CreditEntry | null; taken: number; shortfall: number; repeated: boolean }> {
  checkAmount(t.amount);
  const existing = await entryByKey(db, t.idempotencyKey);
  if (existing)
    return { entry: existing, taken: -existing.amount, shortfall: t.amount + existing.amount, repeated: true };
  try {
    return await db.transaction(async (tx) => ({ ...(await takeBackInTx(tx, t)), repeated: false }));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await entryByKey(db, t.idempotencyKey);
    if (!winner) throw error;
    return { entry: winner, taken: -winner.amount, shortfall: t.amount + winner.amount, repeated: true };
  }
}

/** The take-back inside the caller's transaction (which also records the shortfall, e.g. on the order). */
export async function takeBackInTx(
  tx: Tx,
  t: { userId: string; amount: number; kind: "refund" | "chargeback"; reference?: string; idempotencyKey: string },
): Promise<{ entry: CreditEntry; taken: number; shortfall: number }> {
  // Lock the balance row so what is available cannot change between reading it and taking it.
  const [row] = await tx
    .select({ balance: creditBalance.balance, held: creditBalance.held })
    .from(creditBalance)
    .where(eq(creditBalance.userId, t.userId))
    .for("update");
  const taken = Math.min(t.amount, row ? row.balance - row.held : 0);
  const entry = await applyMovementOrRecord(tx, { ...t, amount: -taken, heldChange: 0 }, row !== undefined);
  return { entry, taken, shortfall: t.amount - taken };
}

/** A take-back of nothing still leaves its entry (amount 0), so the history shows the refund and its key holds. */
async function applyMovementOrRecord(tx: Tx, m: Movement, hasRow: boolean) {
  if (!hasRow) {
    await tx.insert(creditBalance).values({ userId: m.userId }).onConflictDoNothing();
  }
  return applyMovement(tx, m);
}
