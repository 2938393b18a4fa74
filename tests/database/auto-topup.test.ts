import { randomUUID } from "node:crypto";
import pino from "pino";
import { and, eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { autoTopUp, billingCustomer, creditEntry, creditOrder } from "#server/db/schema/index.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { handleStripeEvent } from "#server/modules/payments/handle-stripe-event.ts";
import { createStripeClient, type StripeClient } from "#server/modules/payments/stripe-client.ts";
import {
  autoTopUpOf,
  requestTopUp,
  runTopUp,
  saveAutoTopUp,
  scanTopUps,
  TOPUP_QUEUE,
  turnOffAutoTopUp,
} from "#server/modules/billing/auto-topup.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { MAIL_QUEUE, type MailJob } from "#server/modules/mail/queue-mail.ts";
import { uuidFrom } from "#server/jobs/send-in-tx.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { parseEnv, type Env } from "#server/env.ts";
import { siteDefaults, type SiteConfig } from "#config/site.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertUserWithCredits, openEngine } from "#tests/support/backends.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

const logger = pino({ level: "silent" });
const site: SiteConfig = { ...siteDefaults, url: "http://atelier.test" };
const HOUR = 60 * 60 * 1000;

/*
 * Automatic top-up against the local Stripe: a card saved through Checkout in setup mode, then charged off-session
 * when the account falls below its threshold, once an hour at most, within its monthly maximum; a declined charge
 * turns it off. The charge's answer and its webhook event settle the order once between them.
 */
describe.each(backends)("automatic top-up on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let fake: FakeStripe;
  let stripe: StripeClient;
  let env: Env;
  let storage: ReturnType<typeof createLocalStorage>;
  const db = () => handle.db;

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    storage = createLocalStorage(engine.filesDir);
    fake = await startFakeStripe();
    fake.autoDeliver = false;
    env = parseEnv({ IMAGE_CLASSIFIER: "off", ...stripeEnvFor(fake) });
    stripe = (await createStripeClient(env))!;
  }, 120_000);
  afterAll(async () => {
    await fake?.close();
    await engine?.close();
  });

  const apply = (event: Stripe.Event) =>
    handleStripeEvent({ db: db(), stripe, logger, event, mail: { boss, siteUrl: site.url } });
  const top = (userId: string, now?: Date) => runTopUp({ db: db(), stripe, boss, site, logger, userId, now });
  const available = async (userId: string) => (await getBalance({ db: db(), userId })).available;
  const automaticOrders = (userId: string) =>
    db()
      .select()
      .from(creditOrder)
      .where(and(eq(creditOrder.userId, userId), eq(creditOrder.automatic, true)))
      .orderBy(creditOrder.createdAt);
  const purchases = (userId: string) =>
    db()
      .select()
      .from(creditEntry)
      .where(and(eq(creditEntry.userId, userId), eq(creditEntry.kind, "purchase")));
  const charges = (customer: string) =>
    [...fake.events]
      .filter((e) => e.type === "payment_intent.succeeded")
      .map((e) => e.data.object as Stripe.PaymentIntent)
      .filter((intent) => intent.customer === customer);
  const customerOf = async (userId: string) =>
    (await db().select().from(billingCustomer).where(eq(billingCustomer.userId, userId)))[0]!.stripeCustomerId;
  const mailOf = async (kind: string, orderId: string) =>
    (await boss.getJobById(MAIL_QUEUE, uuidFrom(`mail:${kind}:${orderId}`)))?.data as MailJob | undefined;

  /** The orders page's form, saved by the account. */
  const save = (userId: string, input: Record<string, string> = {}, locale: "fr" | "de" | "en" = "fr") =>
    saveAutoTopUp({
      db: db(),
      stripe,
      site,
      logger,
      user: { id: userId, email: `${userId}@example.com` },
      input: { threshold: "80", pack: "starter", monthlyMax: "3", ...input },
      locale,
    });
  /** Saved, and the card saved on Stripe's page. */
  async function setUp(userId: string, input: Record<string, string> = {}) {
    const { url } = await save(userId, input);
    expect(url).toContain("/pay/");
    const from = fake.events.length;
    fake.pay(url!.split("/pay/")[1]!);
    for (const event of fake.events.slice(from)) await apply(event);
  }

  it("saves a card through Checkout in setup mode, then is on with it", async () => {
    const userId = await insertUserWithCredits(db(), 100);
    const { url } = await save(userId, { threshold: "50", pack: "creator", monthlyMax: "2" }, "de");
    // Off until the card is saved.
    expect(await autoTopUpOf(db(), userId)).toMatchObject({ enabled: false, card: null, threshold: 50 });
    const session = fake.sessions.get(url!.split("/pay/")[1]!)!;
    expect(session).toMatchObject({ mode: "setup", customer: await customerOf(userId), locale: "de" });
    const completed = fake.pay(session.id);
    expect(await apply(completed)).not.toBe("ignored");
    expect(await autoTopUpOf(db(), userId)).toMatchObject({
      enabled: true,
      threshold: 50,
      packId: "creator",
      monthlyMax: 2,
      card: { brand: "visa", last4: "4242" },
      stoppedReason: null,
      usedThisMonth: 0,
    });
    // Saved again with a card: on at once, nothing more at Stripe.
    await turnOffAutoTopUp(db(), userId);
    const again = await save(userId, { threshold: "60", pack: "creator", monthlyMax: "2" }, "de");
    expect(again.url).toBeUndefined();
    expect(await autoTopUpOf(db(), userId)).toMatchObject({ enabled: true, threshold: 60 });
  });

  it("refuses a pack that is not sold and numbers out of range, saving nothing", async () => {
    const userId = await insertUserWithCredits(db(), 0);
    const refusal = (input: Record<string, string>) =>
      save(userId, input, "en")
        .then(() => "saved")
        .catch((error: unknown) => (error instanceof AppError ? error.code : String(error)));
    expect(await refusal({ pack: "nope" })).toBe("unknown_pack");
    expect(await refusal({ threshold: "-1" })).toBe("invalid_auto_topup");
    expect(await refusal({ monthlyMax: "0" })).toBe("invalid_auto_topup");
    expect(await refusal({ threshold: "ten" })).toBe("invalid_auto_topup");
    expect(await autoTopUpOf(db(), userId)).toBeNull();
  });

  it("fires once below the threshold under 50 concurrent jobs, and never twice within the hour", async () => {
    const userId = await insertUserWithCredits(db(), 125);
    await setUp(userId);
    const customer = await customerOf(userId);
    const deps = { db: db(), boss, env, storage, models: ModelRegistry.builtIn(env) };
    const submits = await Promise.all(
      Array.from({ length: 50 }, () =>
        submitGeneration(deps, {
          user: { id: userId },
          input: { tool: "text-to-image", model: "demo-image", prompt: "a lighthouse in a storm" },
        }),
      ),
    );
    expect(submits).toHaveLength(50);
    const low = await available(userId);
    expect(low).toBeLessThan(80);
    // However many holds asked, one job waits for the account.
    const queued = (await db().execute(
      sql`select count(*)::int as waiting from pgboss.job where name = ${TOPUP_QUEUE} and singleton_key = ${userId} and state = 'created'`,
    )) as unknown as { rows: { waiting: number }[] };
    expect(queued.rows[0]!.waiting).toBe(1);

    // Workers (or retries) running it at once: one purchase.
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => top(userId)));
    expect(outcomes.filter((o) => o === "charged")).toHaveLength(1);
    // The others found it not due or too soon, or resent the same charge and found the order settled.
    expect(outcomes.filter((o) => o !== "charged").every((o) => ["not_due", "too_soon", "settled"].includes(o))).toBe(
      true,
    );
    const [order, ...more] = await automaticOrders(userId);
    expect(more).toEqual([]);
    expect(order).toMatchObject({ status: "paid", packId: "starter", credits: 100, amount: 500, automatic: true });
    expect(order!.receiptUrl).toMatch(/^http/);
    expect(await available(userId)).toBe(low + 100);
    expect(charges(customer)).toHaveLength(1);
    // Its receipt is e-mailed once, in the account's language.
    expect(await mailOf("billing.topUpReceipt", order!.id)).toMatchObject({
      kind: "billing.topUpReceipt",
      url: expect.stringContaining(`/user/orders/${order!.id}`),
    });

    // Stripe's events for the payment, delivered (twice) after the job settled it: nothing more.
    const paymentEvents = fake.events.filter((e) => e.type.startsWith("payment_intent."));
    for (const event of [...paymentEvents, ...paymentEvents]) await apply(event);
    expect(await purchases(userId)).toHaveLength(1);

    // Below the threshold again within the hour: nothing; an hour later: the next one.
    await db().update(autoTopUp).set({ threshold: 10_000 }).where(eq(autoTopUp.userId, userId));
    expect(await top(userId)).toBe("too_soon");
    expect(await scanTopUps({ db: db(), boss })).toBe(0);
    expect(await top(userId, new Date(Date.now() + HOUR + 60_000))).toBe("charged");
    expect(await automaticOrders(userId)).toHaveLength(2);
    expect(charges(customer)).toHaveLength(2);
  });

  it("stops at the monthly maximum", async () => {
    const userId = await insertUserWithCredits(db(), 0);
    await setUp(userId, { threshold: "1000", monthlyMax: "1" });
    expect(await top(userId)).toBe("charged");
    expect(await top(userId, new Date(Date.now() + 2 * HOUR))).toMatch(/^(monthly_max|charged)$/);
    // Within the same month (a run near the month's end may have crossed into the next one).
    const now = new Date();
    if (new Date(now.getTime() + 2 * HOUR).getUTCMonth() === now.getUTCMonth())
      expect(await automaticOrders(userId)).toHaveLength(1);
    expect((await autoTopUpOf(db(), userId))!.usedThisMonth).toBe(1);
    // An hour on, still below its threshold: not queued again while the month's maximum is reached.
    await db()
      .update(autoTopUp)
      .set({ lastFiredAt: new Date(Date.now() - 2 * HOUR) })
      .where(eq(autoTopUp.userId, userId));
    expect(await requestTopUp({ db: db(), boss, userId })).toBe(false);
  });

  /** A top-up whose charge the card's bank refuses as `outcome` says. */
  async function refusedWith(userId: string, outcome: "declined" | "authentication_required") {
    fake.offSessionOutcome = outcome;
    try {
      return await top(userId);
    } finally {
      fake.offSessionOutcome = "paid";
    }
  }

  it("turns itself off on a declined charge and tells the account once; saving again turns it back on", async () => {
    const userId = await insertUserWithCredits(db(), 0);
    await setUp(userId);
    expect(await refusedWith(userId, "declined")).toBe("failed");
    const [order] = await automaticOrders(userId);
    expect(order).toMatchObject({ status: "failed" });
    expect(await autoTopUpOf(db(), userId)).toMatchObject({ enabled: false, stoppedReason: "declined" });
    expect(await mailOf("billing.topUpFailed", order!.id)).toMatchObject({ kind: "billing.topUpFailed" });
    // The failure's event changes nothing more; a stopped top-up does not fire.
    for (const event of fake.events.filter((e) => e.type === "payment_intent.payment_failed")) await apply(event);
    expect(await top(userId, new Date(Date.now() + 2 * HOUR))).toBe("off");
    expect(await available(userId)).toBe(0);

    const { url } = await save(userId);
    expect(url).toBeUndefined();
    expect(await autoTopUpOf(db(), userId)).toMatchObject({ enabled: true, stoppedReason: null });
  });

  it("says when the bank wanted the card holder there", async () => {
    const userId = await insertUserWithCredits(db(), 0);
    await setUp(userId);
    expect(await refusedWith(userId, "authentication_required")).toBe("failed");
    expect(await autoTopUpOf(db(), userId)).toMatchObject({ enabled: false, stoppedReason: "authentication_required" });
  });

  it("resumes a purchase whose charge did not get through, with the same charge, once", async () => {
    const userId = await insertUserWithCredits(db(), 0);
    await setUp(userId);
    const customer = await customerOf(userId);
    fake.outage = 500;
    try {
      await expect(top(userId)).rejects.toThrow();
    } finally {
      fake.outage = null;
    }
    const [pending] = await automaticOrders(userId);
    expect(pending).toMatchObject({ status: "pending" });
    expect(await top(userId)).toBe("charged");
    expect(await automaticOrders(userId)).toEqual([expect.objectContaining({ id: pending!.id, status: "paid" })]);
    expect(charges(customer)).toHaveLength(1);
    expect(await available(userId)).toBe(100);
  });

  it("grants from the webhook when the job never heard the answer", async () => {
    const userId = await insertUserWithCredits(db(), 0);
    await setUp(userId);
    const id = randomUUID();
    // The order and the charge as the job made them, the job gone before it recorded the answer.
    await db()
      .insert(creditOrder)
      .values({
        id,
        userId,
        packId: "starter",
        credits: 100,
        amount: 500,
        currency: "usd",
        automatic: true,
        requestKey: `auto-topup-${id}`,
      });
    const row = (await db().select().from(autoTopUp).where(eq(autoTopUp.userId, userId)))[0]!;
    await stripe.paymentIntents.create({
      amount: 500,
      currency: "usd",
      customer: await customerOf(userId),
      payment_method: row.paymentMethodId!,
      off_session: true,
      confirm: true,
      metadata: { purpose: "auto_topup", order_id: id, user_id: userId },
    });
    const succeeded = fake.events.filter(
      (e) => e.type === "payment_intent.succeeded" && (e.data.object as Stripe.PaymentIntent).metadata.order_id === id,
    );
    expect(succeeded).toHaveLength(1);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => apply(succeeded[0]!)));
    expect(outcomes.filter((o) => o === "applied")).toHaveLength(1);
    expect(await available(userId)).toBe(100);
    expect((await automaticOrders(userId))[0]).toMatchObject({ status: "paid" });
    // The job, coming back, finds it paid.
    expect(await top(userId)).not.toBe("charged");
    expect(await purchases(userId)).toHaveLength(1);
  });
});
