import { randomUUID } from "node:crypto";
import pino from "pino";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { creditEntry, creditOrder, subscription } from "#server/db/schema/index.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { handleStripeEvent } from "#server/modules/payments/handle-stripe-event.ts";
import { createStripeClient, type StripeClient } from "#server/modules/payments/stripe-client.ts";
import { addPlan, newPlan } from "#server/modules/billing/edit-plans.ts";
import { expireCredits, expiringCredits } from "#server/modules/credits/expire-credits.ts";
import { currentPlan, requireModelAllowed } from "#server/modules/billing/entitlements.ts";
import { startSubscription } from "#server/modules/billing/start-subscription.ts";
import { changeSubscription } from "#server/modules/billing/change-subscription.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { parseEnv } from "#server/env.ts";
import { siteDefaults, type SiteConfig } from "#config/site.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertUser } from "#tests/support/backends.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

const logger = pino({ level: "silent" });
const site: SiteConfig = { ...siteDefaults, url: "http://atelier.test" };

/*
 * Subscriptions through Stripe Billing, against the local Stripe: Checkout in subscription mode, then the events
 * Stripe sends as the subscription lives (paid, renewed, failed, retried, canceled, refunded), each applied as the
 * webhook applies it. Credits come with each paid invoice, once however often it is delivered; the plan's
 * entitlements last while the subscription is in good standing or in its grace period.
 */
