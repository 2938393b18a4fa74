import { randomUUID } from "node:crypto";
import pino from "pino";
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { creditEntry, creditOrder, paymentEvent } from "#server/db/schema/index.ts";
import { getBalance, grantCredits, holdCredits, settleHold } from "#server/modules/credits/ledger.ts";
import { startCheckout } from "#server/modules/payments/start-checkout.ts";
import { handleStripeEvent } from "#server/modules/payments/handle-stripe-event.ts";
import { createStripeClient, type StripeClient } from "#server/modules/payments/stripe-client.ts";
import { parseEnv } from "#server/env.ts";
import { siteDefaults, type SiteConfig } from "#config/site.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertUser } from "#tests/support/backends.ts";
import { waitFor } from "#tests/support/server.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

const logger = pino({ level: "silent" });
const site: SiteConfig = { ...siteDefaults, url: "http://atelier.test" };

describe.each(backends)("Stripe orders on $name", (backend) => {
  let handle: DbHandle;
  let cleanup: () => Promise<void>;
  let fake: FakeStripe;
  let stripe: StripeClient;
  const db = () => handle.db;

  beforeAll(async () => {
    ({ handle, cleanup } = await backend.open());
    await applyMigrations(handle);
    fake = await startFakeStripe();
    stripe = (await createStripeClient(
      parseEnv({
        ...stripeEnvFor(fake),
      }),
    ))!;
  });
  afterAll(async () => {
    await fake?.close();
    await cleanup?.();
  });

  const newUser = () => insertUser(db(), "Buyer");

  async function checkout(userId: string, packId = "creator", requestKey = randomUUID()) {
    return startCheckout({
      db: db(),
      stripe,
      site,
      logger,
      user: { id: userId, email: `${userId}@example.com` },
      packId,
      requestKey,
      locale: "de",
      productName: "500 Credits",
    });
  }
  const sessionOf = (url: string) => url.split("/pay/")[1]!;
  const apply = (event: Stripe.Event) => handleStripeEvent({ db: db(), stripe, logger, event });
  const order = async (id: string) => (await db().select().from(creditOrder).where(eq(creditOrder.id, id)))[0]!;
  const entries = (userId: string) =>
    db().select().from(creditEntry).where(eq(creditEntry.userId, userId)).orderBy(creditEntry.id);

  it("opens one checkout session per order, with the order as reference and metadata", async () => {
    const userId = await newUser();
    const key = randomUUID();
    // A double-click: the same form twice at once.
    const [a, b] = await Promise.all([checkout(userId, "creator", key), checkout(userId, "creator", key)]);
    expect(a).toEqual(b);
    const session = fake.sessions.get(sessionOf(a.url))!;
    expect(session).toMatchObject({
      client_reference_id: a.orderId,
      metadata: { order_id: a.orderId, pack_id: "creator" },
      amount_total: 2000,
      currency: "usd",
      locale: "de",
      customer_email: `${userId}@example.com`,
      success_url: `http://atelier.test/de/user/orders/${a.orderId}?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: "http://atelier.test/de/pricing?checkout=canceled",
    });
    const created = fake.requests.filter((r) => r.method === "POST" && r.path === "/v1/checkout/sessions");
    expect(new Set(created.map((r) => r.idempotencyKey))).toEqual(new Set([`atelier-checkout-${a.orderId}`]));
    expect([...fake.sessions.values()].filter((s) => s.client_reference_id === a.orderId)).toHaveLength(1);
    expect(await order(a.orderId)).toMatchObject({ status: "pending", credits: 500, amount: 2000, userId });

    // A new form is a new order.
    const other = await checkout(userId);
    expect(other.orderId).not.toBe(a.orderId);
  });

  it("answers a second click with the first session even when the clock has moved on", async () => {
    const userId = await newUser();
    const key = randomUUID();
    fake.latencyMs = 2500;
    try {
      const asked = fake.requests.length;
      const first = checkout(userId, "starter", key);
      // The second click comes while Stripe is still creating the first session, with the clock moved on by more
      // than a second: only Date is faked, so the fake's latency and the database keep real time.
      await waitFor("Stripe to receive the first session", async () => fake.requests.length > asked);
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(Date.now() + 1500);
        const [a, b] = await Promise.all([first, checkout(userId, "starter", key)]);
        expect(b).toEqual(a);
        expect(await order(a.orderId)).toMatchObject({ status: "pending", checkoutUrl: a.url });
        expect([...fake.sessions.values()].filter((s) => s.client_reference_id === a.orderId)).toHaveLength(1);
      } finally {
        vi.useRealTimers();
      }
    } finally {
      fake.latencyMs = 0;
    }
  });

  it("refuses unknown packs, and a key reused for another pack", async () => {
    const userId = await newUser();
    for (const pack of ["", "nope", "../starter", "STARTER"]) {
      await expect(checkout(userId, pack)).rejects.toMatchObject({ code: "unknown_pack" });
    }
    const key = randomUUID();
    await checkout(userId, "starter", key);
    await expect(checkout(userId, "studio", key)).rejects.toMatchObject({ code: "conflict" });
    const orders = await db().select().from(creditOrder).where(eq(creditOrder.userId, userId));
    expect(orders).toHaveLength(1);
  });

  it("says purchasing is not configured without a Stripe client, and fails cleanly when Stripe is down", async () => {
    const userId = await newUser();
    await expect(
      startCheckout({
        db: db(),
        stripe: null,
        site,
        logger,
        user: { id: userId, email: "x@example.com" },
        packId: "starter",
        locale: "en",
        productName: "x",
      }),
    ).rejects.toMatchObject({ code: "purchasing_disabled" });
    fake.outage = 503;
    try {
      const error = await checkout(userId).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("checkout_failed");
    } finally {
      fake.outage = null;
    }
    const [failed] = await db().select().from(creditOrder).where(eq(creditOrder.userId, userId));
    expect(failed!.status).toBe("failed");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 0 });
  });

  it("grants once however often, and in whatever order, the completion arrives", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId);
    const completed = fake.pay(sessionOf(url));
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => apply(completed)));
    expect(outcomes.filter((o) => o === "applied")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "duplicate")).toHaveLength(19);
    // The same meaning under another event id (async payment succeeded) grants nothing more.
    const again = { ...completed, id: `evt_${randomUUID()}`, type: "checkout.session.async_payment_succeeded" };
    expect(await apply(again as Stripe.Event)).toBe("applied");
    // An expiry delivered late does not undo a payment.
    expect(await apply(fake.expire(sessionOf(url)))).toBe("applied");

    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 500, held: 0, available: 500 });
    const rows = await entries(userId);
    expect(rows.map((e) => [e.kind, e.amount, e.reference])).toEqual([["purchase", 500, `order:${orderId}`]]);
    expect(await order(orderId)).toMatchObject({
      status: "paid",
      paymentIntentId: expect.stringMatching(/^pi_/),
      receiptUrl: expect.stringContaining("/receipts/"),
    });
  });

  it("cancels an abandoned checkout, and still honours a payment that completes after", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId, "starter");
    expect(await apply(fake.expire(sessionOf(url)))).toBe("applied");
    expect((await order(orderId)).status).toBe("canceled");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 0 });
    expect(await apply(fake.pay(sessionOf(url)))).toBe("applied");
    expect((await order(orderId)).status).toBe("paid");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 100 });
  });

  it("takes refunded credits back once, partial then full, and records what was already spent", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId);
    await apply(fake.pay(sessionOf(url)));
    // Half the money back: half the credits.
    const half = fake.refund(sessionOf(url), 1000);
    expect(await Promise.all([apply(half), apply(half), apply(half)])).toContain("applied");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 250 });
    expect(await order(orderId)).toMatchObject({ status: "paid", creditsReversed: 250, refundedAmount: 1000 });

    // 200 of the remaining 250 are now reserved for jobs; the rest of the refund can take only 50.
    await holdCredits({ db: db(), userId, amount: 200, idempotencyKey: randomUUID() });
    const rest = fake.refund(sessionOf(url));
    expect(await apply(rest)).toBe("applied");
    expect(await apply(rest)).toBe("duplicate");
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 200, held: 200, available: 0 });
    expect(await order(orderId)).toMatchObject({ status: "refunded", creditsReversed: 500, shortfall: 200 });
    // The earlier partial refund, delivered again late under a new id, changes nothing.
    expect(await apply({ ...half, id: `evt_${randomUUID()}` })).toBe("applied");
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 200, held: 200, available: 0 });
    const kinds = (await entries(userId)).map((e) => [e.kind, e.amount]);
    expect(kinds).toEqual([
      ["purchase", 500],
      ["refund", -250],
      ["hold", 0],
      ["refund", -50],
    ]);
  });

  it("applies a refund that arrives before the completed session, then ignores the late completion", async () => {
    const userId = await newUser();
    await grantCredits({ db: db(), userId, amount: 7, kind: "admin_adjustment", idempotencyKey: randomUUID() });
    const { orderId, url } = await checkout(userId, "starter");
    const completed = fake.pay(sessionOf(url));
    const refund = fake.refund(sessionOf(url));
    expect(await apply(refund)).toBe("applied");
    expect(await apply(completed)).toBe("applied");
    expect(await order(orderId)).toMatchObject({ status: "refunded", creditsReversed: 100, shortfall: 0 });
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 7 });
  });

  it("takes everything left back on a dispute", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId, "studio");
    await apply(fake.pay(sessionOf(url)));
    const dispute = fake.dispute(sessionOf(url));
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => apply(dispute)));
    expect(outcomes.filter((o) => o === "applied")).toHaveLength(1);
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 0 });
    const after = await order(orderId);
    expect(after).toMatchObject({ status: "refunded", creditsReversed: 2000, shortfall: 0 });
    expect(after.disputedAt).toBeInstanceOf(Date);
    // A refund after the dispute has nothing left to take.
    expect(await apply(fake.refund(sessionOf(url)))).toBe("applied");
    expect((await entries(userId)).map((e) => e.kind)).toEqual(["purchase", "chargeback"]);
  });

  it("gives back what a won dispute took, not what a refund took, and forgets the dispute's shortfall", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId, "creator");
    const session = sessionOf(url);
    await apply(fake.pay(session));
    await apply(fake.refund(session, 1000));
    // 200 of the 250 left are reserved for a job when the dispute comes: the chargeback can take only 50.
    const hold = await holdCredits({ db: db(), userId, amount: 200, idempotencyKey: randomUUID() });
    expect(await apply(fake.dispute(session))).toBe("applied");
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 200, held: 200, available: 0 });
    expect(await order(orderId)).toMatchObject({
      status: "refunded",
      creditsReversed: 500,
      shortfall: 200,
      disputeStatus: "open",
      disputeCredits: 250,
      disputeShortfall: 200,
    });
    expect(await apply(fake.dispute(session, { type: "funds_withdrawn" }))).toBe("applied");
    await settleHold({ db: db(), holdId: hold.holdId, as: "release" });

    // Won: the funds come back (two events meaning it), each possibly delivered several times at once.
    const won = fake.dispute(session, { type: "closed", status: "won" });
    const reinstated = fake.dispute(session, { type: "funds_reinstated" });
    const outcomes = await Promise.all([won, won, reinstated, won, reinstated].map((e) => apply(e)));
    expect(outcomes.filter((o) => o === "applied")).toHaveLength(2);
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 250, held: 0, available: 250 });
    expect(await order(orderId)).toMatchObject({
      status: "paid",
      creditsReversed: 250,
      shortfall: 0,
      disputeStatus: "won",
      disputeCredits: 0,
      disputeShortfall: 0,
    });
    // A late opening of the same dispute, under a new event id, takes nothing again.
    expect(await apply({ ...fake.dispute(session), id: `evt_${randomUUID()}` })).toBe("applied");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 250 });
    const kinds = (await entries(userId)).map((e) => [e.kind, e.amount]);
    expect(kinds).toEqual([
      ["purchase", 500],
      ["refund", -250],
      ["hold", 0],
      ["chargeback", -50],
      ["release", 0],
      ["chargeback_reversal", 50],
    ]);
    // The rest of the payment refunded afterwards takes the rest of the credits, as without the dispute.
    expect(await apply(fake.refund(session))).toBe("applied");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 0 });
    expect(await order(orderId)).toMatchObject({ status: "refunded", creditsReversed: 500, shortfall: 0 });
  });

  it("keeps the credits taken when a dispute is lost, and takes nothing for an inquiry", async () => {
    const lost = await newUser();
    const a = await checkout(lost, "starter");
    await apply(fake.pay(sessionOf(a.url)));
    // Closed as lost before its opening was applied: still one chargeback.
    const opened = fake.dispute(sessionOf(a.url));
    expect(await apply(fake.dispute(sessionOf(a.url), { type: "closed", status: "lost" }))).toBe("applied");
    expect(await apply(opened)).toBe("applied");
    expect(await getBalance({ db: db(), userId: lost })).toMatchObject({ balance: 0 });
    expect(await order(a.orderId)).toMatchObject({ status: "refunded", disputeStatus: "lost", creditsReversed: 100 });
    expect((await entries(lost)).map((e) => e.kind)).toEqual(["purchase", "chargeback"]);

    const asked = await newUser();
    const b = await checkout(asked, "starter");
    await apply(fake.pay(sessionOf(b.url)));
    expect(await apply(fake.dispute(sessionOf(b.url), { type: "created", inquiry: true }))).toBe("applied");
    expect(await getBalance({ db: db(), userId: asked })).toMatchObject({ balance: 100 });
    expect(await order(b.orderId)).toMatchObject({ status: "paid", disputeStatus: "inquiry", creditsReversed: 0 });
    expect(await apply(fake.dispute(sessionOf(b.url), { type: "closed", status: "warning_closed" }))).toBe("applied");
    expect(await getBalance({ db: db(), userId: asked })).toMatchObject({ balance: 100 });
    expect(await order(b.orderId)).toMatchObject({ status: "paid", disputeStatus: "won" });
    expect((await entries(asked)).map((e) => e.kind)).toEqual(["purchase"]);
  });

  it("takes nothing for a dispute whose win arrives before its opening", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId, "starter");
    await apply(fake.pay(sessionOf(url)));
    const opened = fake.dispute(sessionOf(url));
    const withdrawn = fake.dispute(sessionOf(url), { type: "funds_withdrawn" });
    expect(await apply(fake.dispute(sessionOf(url), { type: "closed", status: "won" }))).toBe("applied");
    expect(await apply(withdrawn)).toBe("applied");
    expect(await apply(opened)).toBe("applied");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 100 });
    expect(await order(orderId)).toMatchObject({ status: "paid", disputeStatus: "won", creditsReversed: 0 });
    expect((await entries(userId)).map((e) => e.kind)).toEqual(["purchase"]);
  });

  it("ignores events for unknown orders and payments, and grants nothing for a wrong amount", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId, "starter");
    const completed = fake.pay(sessionOf(url));
    const session = completed.data.object as Stripe.Checkout.Session;
    const foreign = (patch: Partial<Stripe.Checkout.Session>) =>
      ({ ...completed, id: `evt_${randomUUID()}`, data: { object: { ...session, ...patch } } }) as Stripe.Event;
    expect(await apply(foreign({ metadata: { order_id: randomUUID() }, client_reference_id: null }))).toBe("ignored");
    expect(await apply(foreign({ metadata: { order_id: "'; drop table credit_order; --" } }))).toBe("ignored");
    expect(await apply(foreign({ metadata: {}, client_reference_id: null }))).toBe("ignored");
    const stray = { ...fake.refund(sessionOf(url)), id: `evt_${randomUUID()}` };
    (stray.data.object as { payment_intent: string }).payment_intent = "pi_test_unknown";
    expect(await apply(stray as Stripe.Event)).toBe("ignored");
    expect(await apply({ ...completed, type: "customer.created" } as unknown as Stripe.Event)).toBe("ignored");

    expect(await apply(foreign({ amount_subtotal: 1, amount_total: 1 }))).toBe("applied");
    expect((await order(orderId)).status).toBe("failed");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 0 });
    const recorded = await db().select().from(paymentEvent).where(eq(paymentEvent.orderId, orderId));
    expect(recorded).toHaveLength(1);
  });

  it("leaves an event unrecorded when applying it fails, so the retry applies it", async () => {
    const userId = await newUser();
    const { orderId, url } = await checkout(userId, "starter");
    const completed = fake.pay(sessionOf(url));
    const refund = fake.refund(sessionOf(url));
    // The refund comes first, while Stripe cannot be reached to name its order: it fails and is not recorded.
    fake.outage = 500;
    try {
      await expect(apply(refund)).rejects.toThrow();
    } finally {
      fake.outage = null;
    }
    expect(await db().select().from(paymentEvent).where(eq(paymentEvent.id, refund.id))).toHaveLength(0);
    expect(await apply(completed)).toBe("applied");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 100 });
    // Stripe delivers the refund again: now it applies.
    expect(await apply(refund)).toBe("applied");
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 0 });
    expect((await order(orderId)).status).toBe("refunded");
  });
});
