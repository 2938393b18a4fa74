import { and, asc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditBalance, creditLot, creditOrder, subscription } from "#server/db/schema/index.ts";
import type { SubscriptionStatus } from "#common/plans.ts";
import { applyMovement, type Tx } from "./ledger.ts";

/** The accounts one run expires credits of, at most; the next run (an hour later) takes the rest. */
const ACCOUNTS_PER_RUN = 1_000;

/** The subscription states in which a plan's unused credits still carry over to its next period. */
const RENEWING: SubscriptionStatus[] = ["active", "trialing", "past_due"];

/**
 * Expires what is due of the lots whose time has come (the hourly job), one account per transaction: each expiry an
 * `expiry` entry naming the grant it came from. A plan's lot first keeps what carries over (up to its rollover, as a
 * lot of its own for one more period of the same length) while its subscription renews. Credits held for work in
 * flight are not taken: they stay in their lot, which a charge takes first, and what is left of it expires at a
 * later run once the hold is settled.
 */
export async function expireCredits({ db, now = new Date() }: { db: Db; now?: Date }) {
  const due = await db
    .selectDistinct({ userId: creditLot.userId })
    .from(creditLot)
    .where(and(gt(creditLot.remaining, 0), lte(creditLot.expiresAt, now)))
    .limit(ACCOUNTS_PER_RUN);
  let expired = 0;
  let carried = 0;
  for (const { userId } of due) {
    const done = await db.transaction((tx) => expireFor(tx, userId, now));
    expired += done.expired;
    carried += done.carried;
  }
  return { accounts: due.length, expired, carried };
}

async function expireFor(tx: Tx, userId: string, now: Date) {
  // The balance row first, as every movement locks it: the account's lots then change here alone.
  const [row] = await tx
    .select({ balance: creditBalance.balance, held: creditBalance.held })
    .from(creditBalance)
    .where(eq(creditBalance.userId, userId))
    .for("update");
  const lots = await tx
    .select()
    .from(creditLot)
    .where(and(eq(creditLot.userId, userId), gt(creditLot.remaining, 0), lte(creditLot.expiresAt, now)))
    .orderBy(asc(creditLot.expiresAt), asc(creditLot.createdAt), asc(creditLot.id))
    .for("update");
  const renewing = await renewingGrants(tx, lots);
  let available = row ? row.balance - row.held : 0;
  let expired = 0;
  let carried = 0;
  for (const lot of lots) {
    let remaining = lot.remaining;
    // A plan's unused credits carry over (up to its rollover) while the subscription renews.
    const renews = lot.rollover > 0 && lot.periodSeconds ? renewing.get(lot.reference ?? "") : undefined;
    const keep = renews ? Math.min(remaining, lot.rollover) : 0;
    if (keep > 0) {
      // Until the next period's end: the subscription's, once it renewed; else one more period of the same length.
      const periodEnd = renews!.getTime() > lot.expiresAt!.getTime() ? renews! : null;
      await tx.insert(creditLot).values({
        userId,
        source: "rollover",
        reference: lot.reference,
        amount: keep,
        remaining: keep,
        expiresAt: periodEnd ?? new Date(lot.expiresAt!.getTime() + lot.periodSeconds! * 1000),
      });
      remaining -= keep;
      carried += keep;
    }
    const expire = Math.min(remaining, available);
    await tx
      .update(creditLot)
      .set({ remaining: remaining - expire, rollover: 0 })
      .where(eq(creditLot.id, lot.id));
    if (expire > 0) {
      await applyMovement(tx, {
        userId,
        kind: "expiry",
        amount: -expire,
        heldChange: 0,
        reference: lot.reference,
        // What is left of a lot only shrinks, so each expiry of it has its own key.
        idempotencyKey: `expiry:${lot.id}:${lot.remaining}`,
        lots: "taken",
      });
      available -= expire;
      expired += expire;
    }
  }
  return { expired, carried };
}

/** Of the lots' grants, those whose subscription still renews (by reference, `order:<id>`), with its period's end. */
async function renewingGrants(tx: Tx, lots: { reference: string | null; rollover: number }[]) {
  const orders = lots
    .filter((lot) => lot.rollover > 0 && lot.reference?.startsWith("order:"))
    .map((lot) => lot.reference!.slice("order:".length));
  if (orders.length === 0) return new Map<string, Date>();
  const rows = await tx
    .select({ id: creditOrder.id, periodEnd: subscription.currentPeriodEnd })
    .from(creditOrder)
    .innerJoin(subscription, eq(subscription.id, creditOrder.subscriptionId))
    .where(and(inArray(creditOrder.id, orders), inArray(subscription.status, RENEWING)));
  return new Map(rows.map((r) => [`order:${r.id}`, r.periodEnd]));
}

/** When an account's credits expire: the amounts due at each date, soonest first (the balance's breakdown). */
export async function expiringCredits({ db, userId, limit = 5 }: { db: Db | Tx; userId: string; limit?: number }) {
  return db
    .select({
      expiresAt: creditLot.expiresAt,
      credits: sql<number>`sum(${creditLot.remaining})::bigint`.mapWith(Number),
    })
    .from(creditLot)
    .where(and(eq(creditLot.userId, userId), gt(creditLot.remaining, 0), sql`${creditLot.expiresAt} is not null`))
    .groupBy(creditLot.expiresAt)
    .orderBy(asc(creditLot.expiresAt))
    .limit(limit);
}

/** The account's credits that expire first, and when (null: none expire); one look at the lots' index. */
export async function nextExpiry({ db, userId }: { db: Db | Tx; userId: string }) {
  const [soonest] = await expiringCredits({ db, userId, limit: 1 });
  return soonest ? { credits: soonest.credits, expiresAt: soonest.expiresAt!.toISOString() } : null;
}