describe.each(backends)("subscriptions on $name", (backend) => {
  let handle: DbHandle;
  let cleanup: () => Promise<void>;
  let fake: FakeStripe;
  let stripe: StripeClient;
  const db = () => handle.db;

  beforeAll(async () => {
    ({ handle, cleanup } = await backend.open());
    await applyMigrations(handle);
    fake = await startFakeStripe();
    fake.autoDeliver = false;
    stripe = (await createStripeClient(
      parseEnv({
        ...stripeEnvFor(fake),
      }),
    ))!;
    await addPlan({
      db: db(),
      actor: CLI_ACTOR,
      definition: newPlan({
        id: "pro",
        name: "Pro",
        names: { de: "Profi" },
        monthly: { usd: 1500, eur: 1400 },
        yearly: { usd: 15000 },
        credits: 1000,
        rollover: 300,
        unlocks: { models: ["premium"], priority: true },
      }),
    });
    await addPlan({
      db: db(),
      actor: CLI_ACTOR,
      definition: newPlan({ id: "basic", name: "Basic", monthly: { usd: 500, eur: 450 }, credits: 300 }),
    });
    await addPlan({
      db: db(),
      actor: CLI_ACTOR,
      definition: newPlan({ id: "trial", name: "Trial", monthly: { usd: 900 }, credits: 300, trialDays: 14 }),
    });
  }, 120_000);
  afterAll(async () => {
    await fake?.close();
    await cleanup?.();
  });

  const apply = (event: Stripe.Event) => handleStripeEvent({ db: db(), stripe, logger, event, graceDays: 7 });
  async function applyAll(events: Stripe.Event[]) {
    for (const event of events) await apply(event);
  }
  /** The events the fake made since `from`, applied in order. */
  const since = async (from: number) => applyAll(fake.events.slice(from));
  const balance = async (userId: string) => (await getBalance({ db: db(), userId })).balance;
  const rowOf = async (userId: string) =>
    (await db().select().from(subscription).where(eq(subscription.userId, userId)))[0]!;

  async function subscribe(userId: string, planId = "pro", interval = "monthly", currency?: string, paidTimes = 1) {
    const { url } = await startSubscription({
      db: db(),
      stripe,
      site,
      logger,
      user: { id: userId, email: `${userId}@example.com` },
      planId,
      interval,
      currency,
      requestKey: randomUUID(),
      locale: "de",
    });
    const sessionId = url.split("/pay/")[1]!;
    const from = fake.events.length;
    fake.pay(sessionId);
    for (const event of fake.events.slice(from)) {
      if (event.type !== "invoice.paid") await apply(event);
      // Stripe delivering one invoice's event many times at once: it is applied once.
      else {
        const outcomes = await Promise.all(Array.from({ length: paidTimes }, () => apply(event)));
        expect(outcomes.filter((o) => o === "applied")).toHaveLength(1);
      }
    }
    return { sessionId, session: fake.sessions.get(sessionId)!, row: await rowOf(userId) };
  }

  it("subscribes through Checkout, and grants the period's credits once however often Stripe delivers the invoice", async () => {
    const userId = await insertUser(db(), "Subscriber");
    const { session, row } = await subscribe(userId, "pro", "monthly", "eur", 20);
    expect(session).toMatchObject({ mode: "subscription", locale: "de", amount_total: 1400, currency: "eur" });
    expect(row).toMatchObject({ planId: "pro", status: "active", interval: "monthly", amount: 1400, currency: "eur" });
    expect(row.currentPeriodEnd.getTime()).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    expect(await balance(userId)).toBe(1000);
    expect((await currentPlan(db(), userId)).id).toBe("pro");

    const [order] = await db().select().from(creditOrder).where(eq(creditOrder.subscriptionId, row.id));
    expect(order).toMatchObject({
      kind: "subscription",
      status: "paid",
      planId: "pro",
      credits: 1000,
      amount: 1400,
      currency: "eur",
      billingReason: "subscription_create",
    });
    expect(order!.invoiceUrl).toMatch(/^http/);
    expect(order!.paymentIntentId).toMatch(/^pi_/);

    // The invoice paid again under another event (invoice.paid twice, as Stripe may): still one grant.
    const paid = fake.events.find(
      (e) => e.type === "invoice.paid" && (e.data.object as Stripe.Invoice).id === order!.invoiceId,
    )!;
    expect(await apply(paid)).toBe("duplicate");
    expect(await apply({ ...paid, id: `evt_again_${randomUUID()}` })).toBe("applied");
    expect(await balance(userId)).toBe(1000);
    const grants = await db()
      .select()
      .from(creditEntry)
      .where(sql`${creditEntry.userId} = ${userId} and ${creditEntry.kind} = 'subscription'`);
    expect(grants).toHaveLength(1);

    // A second subscription beside a live one is refused.
    await expect(
      startSubscription({
        db: db(),
        stripe,
        site,
        logger,
        user: { id: userId, email: "x@example.com" },
        planId: "pro",
        interval: "monthly",
        locale: "en",
      }),
    ).rejects.toMatchObject({ code: "already_subscribed" });
  });

  it("renews each period with its credits, keeps the plan through a failed renewal's grace, then falls to the free plan", async () => {
    const userId = await insertUser(db(), "Renewer");
    const { row } = await subscribe(userId);
    const firstEnd = row.currentPeriodEnd.getTime();

    let from = fake.events.length;
    fake.renew(row.stripeSubscriptionId, { outcome: "paid" });
    await since(from);
    expect(await balance(userId)).toBe(2000);
    const renewed = await rowOf(userId);
    expect(renewed.currentPeriodEnd.getTime()).toBeGreaterThan(firstEnd);

    // The first period's credits expire at its end, but for the plan's rollover, which lasts to the next one's end.
    expect(await expiringCredits({ db: db(), userId })).toEqual([
      { expiresAt: new Date(firstEnd), credits: 1000 },
      { expiresAt: renewed.currentPeriodEnd, credits: 1000 },
    ]);
    await expireCredits({ db: db(), now: new Date(firstEnd + 1000) });
    expect(await balance(userId)).toBe(1300);
    expect(await expiringCredits({ db: db(), userId })).toEqual([
      { expiresAt: renewed.currentPeriodEnd, credits: 1300 },
    ]);

    from = fake.events.length;
    fake.renew(row.stripeSubscriptionId, { outcome: "failed" });
    await since(from);
    const failing = await rowOf(userId);
    expect(failing).toMatchObject({ status: "past_due", paymentIssue: "failed" });
    expect(failing.graceUntil!.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect((await currentPlan(db(), userId)).id).toBe("pro");
    expect(await balance(userId)).toBe(1300);

    // The grace period runs out while Stripe still retries: the free plan's entitlements, the credits kept.
    await db()
      .update(subscription)
      .set({ graceUntil: new Date(Date.now() - 1000) })
      .where(eq(subscription.id, row.id));
    expect((await currentPlan(db(), userId)).id).toBe("free");
    expect(await balance(userId)).toBe(1300);

    // The card is fixed and a retry succeeds: the plan is back, with the period's credits.
    const open = [...fake.invoices.values()].find(
      (i) => i.status === "open" && i.parent?.subscription_details?.subscription === row.stripeSubscriptionId,
    )!;
    from = fake.events.length;
    fake.payInvoice(open.id!);
    await since(from);
    expect(await rowOf(userId)).toMatchObject({ status: "active", paymentIssue: null, graceUntil: null });
    expect((await currentPlan(db(), userId)).id).toBe("pro");
    expect(await balance(userId)).toBe(2300);

    // Retries exhausted on a later renewal: Stripe cancels it, and the account is on the free plan.
    from = fake.events.length;
    fake.renew(row.stripeSubscriptionId, { outcome: "failed" });
    fake.endDunning(row.stripeSubscriptionId, "canceled");
    await since(from);
    expect(await rowOf(userId)).toMatchObject({ status: "canceled" });
    expect((await currentPlan(db(), userId)).id).toBe("free");
    expect(await balance(userId)).toBe(2300);
  });

  it("cancels at the period's end, keeping the plan until then, and takes back a refunded invoice's credits", async () => {
    const userId = await insertUser(db(), "Leaver");
    const { row } = await subscribe(userId);
    let from = fake.events.length;
    fake.cancel(row.stripeSubscriptionId, { atPeriodEnd: true });
    await since(from);
    expect(await rowOf(userId)).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
    expect((await currentPlan(db(), userId)).id).toBe("pro");

    const [order] = await db().select().from(creditOrder).where(eq(creditOrder.subscriptionId, row.id));
    from = fake.events.length;
    fake.refundInvoice(order!.invoiceId!);
    await since(from);
    expect(await balance(userId)).toBe(0);
    expect((await db().select().from(creditOrder).where(eq(creditOrder.id, order!.id)))[0]).toMatchObject({
      status: "refunded",
      creditsReversed: 1000,
    });

    from = fake.events.length;
    fake.endPeriod(row.stripeSubscriptionId);
    await since(from);
    expect((await rowOf(userId)).status).toBe("canceled");
    expect((await currentPlan(db(), userId)).id).toBe("free");
  });

  it("grants a yearly period twelve months' credits, and a trial its first month's", async () => {
    const yearly = await insertUser(db(), "Yearly");
    await subscribe(yearly, "pro", "yearly");
    expect(await rowOf(yearly)).toMatchObject({ interval: "yearly", amount: 15000 });
    expect(await balance(yearly)).toBe(12_000);

    const trying = await insertUser(db(), "Trying");
    const { session } = await subscribe(trying, "trial");
    expect(session.amount_total).toBe(0);
    expect(await rowOf(trying)).toMatchObject({ status: "trialing", planId: "trial" });
    expect(await balance(trying)).toBe(300);
  });

  it("upgrades at once with the prorated difference in credits, and downgrades at the period's end", async () => {
    const userId = await insertUser(db(), "Changer");
    await subscribe(userId, "basic", "monthly", "usd");
    expect(await balance(userId)).toBe(300);
    const change = async (planId: string, interval = "monthly") => {
      const from = fake.events.length;
      const outcome = await changeSubscription({ db: db(), stripe, logger, userId, planId, interval, locale: "en" });
      await fake.settled();
      await since(from);
      return outcome;
    };

    // Up to Pro, right after subscribing: nearly the whole month is left, so nearly all of the 700 more credits.
    expect(await change("pro")).toBe("upgraded");
    const upgraded = await rowOf(userId);
    expect(upgraded).toMatchObject({ planId: "pro", amount: 1500, nextPlanId: null });
    expect((await currentPlan(db(), userId)).id).toBe("pro");
    const afterUpgrade = await balance(userId);
    expect(afterUpgrade).toBeGreaterThan(300 + 690);
    expect(afterUpgrade).toBeLessThanOrEqual(300 + 700);
    const [proration] = await db()
      .select()
      .from(creditOrder)
      .where(sql`${creditOrder.userId} = ${userId} and ${creditOrder.billingReason} = 'subscription_update'`);
    expect(proration).toMatchObject({ planId: "pro", status: "paid" });
    expect(proration!.amount).toBeGreaterThan(900);

    // Down to Basic: Pro stays until the renewal, which bills Basic and grants its credits.
    expect(await change("basic")).toBe("scheduled");
    expect(await rowOf(userId)).toMatchObject({ planId: "pro", nextPlanId: "basic", amount: 500 });
    expect((await currentPlan(db(), userId)).id).toBe("pro");
    // Changed their mind, then changed it again.
    expect(await change("pro")).toBe("unscheduled");
    expect(await rowOf(userId)).toMatchObject({ planId: "pro", nextPlanId: null, amount: 1500 });
    expect(await change("basic")).toBe("scheduled");

    const from = fake.events.length;
    fake.renew(upgraded.stripeSubscriptionId, { outcome: "paid", deliver: false });
    await since(from);
    expect(await rowOf(userId)).toMatchObject({ planId: "basic", nextPlanId: null, amount: 500 });
    expect((await currentPlan(db(), userId)).id).toBe("basic");
    expect(await balance(userId)).toBe(afterUpgrade + 300);
    const [renewal] = await db()
      .select()
      .from(creditOrder)
      .where(sql`${creditOrder.userId} = ${userId} and ${creditOrder.billingReason} = 'subscription_cycle'`);
    expect(renewal).toMatchObject({ planId: "basic", amount: 500, credits: 300 });

    // The plan it is on, with nothing pending, is no change.
    await expect(change("basic")).rejects.toMatchObject({ code: "conflict" });
  });

  it("reserves a plan's models to its subscribers, administrators aside", async () => {
    const model = { id: "flux-ultra", name: "Flux Ultra", tags: ["premium"] };
    const free = await insertUser(db(), "Free");
    const refusal = await requireModelAllowed(db(), { id: free }, model, "de").catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      code: "plan_required",
      status: 403,
      values: { model: "Flux Ultra", plan: "Profi" },
    });
    await expect(requireModelAllowed(db(), { id: free, role: "admin" }, model)).resolves.toBeUndefined();
    await expect(requireModelAllowed(db(), { id: free }, { id: "demo-image" })).resolves.toBeUndefined();

    const paying = await insertUser(db(), "Paying");
    await subscribe(paying);
    await expect(requireModelAllowed(db(), { id: paying }, model)).resolves.toBeUndefined();
  });
});
