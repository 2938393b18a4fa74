import { and, eq, gte, inArray, lt, notInArray, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import {
  CREDIT_ENTRY_KINDS,
  creditBalance,
  creditEntry,
  creditOrder,
  generation,
  paymentEvent,
  subscription,
  user,
} from "#server/db/schema/index.ts";
import { GENERATION_STATUSES, OPEN_STATUSES, type GenerationStatus } from "#common/generation.ts";

const DAY_MS = 86_400_000;
/** A new account is activated when it starts its first generation within this long of signing up. */
export const ACTIVATION_MS = 7 * DAY_MS;

/** An amount of money in a currency's minor units. */
export interface Money {
  currency: string;
  amount: number;
}

/** The business over one period. */
export interface Figures {
  signups: number;
  /** Of those sign-ups, the accounts that started a generation within 7 days of signing up. */
  activated: number;
  /** Accounts that started a generation in the 7 days before the period's end. */
  weeklyActives: number;
  /** Accounts with an order paid in the period. */
  payingUsers: number;
  creditsSold: number;
  /** Credits captured by finished jobs. */
  creditsSpent: number;
  /** Credits given without payment, net: sign-up bonuses, codes and administrators' adjustments. */
  creditsGiven: number;
  /** Credits taken back after refunds and chargebacks, net of reinstated chargebacks. */
  creditsTakenBack: number;
  /** Every account's balance at the period's end (what has been sold or given and not yet spent). */
  creditsOutstanding: number;
  /** Orders paid in the period, per currency, largest first. */
  revenue: Money[];
  /** Orders first refunded in the period, and what has been refunded on them. */
  refunds: { orders: number; amounts: Money[] };
  /** Disputes opened in the period, and those of them lost. */
  disputes: { opened: number; lost: number };
  /** Generations created in the period. */
  generations: { total: number; byStatus: Record<GenerationStatus, number>; failureRate: number | null };
  /**
   * Subscriptions started and ended in the period; churn is those ended over those running at its start (null when
   * none ran); failed payments are the renewals Stripe could not charge.
   */
  subscriptions: { started: number; ended: number; churnRate: number | null; failedPayments: number };
}

/** The subscriptions running now, and the monthly revenue they bring. */
export interface SubscriptionsNow {
  /** Paid, in a trial, or in the grace period after a failed renewal. */
  active: number;
  trialing: number;
  /** A renewal failed and the grace period runs. */
  pastDue: number;
  /** Monthly recurring revenue per currency: each paying subscription's price per month (a yearly one's twelfth). */
  mrr: Money[];
}

export interface ModelFigures {
  modelId: string;
  jobs: number;
  succeeded: number;
  failed: number;
}

/** One bar of the charts: an hour of a day-long period, else a day (UTC). */
export interface Bucket {
  /** `2026-11-25T14` for an hour, `2026-11-25` for a day. */
  start: string;
  revenue: Money[];
  succeeded: number;
  failed: number;
  /** Queued, processing or canceled. */
  other: number;
}

export interface Overview {
  from: Date;
  to: Date;
  current: Figures;
  /** The period of the same length just before. */
  previous: Figures;
  bucket: "hour" | "day";
  series: Bucket[];
  /** The current period's generations per model, most first. */
  models: ModelFigures[];
  /** Jobs waiting or running now, and since when the oldest waiting one has waited. */
  queue: { queued: number; processing: number; oldestQueuedAt: Date | null };
  subscriptionsNow: SubscriptionsNow;
}

const n = (expression: SQL) => sql<number>`${expression}`.mapWith(Number);
const bySize = (a: Money, b: Money) => b.amount - a.amount || a.currency.localeCompare(b.currency);
const moneyOf = (rows: { currency: string; amount: number }[]) => rows.filter((r) => r.amount !== 0).sort(bySize);

/**
 * The business from `from` to `to` and over the period of the same length before it, with the current period in
 * hourly (one day or less) or daily buckets. Every figure is a query on indexed time columns, run side by side.
 */
export async function businessOverview({ db, from, to }: { db: Db; from: Date; to: Date }): Promise<Overview> {
  const length = to.getTime() - from.getTime();
  const prevFrom = new Date(from.getTime() - length);
  const bucket = length <= DAY_MS ? "hour" : "day";
  // For each query below: a row's time `t` falls in the current period, or in the previous one.
  const isCurrent = (t: SQL | unknown) => sql`${t} >= ${from}`;
  const isPrevious = (t: SQL | unknown) => sql`${t} < ${from}`;
  const inBoth = (column: Parameters<typeof gte>[0]) => and(gte(column, prevFrom), lt(column, to));
  // Rows are grouped by the bucket's time and only the groups are formatted: formatting every row costs a third more.
  const truncated = (column: unknown) => sql`date_trunc(${sql.raw(`'${bucket}'`)}, ${column} at time zone 'UTC')`;
  const bucketOf = (column: unknown) =>
    sql<string>`to_char(${truncated(column)}, ${sql.raw(bucket === "hour" ? `'YYYY-MM-DD"T"HH24'` : `'YYYY-MM-DD'`)})`;

  const [
    accounts,
    actives,
    jobs,
    ledger,
    balances,
    revenue,
    payers,
    disputes,
    refunds,
    queue,
    jobSeries,
    paidSeries,
    subscriptions,
    failedPayments,
    mrr,
  ] = await Promise.all([
    db
      .select({
        current: n(sql`count(*) filter (where ${isCurrent(user.createdAt)})`),
        previous: n(sql`count(*) filter (where ${isPrevious(user.createdAt)})`),
        // The table is named here in full: a single-table query leaves its columns unqualified.
        activatedCurrent: n(sql`count(*) filter (where ${isCurrent(user.createdAt)} and ${activatedUser})`),
        activatedPrevious: n(sql`count(*) filter (where ${isPrevious(user.createdAt)} and ${activatedUser})`),
      })
      .from(user)
      .where(inBoth(user.createdAt)),
    // Two windows of 7 days: before the period's end, and before the previous period's end.
    db
      .select({
        current: n(sql`count(distinct ${generation.userId}) filter (where ${isCurrent(generation.createdAt)})`),
        previous: n(sql`count(distinct ${generation.userId}) filter (where ${isPrevious(generation.createdAt)})`),
      })
      .from(generation)
      .where(
        or(
          and(gte(generation.createdAt, new Date(to.getTime() - 7 * DAY_MS)), lt(generation.createdAt, to)),
          and(gte(generation.createdAt, new Date(from.getTime() - 7 * DAY_MS)), lt(generation.createdAt, from)),
        ),
      ),
    db
      .select({
        modelId: generation.modelId,
        status: generation.status,
        current: n(sql`count(*) filter (where ${isCurrent(generation.createdAt)})`),
        previous: n(sql`count(*) filter (where ${isPrevious(generation.createdAt)})`),
      })
      .from(generation)
      .where(inBoth(generation.createdAt))
      .groupBy(generation.modelId, generation.status),
    // From the start of the previous period to now: the part after `to` turns today's balances into `to`'s.
    db
      .select({
        kind: creditEntry.kind,
        current: n(
          sql`coalesce(sum(${creditEntry.amount}) filter (where ${isCurrent(creditEntry.createdAt)} and ${creditEntry.createdAt} < ${to}), 0)`,
        ),
        previous: n(sql`coalesce(sum(${creditEntry.amount}) filter (where ${isPrevious(creditEntry.createdAt)}), 0)`),
        after: n(sql`coalesce(sum(${creditEntry.amount}) filter (where ${creditEntry.createdAt} >= ${to}), 0)`),
      })
      .from(creditEntry)
      .where(gte(creditEntry.createdAt, prevFrom))
      .groupBy(creditEntry.kind),
    db.select({ total: n(sql`coalesce(sum(${creditBalance.balance}), 0)`) }).from(creditBalance),
    db
      .select({
        currency: creditOrder.currency,
        current: n(sql`coalesce(sum(${creditOrder.amount}) filter (where ${isCurrent(creditOrder.paidAt)}), 0)`),
        previous: n(sql`coalesce(sum(${creditOrder.amount}) filter (where ${isPrevious(creditOrder.paidAt)}), 0)`),
      })
      .from(creditOrder)
      .where(inBoth(creditOrder.paidAt))
      .groupBy(creditOrder.currency),
    db
      .select({
        current: n(sql`count(distinct ${creditOrder.userId}) filter (where ${isCurrent(creditOrder.paidAt)})`),
        previous: n(sql`count(distinct ${creditOrder.userId}) filter (where ${isPrevious(creditOrder.paidAt)})`),
      })
      .from(creditOrder)
      .where(inBoth(creditOrder.paidAt)),
    db
      .select({
        current: n(sql`count(*) filter (where ${isCurrent(creditOrder.disputedAt)})`),
        previous: n(sql`count(*) filter (where ${isPrevious(creditOrder.disputedAt)})`),
        lostCurrent: n(
          sql`count(*) filter (where ${isCurrent(creditOrder.disputedAt)} and ${creditOrder.disputeStatus} = 'lost')`,
        ),
        lostPrevious: n(
          sql`count(*) filter (where ${isPrevious(creditOrder.disputedAt)} and ${creditOrder.disputeStatus} = 'lost')`,
        ),
      })
      .from(creditOrder)
      .where(inBoth(creditOrder.disputedAt)),
    refundsBetween(db, prevFrom, from, to),
    db
      .select({
        queued: n(sql`count(*) filter (where ${generation.status} = 'queued')`),
        processing: n(sql`count(*) filter (where ${generation.status} = 'processing')`),
        oldestQueuedAt: sql<string | null>`min(${generation.createdAt}) filter (where ${generation.status} = 'queued')`,
      })
      .from(generation)
      .where(inArray(generation.status, [...OPEN_STATUSES])),
    db
      .select({
        start: bucketOf(generation.createdAt),
        succeeded: n(sql`count(*) filter (where ${generation.status} = 'succeeded')`),
        failed: n(sql`count(*) filter (where ${generation.status} = 'failed')`),
        other: n(sql`count(*) filter (where ${generation.status} not in ('succeeded', 'failed'))`),
      })
      .from(generation)
      .where(and(gte(generation.createdAt, from), lt(generation.createdAt, to)))
      .groupBy(truncated(generation.createdAt)),
    db
      .select({
        start: bucketOf(creditOrder.paidAt),
        currency: creditOrder.currency,
        amount: n(sql`sum(${creditOrder.amount})`),
      })
      .from(creditOrder)
      .where(and(gte(creditOrder.paidAt, from), lt(creditOrder.paidAt, to)))
      .groupBy(truncated(creditOrder.paidAt), creditOrder.currency),
    // One row per subscription ever made (a checkout never paid left out): small beside the ledger.
    db
      .select({
        startedCurrent: n(
          sql`count(*) filter (where ${isCurrent(subscription.createdAt)} and ${subscription.createdAt} < ${to})`,
        ),
        startedPrevious: n(
          sql`count(*) filter (where ${subscription.createdAt} >= ${prevFrom} and ${isPrevious(subscription.createdAt)})`,
        ),
        endedCurrent: n(
          sql`count(*) filter (where ${subscription.endedAt} >= ${from} and ${subscription.endedAt} < ${to})`,
        ),
        endedPrevious: n(
          sql`count(*) filter (where ${subscription.endedAt} >= ${prevFrom} and ${subscription.endedAt} < ${from})`,
        ),
        runningAtCurrent: n(sql`count(*) filter (where ${runningAt(from)})`),
        runningAtPrevious: n(sql`count(*) filter (where ${runningAt(prevFrom)})`),
        active: n(sql`count(*) filter (where ${entitled})`),
        trialing: n(sql`count(*) filter (where ${subscription.status} = 'trialing')`),
        pastDue: n(sql`count(*) filter (where ${subscription.status} in ('past_due', 'unpaid') and ${entitled})`),
      })
      .from(subscription)
      .where(notInArray(subscription.status, ["incomplete", "incomplete_expired"])),
    db
      .select({
        current: n(sql`count(*) filter (where ${isCurrent(paymentEvent.createdAt)})`),
        previous: n(sql`count(*) filter (where ${isPrevious(paymentEvent.createdAt)})`),
      })
      .from(paymentEvent)
      .where(and(eq(paymentEvent.type, "invoice.payment_failed"), inBoth(paymentEvent.createdAt))),
    db
      .select({
        currency: subscription.currency,
        amount: n(
          sql`round(coalesce(sum(case when ${subscription.interval} = 'yearly' then ${subscription.amount} / 12.0 else ${subscription.amount} end), 0))`,
        ),
      })
      .from(subscription)
      .where(and(sql`${entitled}`, sql`${subscription.status} <> 'trialing'`))
      .groupBy(subscription.currency),
  ]);

  const sumOf = (kinds: readonly string[], which: "current" | "previous" | "after") =>
    ledger.filter((r) => kinds.includes(r.kind)).reduce((total, r) => total + r[which], 0);
  // The debits as a positive amount. Not `-sum`: nothing spent would be -0, which the server formats as "-0" while
  // the page's data (JSON has no -0) reaches the browser as 0, and the page would not hydrate.
  const spentOf = (kinds: readonly string[], which: "current" | "previous") => 0 - sumOf(kinds, which);
  const outstandingAtEnd = balances[0]!.total - sumOf(CREDIT_ENTRY_KINDS, "after");
  const outstandingAtStart = outstandingAtEnd - sumOf(CREDIT_ENTRY_KINDS, "current");

  const figures = (which: "current" | "previous", outstanding: number): Figures => {
    const byStatus = Object.fromEntries(GENERATION_STATUSES.map((s) => [s, 0])) as Record<GenerationStatus, number>;
    for (const row of jobs) byStatus[row.status] += row[which];
    const ended = byStatus.succeeded + byStatus.failed;
    const lost = which === "current" ? disputes[0]!.lostCurrent : disputes[0]!.lostPrevious;
    const refunded = refunds.filter((r) => r.period === which);
    return {
      signups: accounts[0]![which],
      activated: which === "current" ? accounts[0]!.activatedCurrent : accounts[0]!.activatedPrevious,
      weeklyActives: actives[0]![which],
      payingUsers: payers[0]![which],
      creditsSold: sumOf(["purchase"], which),
      creditsSpent: spentOf(["capture"], which),
      creditsGiven: sumOf(["signup_bonus", "redemption", "admin_adjustment"], which),
      creditsTakenBack: spentOf(["refund", "chargeback", "chargeback_reversal"], which),
      creditsOutstanding: outstanding,
      revenue: moneyOf(revenue.map((r) => ({ currency: r.currency, amount: r[which] }))),
      refunds: {
        orders: refunded.reduce((total, r) => total + r.orders, 0),
        amounts: moneyOf(refunded.map((r) => ({ currency: r.currency, amount: r.amount }))),
      },
      disputes: { opened: disputes[0]![which], lost },
      generations: {
        total: Object.values(byStatus).reduce((a, b) => a + b, 0),
        byStatus,
        failureRate: ended === 0 ? null : byStatus.failed / ended,
      },
      subscriptions: subscriptionFigures(which),
    };
  };
  const subs = subscriptions[0]!;
  const subscriptionFigures = (which: "current" | "previous"): Figures["subscriptions"] => {
    const running = which === "current" ? subs.runningAtCurrent : subs.runningAtPrevious;
    const endedThen = which === "current" ? subs.endedCurrent : subs.endedPrevious;
    return {
      started: which === "current" ? subs.startedCurrent : subs.startedPrevious,
      ended: endedThen,
      churnRate: running === 0 ? null : endedThen / running,
      failedPayments: failedPayments[0]![which],
    };
  };

  const models = new Map<string, ModelFigures>();
  for (const row of jobs) {
    if (row.current === 0) continue;
    const m = models.get(row.modelId) ?? { modelId: row.modelId, jobs: 0, succeeded: 0, failed: 0 };
    m.jobs += row.current;
    if (row.status === "succeeded") m.succeeded += row.current;
    if (row.status === "failed") m.failed += row.current;
    models.set(row.modelId, m);
  }

  const jobsAt = new Map(jobSeries.map((r) => [r.start, r]));
  const series = bucketStarts(from, to, bucket).map((start): Bucket => {
    const j = jobsAt.get(start);
    return {
      start,
      revenue: moneyOf(
        paidSeries.filter((r) => r.start === start).map(({ currency, amount }) => ({ currency, amount })),
      ),
      succeeded: j?.succeeded ?? 0,
      failed: j?.failed ?? 0,
      other: j?.other ?? 0,
    };
  });

  const q = queue[0]!;
  return {
    from,
    to,
    current: figures("current", outstandingAtEnd),
    previous: figures("previous", outstandingAtStart),
    bucket,
    series,
    models: [...models.values()].sort((a, b) => b.jobs - a.jobs || a.modelId.localeCompare(b.modelId)),
    queue: {
      queued: q.queued,
      processing: q.processing,
      oldestQueuedAt: q.oldestQueuedAt === null ? null : new Date(q.oldestQueuedAt),
    },
    subscriptionsNow: { active: subs.active, trialing: subs.trialing, pastDue: subs.pastDue, mrr: moneyOf(mrr) },
  };
}

/** A subscription whose plan applies now: paid, in a trial, or in the grace period of a failed renewal. */
const entitled = sql`(${subscription.status} in ('active', 'trialing') or (${subscription.status} in ('past_due', 'unpaid') and ${subscription.graceUntil} > now()))`;

/** A subscription that had started and not ended at `at`. */
const runningAt = (at: Date) =>
  sql`${subscription.createdAt} < ${at} and (${subscription.endedAt} is null or ${subscription.endedAt} >= ${at})`;

/** The account started a generation within 7 days of signing up. */
const activatedUser = sql`exists (select 1 from ${generation} g where g.user_id = "user".id and g.created_at < "user".created_at + ${sql.raw(`interval '${ACTIVATION_MS / 1000} seconds'`)})`;

/** Orders whose first refund came in either period, with what has been refunded on them, per currency. */
async function refundsBetween(db: Db, prevFrom: Date, from: Date, to: Date) {
  const firstRefund = db
    .select({
      orderId: paymentEvent.orderId,
      at: sql<Date>`min(${paymentEvent.createdAt})`.as("at"),
    })
    .from(paymentEvent)
    .where(sql`${paymentEvent.type} = 'charge.refunded'`)
    .groupBy(paymentEvent.orderId)
    .as("first_refund");
  const rows = await db
    .select({
      period: sql<"current" | "previous">`case when ${firstRefund.at} >= ${from} then 'current' else 'previous' end`,
      currency: creditOrder.currency,
      orders: n(sql`count(*)`),
      amount: n(sql`coalesce(sum(${creditOrder.refundedAmount}), 0)`),
    })
    .from(firstRefund)
    .innerJoin(creditOrder, sql`${creditOrder.id} = ${firstRefund.orderId}`)
    .where(and(gte(firstRefund.at, prevFrom), lt(firstRefund.at, to)))
    .groupBy(sql`1`, creditOrder.currency);
  return rows;
}

/** The buckets' keys from the one holding `from` to the one holding the period's last instant. */
export function bucketStarts(from: Date, to: Date, bucket: "hour" | "day"): string[] {
  const step = bucket === "hour" ? 3_600_000 : DAY_MS;
  const keyLength = bucket === "hour" ? 13 : 10;
  const starts: string[] = [];
  for (let t = Math.floor(from.getTime() / step) * step; t < to.getTime(); t += step)
    starts.push(new Date(t).toISOString().slice(0, keyLength));
  return starts;
}
