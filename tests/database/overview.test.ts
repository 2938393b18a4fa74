import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  creditBalance,
  creditEntry,
  creditOrder,
  generation,
  paymentEvent,
  plan,
  subscription,
  user,
  type CreditEntryKind,
} from "#server/db/schema/index.ts";
import { newPlan } from "#server/modules/billing/edit-plans.ts";
import type { SubscriptionStatus } from "#common/plans.ts";
import { bucketStarts, businessOverview } from "#server/modules/overview/business-figures.ts";
import { backends, migratedDatabase } from "#tests/support/backends.ts";
import type { GenerationStatus } from "#common/generation.ts";

// A week ending at noon on 20 November: the current period is from noon on the 13th, the previous one from noon on
// the 6th. Every figure below is counted by hand from the fixture in the comments.
const to = new Date("2026-11-20T12:00:00Z");
const from = new Date("2026-11-13T12:00:00Z");
const at = (iso: string) => new Date(`2026-${iso}Z`);

describe.each(backends)("the console's overview on $name", (backend) => {
  const db = migratedDatabase(backend);
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // Sign-ups: A and B in the current period, C and D in the previous one, E long before, F after its end.
    const accounts = {
      A: "11-14T00:00:00",
      B: "11-15T00:00:00",
      C: "11-10T00:00:00",
      D: "11-08T00:00:00",
      E: "10-01T00:00:00",
      F: "11-20T13:00:00",
    };
    for (const [name, created] of Object.entries(accounts)) {
      ids[name] = randomUUID();
      await db()
        .insert(user)
        .values({ id: ids[name]!, name, email: `${ids[name]}@example.com`, createdAt: at(created) });
    }

    // A's first generation comes a day after signing up (activated); C's eight days after (not); D's a day after.
    const jobs: [string, string, GenerationStatus, string][] = [
      ["A", "m1", "succeeded", "11-15T10:00:00"],
      ["A", "m1", "failed", "11-15T11:00:00"],
      ["C", "m2", "succeeded", "11-18T09:00:00"],
      ["E", "m2", "queued", "11-19T00:00:00"],
      ["E", "m2", "processing", "11-20T11:00:00"],
      ["D", "m1", "succeeded", "11-09T00:00:00"],
      ["E", "m1", "failed", "11-12T00:00:00"],
      ["A", "m1", "succeeded", "11-20T13:00:00"],
    ];
    for (const [who, modelId, status, created] of jobs)
      await db()
        .insert(generation)
        .values({
          userId: ids[who]!,
          kind: "image",
          tool: "text-to-image",
          modelId,
          prompt: "a lighthouse",
          params: { aspectRatio: "1:1", count: 1 },
          status,
          creditsHeld: 5,
          timeoutSeconds: 60,
          createdAt: at(created),
        });

    // The ledger, in order for each account; the balances are what it sums to.
    const entries: [string, CreditEntryKind, number, string][] = [
      ["A", "signup_bonus", 50, "11-14T00:00:00"],
      ["A", "purchase", 100, "11-14T10:00:00"],
      ["A", "hold", 0, "11-15T09:59:00"],
      ["A", "capture", -10, "11-15T10:00:00"],
      ["A", "purchase", 100, "11-16T12:00:00"],
      ["A", "chargeback", -100, "11-18T00:00:00"],
      ["B", "signup_bonus", 50, "11-15T00:00:00"],
      ["B", "purchase", 500, "11-16T10:00:00"],
      ["B", "refund", -500, "11-17T10:00:00"],
      ["D", "signup_bonus", 50, "11-08T00:00:00"],
      ["D", "purchase", 100, "11-08T00:00:00"],
      ["D", "capture", -20, "11-09T00:00:00"],
      ["D", "refund", -50, "11-10T00:00:00"],
      ["E", "signup_bonus", 50, "10-01T00:00:00"],
      ["E", "purchase", 100, "11-12T00:00:00"],
      ["E", "chargeback", -100, "11-12T05:00:00"],
      ["E", "chargeback_reversal", 100, "11-13T00:00:00"],
      ["E", "admin_adjustment", 30, "11-19T00:00:00"],
      ["E", "redemption", 20, "11-19T01:00:00"],
      ["E", "capture", -5, "11-19T02:00:00"],
      ["E", "purchase", 100, "11-20T13:00:00"],
      ["E", "admin_adjustment", -10, "11-20T14:00:00"],
    ];
    const balances = new Map<string, number>();
    for (const [who, kind, amount, created] of entries) {
      const balance = (balances.get(who) ?? 0) + amount;
      balances.set(who, balance);
      await db()
        .insert(creditEntry)
        .values({
          userId: ids[who]!,
          kind,
          amount,
          balanceAfter: balance,
          idempotencyKey: randomUUID(),
          createdAt: at(created),
        });
    }
    for (const [who, balance] of balances) await db().insert(creditBalance).values({ userId: ids[who]!, balance });

    const orders: {
      name: string;
      who: string;
      amount: number;
      currency: string;
      paid?: string;
      refunds?: string[];
      refunded?: number;
      disputed?: [string, "won" | "lost"];
    }[] = [
      { name: "O1", who: "A", amount: 1000, currency: "usd", paid: "11-14T10:00:00" },
      {
        name: "O2",
        who: "B",
        amount: 4000,
        currency: "usd",
        paid: "11-16T10:00:00",
        refunds: ["11-17T10:00:00"],
        refunded: 4000,
      },
      {
        name: "O3",
        who: "A",
        amount: 900,
        currency: "eur",
        paid: "11-16T12:00:00",
        disputed: ["11-18T00:00:00", "lost"],
      },
      // Refunded in part in the previous period and the rest in this one: it counts once, where it was first refunded.
      {
        name: "O4",
        who: "D",
        amount: 1000,
        currency: "usd",
        paid: "11-08T00:00:00",
        refunds: ["11-10T00:00:00", "11-15T00:00:00"],
        refunded: 1000,
      },
      { name: "O5", who: "C", amount: 1000, currency: "usd" },
      { name: "O6", who: "E", amount: 1000, currency: "usd", paid: "11-20T13:00:00" },
      {
        name: "O7",
        who: "E",
        amount: 1000,
        currency: "usd",
        paid: "11-12T00:00:00",
        disputed: ["11-12T05:00:00", "won"],
      },
    ];
    for (const o of orders) {
      const [row] = await db()
        .insert(creditOrder)
        .values({
          userId: ids[o.who]!,
          packId: "starter",
          credits: 100,
          amount: o.amount,
          currency: o.currency,
          status: o.refunds ? "refunded" : o.paid ? "paid" : "pending",
          requestKey: o.name,
          paidAt: o.paid ? at(o.paid) : null,
          refundedAmount: o.refunded ?? 0,
          disputedAt: o.disputed ? at(o.disputed[0]) : null,
          disputeStatus: o.disputed?.[1] ?? null,
          disputeId: o.disputed ? `dp_${o.name}` : null,
        })
        .returning({ id: creditOrder.id });
      for (const [i, refundedAt] of (o.refunds ?? []).entries())
        await db()
          .insert(paymentEvent)
          .values({
            id: `evt_${o.name}_${i}`,
            provider: "stripe",
            type: "charge.refunded",
            orderId: row!.id,
            createdAt: at(refundedAt),
          });
      // Other events of the order do not count as refunds.
      if (o.paid)
        await db()
          .insert(paymentEvent)
          .values({
            id: `evt_${o.name}_paid`,
            provider: "stripe",
            type: "checkout.session.completed",
            orderId: row!.id,
            createdAt: at(o.paid),
          });
    }

    // Subscriptions to a plan: started, ended and running at each period's start, and what they bring each month.
    await db()
      .insert(plan)
      .values(newPlan({ id: "pro", name: "Pro", monthly: { usd: 1500, eur: 900 }, yearly: { usd: 12000 } }));
    const subscriptions: {
      who: string;
      interval: "monthly" | "yearly";
      amount: number;
      currency: string;
      status: SubscriptionStatus;
      created: string;
      ended?: string;
      grace?: Date;
    }[] = [
      // S1: started in the current period, paid.
      { who: "A", interval: "monthly", amount: 1500, currency: "usd", status: "active", created: "11-14T00:00:00" },
      // S2: yearly, running through both periods: a twelfth of its price each month.
      { who: "B", interval: "yearly", amount: 12000, currency: "usd", status: "active", created: "11-01T00:00:00" },
      // S3: running at both starts, ended in the current period.
      {
        who: "C",
        interval: "monthly",
        amount: 900,
        currency: "eur",
        status: "canceled",
        created: "10-20T00:00:00",
        ended: "11-15T00:00:00",
      },
      // S4: started and ended in the previous period.
      {
        who: "D",
        interval: "monthly",
        amount: 1500,
        currency: "usd",
        status: "canceled",
        created: "11-07T00:00:00",
        ended: "11-10T00:00:00",
      },
      // S5: a renewal failed, its grace period runs: still counted, and behind on payment.
      {
        who: "E",
        interval: "monthly",
        amount: 1500,
        currency: "usd",
        status: "past_due",
        created: "10-01T00:00:00",
        grace: new Date(Date.now() + 86_400_000),
      },
      // S6: a trial that started after the period's end: running now, bringing nothing yet.
      { who: "F", interval: "monthly", amount: 1500, currency: "usd", status: "trialing", created: "11-20T13:00:00" },
      // S7: a checkout never paid: left out of everything.
      {
        who: "A",
        interval: "monthly",
        amount: 1500,
        currency: "usd",
        status: "incomplete_expired",
        created: "11-16T00:00:00",
      },
      // S8: its grace period is over: running (not ended) but no longer entitled.
      {
        who: "D",
        interval: "monthly",
        amount: 1500,
        currency: "usd",
        status: "past_due",
        created: "10-05T00:00:00",
        grace: new Date(Date.now() - 86_400_000),
      },
    ];
    for (const [i, sub] of subscriptions.entries())
      await db()
        .insert(subscription)
        .values({
          userId: ids[sub.who]!,
          planId: "pro",
          interval: sub.interval,
          status: sub.status,
          stripeSubscriptionId: `sub_overview_${i}`,
          stripeCustomerId: `cus_overview_${sub.who}`,
          amount: sub.amount,
          currency: sub.currency,
          currentPeriodStart: at(sub.created),
          currentPeriodEnd: new Date(at(sub.created).getTime() + 30 * 86_400_000),
          graceUntil: sub.grace ?? null,
          endedAt: sub.ended ? at(sub.ended) : null,
          stripeUpdatedAt: at(sub.created),
          createdAt: at(sub.created),
        });
    // Renewals Stripe could not charge: one in each period, one after the end.
    for (const [i, failed] of ["11-17T00:00:00", "11-08T00:00:00", "11-20T13:00:00"].entries())
      await db()
        .insert(paymentEvent)
        .values({ id: `evt_failed_${i}`, provider: "stripe", type: "invoice.payment_failed", createdAt: at(failed) });
  });

  it("matches the figures counted by hand, for the period and the one before", async () => {
    const overview = await businessOverview({ db: db(), from, to });
    expect(overview.current).toEqual({
      signups: 2, // A, B
      activated: 1, // A
      weeklyActives: 3, // A, C, E
      payingUsers: 2, // A (O1, O3), B (O2)
      creditsSold: 700,
      creditsSpent: 15,
      creditsGiven: 150, // 50 + 50 bonuses, 30 adjusted, 20 redeemed
      creditsTakenBack: 600, // A's chargeback, B's refund
      creditsOutstanding: 465, // 555 in the balances, less the 90 moved after the period's end
      revenue: [
        { currency: "usd", amount: 5000 },
        { currency: "eur", amount: 900 },
      ],
      refunds: { orders: 1, amounts: [{ currency: "usd", amount: 4000 }] },
      disputes: { opened: 1, lost: 1 },
      generations: {
        total: 5,
        byStatus: { queued: 1, processing: 1, succeeded: 2, failed: 1, canceled: 0 },
        failureRate: 1 / 3,
      },
      // S1 started, S3 ended of the four running at the start (S2, S3, S5, S8); one renewal failed.
      subscriptions: { started: 1, ended: 1, churnRate: 0.25, failedPayments: 1 },
    });
    expect(overview.previous).toEqual({
      signups: 2, // C, D
      activated: 1, // D (C's first generation came eight days after)
      weeklyActives: 2, // D, E
      payingUsers: 2, // D, E
      creditsSold: 200,
      creditsSpent: 20,
      creditsGiven: 50,
      creditsTakenBack: 50, // D's refund; E's chargeback was reinstated
      creditsOutstanding: 230, // at the period's start: 465 less the current period's 235
      revenue: [{ currency: "usd", amount: 2000 }],
      refunds: { orders: 1, amounts: [{ currency: "usd", amount: 1000 }] },
      disputes: { opened: 1, lost: 0 },
      generations: {
        total: 2,
        byStatus: { queued: 0, processing: 0, succeeded: 1, failed: 1, canceled: 0 },
        failureRate: 0.5,
      },
      // S4 started and ended; four ran at the start (S2, S3, S5, S8).
      subscriptions: { started: 1, ended: 1, churnRate: 0.25, failedPayments: 1 },
    });
  });

  it("breaks the period down by model and by day, and counts the queue as it is now", async () => {
    const overview = await businessOverview({ db: db(), from, to });
    expect(overview.models).toEqual([
      { modelId: "m2", jobs: 3, succeeded: 1, failed: 0 },
      { modelId: "m1", jobs: 2, succeeded: 1, failed: 1 },
    ]);
    expect(overview.bucket).toBe("day");
    const empty = { revenue: [], succeeded: 0, failed: 0, other: 0 };
    expect(overview.series).toEqual([
      { start: "2026-11-13", ...empty },
      { start: "2026-11-14", ...empty, revenue: [{ currency: "usd", amount: 1000 }] },
      { start: "2026-11-15", ...empty, succeeded: 1, failed: 1 },
      {
        start: "2026-11-16",
        ...empty,
        revenue: [
          { currency: "usd", amount: 4000 },
          { currency: "eur", amount: 900 },
        ],
      },
      { start: "2026-11-17", ...empty },
      { start: "2026-11-18", ...empty, succeeded: 1 },
      { start: "2026-11-19", ...empty, other: 1 },
      { start: "2026-11-20", ...empty, other: 1 },
    ]);
    expect(overview.queue).toEqual({ queued: 1, processing: 1, oldestQueuedAt: at("11-19T00:00:00") });
    // Now: S1, S2, S5 (in its grace period) and S6 (in a trial); the monthly revenue of those that pay.
    expect(overview.subscriptionsNow).toEqual({
      active: 4,
      trialing: 1,
      pastDue: 1,
      mrr: [{ currency: "usd", amount: 1500 + 12000 / 12 + 1500 }],
    });
  });

  it("shows a day in hours", async () => {
    const day = await businessOverview({ db: db(), from: at("11-14T23:00:00"), to: at("11-15T23:00:00") });
    expect(day.bucket).toBe("hour");
    expect(day.series).toHaveLength(24);
    expect(day.series[0]!.start).toBe("2026-11-14T23");
    expect(day.series.find((b) => b.start === "2026-11-15T10")).toMatchObject({ succeeded: 1 });
    expect(day.series.find((b) => b.start === "2026-11-15T11")).toMatchObject({ failed: 1 });
    expect(day.current.generations.total).toBe(2);
    expect(day.current.signups).toBe(1); // B at midnight
  });
});

describe("the overview's buckets", () => {
  it("run from the bucket holding the start to the one holding the last instant", () => {
    expect(bucketStarts(new Date("2026-11-13T12:00:00Z"), new Date("2026-11-15T00:00:00Z"), "day")).toEqual([
      "2026-11-13",
      "2026-11-14",
    ]);
    expect(bucketStarts(new Date("2026-11-13T22:30:00Z"), new Date("2026-11-14T00:30:00Z"), "hour")).toEqual([
      "2026-11-13T22",
      "2026-11-13T23",
      "2026-11-14T00",
    ]);
  });
});
