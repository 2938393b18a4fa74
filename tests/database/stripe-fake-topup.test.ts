import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { STRIPE_TEST, startFakeStripe, type FakeStripe } from "#tests/fakes/stripe.ts";

/** The official SDK pointed at a fake, as `createStripeClient` points it (no retries: each answer is seen once). */
const clientOf = (fake: FakeStripe) => {
  const api = new URL(fake.url);
  return new Stripe(STRIPE_TEST.secretKey, {
    host: api.hostname,
    port: Number(api.port),
    protocol: "http",
    maxNetworkRetries: 0,
  });
};

/** What a call throws (it must throw). */
async function thrown(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await call;
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error("the call did not fail");
}

describe("the fake Stripe's saved cards and off-session payments", () => {
  let fake: FakeStripe;
  let stripe: Stripe;

  beforeAll(async () => {
    fake = await startFakeStripe();
    stripe = clientOf(fake);
  });
  afterAll(() => fake?.close());
  beforeEach(() => {
    fake.offSessionOutcome = "paid";
  });

  const typesSince = (from: number) => fake.events.slice(from).map((e) => e.type);

  const setupSession = async (customer: string) =>
    stripe.checkout.sessions.create({
      mode: "setup",
      customer,
      currency: "usd",
      metadata: { purpose: "auto_topup", user_id: "u1" },
      setup_intent_data: { metadata: { purpose: "auto_topup", user_id: "u1" } },
      locale: "de",
      success_url: "http://atelier.test/user/orders?topup=saved",
      cancel_url: "http://atelier.test/user/orders?topup=canceled",
    });

  /** A customer with a card saved through Checkout's setup mode. */
  async function savedCard() {
    const customer = await stripe.customers.create({ email: "buyer@example.com" });
    const session = await setupSession(customer.id);
    fake.pay(session.id);
    const setup = await stripe.setupIntents.retrieve(session.setup_intent as string);
    return { customer: customer.id, card: setup.payment_method as string };
  }

  const topUp = (customer: string, card: string, options?: Stripe.RequestOptions, amount = 2000) =>
    stripe.paymentIntents.create(
      {
        amount,
        currency: "usd",
        customer,
        payment_method: card,
        off_session: true,
        confirm: true,
        description: "Atelier · 500 credits",
        metadata: { purpose: "auto_topup", order_id: "o1" },
        expand: ["latest_charge"],
      },
      options,
    );

  it("saves a card in setup mode: the session's SetupIntent succeeds with a card attached to the customer", async () => {
    const customer = await stripe.customers.create({ email: "saver@example.com" });
    const from = fake.events.length;
    const session = await setupSession(customer.id);
    expect(session).toMatchObject({
      mode: "setup",
      status: "open",
      payment_status: "no_payment_required",
      amount_total: null,
      currency: "usd",
      customer: customer.id,
      locale: "de",
      metadata: { purpose: "auto_topup", user_id: "u1" },
    });
    expect(session.setup_intent).toMatch(/^seti_test_/);
    const waiting = await stripe.setupIntents.retrieve(session.setup_intent as string);
    expect(waiting).toMatchObject({ status: "requires_payment_method", payment_method: null, usage: "off_session" });

    // The hosted page saves a card; it shows no amount.
    const pageUrl = session.url!;
    const shown = await (await fetch(pageUrl)).text();
    expect(shown).toContain("Save card");
    expect(shown).not.toMatch(/Pay USD/);
    const answer = await fetch(pageUrl, { method: "POST", redirect: "manual" });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("http://atelier.test/user/orders?topup=saved");

    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({
      status: "complete",
      setup_intent: session.setup_intent,
    });
    const setup = await stripe.setupIntents.retrieve(session.setup_intent as string, { expand: ["payment_method"] });
    expect(setup).toMatchObject({
      object: "setup_intent",
      status: "succeeded",
      usage: "off_session",
      customer: customer.id,
      metadata: { purpose: "auto_topup", user_id: "u1" },
    });
    const card = setup.payment_method as Stripe.PaymentMethod;
    expect(card).toMatchObject({
      object: "payment_method",
      type: "card",
      customer: customer.id,
      card: { brand: "visa", last4: "4242", exp_month: 12, country: "US", funding: "credit" },
    });
    expect(card.id).toMatch(/^pm_test_/);
    expect(card.card!.exp_year).toBeGreaterThan(new Date().getUTCFullYear());
    expect(await stripe.paymentMethods.retrieve(card.id)).toEqual(card);
    const listed = await stripe.customers.listPaymentMethods(customer.id, { type: "card" });
    expect(listed.data.map((m) => m.id)).toEqual([card.id]);
    expect((await stripe.customers.listPaymentMethods(customer.id, { type: "sepa_debit" })).data).toEqual([]);

    expect(typesSince(from)).toEqual([
      "setup_intent.created",
      "payment_method.attached",
      "setup_intent.succeeded",
      "checkout.session.completed",
    ]);
    const completed = fake.events.at(-1)!.data.object as Stripe.Checkout.Session;
    expect(completed).toMatchObject({ mode: "setup", status: "complete", setup_intent: session.setup_intent });
  });

  it("pays a setup session from the test control too, returning the completed event", async () => {
    const customer = await stripe.customers.create({});
    const session = await setupSession(customer.id);
    const completed = fake.pay(session.id);
    expect(completed.type).toBe("checkout.session.completed");
    expect(fake.setupIntents.get(session.setup_intent as string)?.status).toBe("succeeded");
  });

  it("cancels a setup session's SetupIntent when the session expires", async () => {
    const customer = await stripe.customers.create({});
    const session = await setupSession(customer.id);
    const from = fake.events.length;
    await stripe.checkout.sessions.expire(session.id);
    expect(typesSince(from)).toEqual(["setup_intent.canceled", "checkout.session.expired"]);
    expect(await stripe.setupIntents.retrieve(session.setup_intent as string)).toMatchObject({
      status: "canceled",
      cancellation_reason: "abandoned",
    });
  });

  it("refuses setup sessions as Stripe does, and unknown SetupIntents and payment methods", async () => {
    const customer = await stripe.customers.create({});
    const base = { mode: "setup" as const, customer: customer.id, success_url: "http://a.test/ok" };
    const noCurrency = await thrown(stripe.checkout.sessions.create(base));
    expect(noCurrency).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(noCurrency).toMatchObject({ statusCode: 400, param: "currency" });
    // With the payment method types given instead, no currency is needed.
    const typed = await stripe.checkout.sessions.create({ ...base, allowed_payment_method_types: ["card"] });
    expect(typed).toMatchObject({ mode: "setup", currency: null });
    const lines = await thrown(
      stripe.checkout.sessions.create({ ...base, currency: "usd", line_items: [{ price: "price_x", quantity: 1 }] }),
    );
    expect(lines.message).toBe("You can not pass `line_items` in `setup` mode.");

    const noSetup = await thrown(stripe.setupIntents.retrieve("seti_test_missing"));
    expect(noSetup).toMatchObject({
      statusCode: 404,
      code: "resource_missing",
      message: "No such setupintent: 'seti_test_missing'",
    });
    const noCard = await thrown(stripe.paymentMethods.retrieve("pm_test_missing"));
    expect(noCard).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });

  it("charges a saved card off-session: succeeded, with its charge and receipt, found again and refundable", async () => {
    const { customer, card } = await savedCard();
    const from = fake.events.length;
    const intent = await topUp(customer, card);
    expect(intent).toMatchObject({
      object: "payment_intent",
      status: "succeeded",
      amount: 2000,
      amount_received: 2000,
      currency: "usd",
      customer,
      payment_method: card,
      description: "Atelier · 500 credits",
      metadata: { purpose: "auto_topup", order_id: "o1" },
      last_payment_error: null,
    });
    const charge = intent.latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({ object: "charge", amount: 2000, payment_intent: intent.id, status: "succeeded" });
    expect((await fetch(charge.receipt_url!)).status).toBe(200);
    expect(typesSince(from)).toEqual(["payment_intent.created", "charge.succeeded", "payment_intent.succeeded"]);

    const found = await stripe.paymentIntents.retrieve(intent.id, { expand: ["latest_charge"] });
    expect(found).toMatchObject({
      status: "succeeded",
      latest_charge: { id: charge.id, receipt_url: charge.receipt_url },
    });
    expect((await stripe.paymentIntents.retrieve(intent.id)).latest_charge).toBe(charge.id);

    const refund = await stripe.refunds.create({ payment_intent: intent.id, amount: 500 });
    expect(refund).toMatchObject({ amount: 500, charge: charge.id, payment_intent: intent.id, status: "succeeded" });
    const [refunded] = fake.refundPayment(intent.id);
    expect(refunded!.type).toBe("charge.refunded");
    expect(refunded!.data.object).toMatchObject({ id: charge.id, amount_refunded: 2000, refunded: true });
    const [dispute] = fake.disputePayment(intent.id);
    expect(dispute!.data.object).toMatchObject({ object: "dispute", charge: charge.id, payment_intent: intent.id });
  });

  it("answers a declined card with Stripe's 402 card error, the intent back in requires_payment_method", async () => {
    const { customer, card } = await savedCard();
    fake.offSessionOutcome = "declined";
    const from = fake.events.length;
    const error = await thrown(topUp(customer, card));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      type: "StripeCardError",
      statusCode: 402,
      code: "card_declined",
      decline_code: "generic_decline",
      message: "Your card was declined.",
    });
    const raw = error.raw as {
      type: string;
      charge: string;
      doc_url: string;
      request_log_url: string;
      payment_intent: Stripe.PaymentIntent;
      payment_method: Stripe.PaymentMethod;
    };
    expect(raw.type).toBe("card_error");
    expect(raw.charge).toMatch(/^ch_test_/);
    expect(raw.doc_url).toBe("https://stripe.com/docs/error-codes/card-declined");
    expect(raw.request_log_url).toMatch(/^https:\/\/dashboard\.stripe\.com\/test\/logs\/req_/);
    expect(raw.payment_method).toMatchObject({ id: card, customer, card: { last4: "4242" } });
    expect(raw.payment_intent).toMatchObject({
      object: "payment_intent",
      status: "requires_payment_method",
      amount_received: 0,
      latest_charge: raw.charge,
      last_payment_error: {
        type: "card_error",
        code: "card_declined",
        decline_code: "generic_decline",
        charge: raw.charge,
      },
    });
    expect(error.payment_intent?.id).toBe(raw.payment_intent.id);
    expect(fake.charges.get(raw.charge)).toMatchObject({
      status: "failed",
      failure_code: "card_declined",
      paid: false,
    });
    expect(typesSince(from)).toEqual(["payment_intent.created", "charge.failed", "payment_intent.payment_failed"]);

    const found = await stripe.paymentIntents.retrieve(raw.payment_intent.id);
    expect(found.status).toBe("requires_payment_method");
    const refund = await thrown(stripe.refunds.create({ payment_intent: found.id }));
    expect(refund).toMatchObject({ statusCode: 400 });
    expect(() => fake.refundPayment(found.id)).toThrow(/was not paid/);
  });

  it("answers a card that wants authentication off-session with authentication_required, and no charge", async () => {
    const { customer, card } = await savedCard();
    fake.offSessionOutcome = "authentication_required";
    const from = fake.events.length;
    const error = await thrown(topUp(customer, card));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      statusCode: 402,
      code: "authentication_required",
      decline_code: "authentication_required",
      message: "Your card was declined. This transaction requires authentication.",
    });
    const raw = error.raw as {
      charge?: string;
      payment_intent: Stripe.PaymentIntent;
      payment_method: Stripe.PaymentMethod;
    };
    expect(raw.charge).toBeUndefined();
    expect(raw.payment_method.id).toBe(card);
    expect(raw.payment_intent).toMatchObject({
      status: "requires_payment_method",
      latest_charge: null,
      client_secret: expect.stringMatching(/^pi_test_\w+_secret_/),
      last_payment_error: { code: "authentication_required", type: "card_error" },
    });
    expect(typesSince(from)).toEqual(["payment_intent.created", "payment_intent.payment_failed"]);
  });

  it("replays a repeated idempotency key: one intent, one charge, one set of events (402s too)", async () => {
    const { customer, card } = await savedCard();
    const from = fake.events.length;
    const charges = fake.charges.size;
    const first = await topUp(customer, card, { idempotencyKey: "topup-order-1" });
    const again = await topUp(customer, card, { idempotencyKey: "topup-order-1" });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(fake.charges.size).toBe(charges + 1);
    expect(typesSince(from)).toEqual(["payment_intent.created", "charge.succeeded", "payment_intent.succeeded"]);
    // The same key with other parameters is refused.
    const other = await thrown(topUp(customer, card, { idempotencyKey: "topup-order-1" }, 3000));
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);

    fake.offSessionOutcome = "declined";
    const declinedFrom = fake.events.length;
    const declined = await thrown(topUp(customer, card, { idempotencyKey: "topup-order-2" }));
    // Paid now, but the key answers as it first did.
    fake.offSessionOutcome = "paid";
    const replayed = await thrown(topUp(customer, card, { idempotencyKey: "topup-order-2" }));
    expect(replayed).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(replayed.code).toBe("card_declined");
    expect((replayed.raw as { payment_intent: { id: string } }).payment_intent.id).toBe(
      (declined.raw as { payment_intent: { id: string } }).payment_intent.id,
    );
    expect(typesSince(declinedFrom)).toEqual([
      "payment_intent.created",
      "charge.failed",
      "payment_intent.payment_failed",
    ]);
  });

  it("refuses a card that is not the customer's, and amounts under the minimum, making nothing", async () => {
    const { card } = await savedCard();
    const stranger = await stripe.customers.create({});
    const intents = fake.paymentIntents.size;
    const from = fake.events.length;
    const foreign = await thrown(topUp(stranger.id, card));
    expect(foreign).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(foreign).toMatchObject({
      statusCode: 400,
      param: "payment_method",
      message: `The PaymentMethod ${card} does not belong to the Customer you supplied ${stranger.id}. Please use this PaymentMethod with the Customer that it belongs to instead.`,
    });
    const own = await savedCard();
    const small = await thrown(topUp(own.customer, own.card, undefined, 49));
    expect(small).toMatchObject({ statusCode: 400, code: "amount_too_small", param: "amount" });
    expect(fake.paymentIntents.size).toBe(intents);
    expect(typesSince(from).filter((type) => type.startsWith("payment_intent."))).toEqual([]);
  });
});

describe("the fake Stripe's saved-card events, delivered", () => {
  let fake: FakeStripe;
  let stripe: Stripe;
  let hook: Server;
  const received: Stripe.Event[] = [];

  beforeAll(async () => {
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        // Signed as Stripe signs, with the endpoint's secret.
        const signature = String(req.headers["stripe-signature"]);
        received.push(stripe.webhooks.constructEvent(body, signature, STRIPE_TEST.webhookSecret));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
    fake = await startFakeStripe({ webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` });
    stripe = clientOf(fake);
  });
  afterAll(async () => {
    await fake?.close();
    await new Promise((resolve) => hook?.close(resolve));
  });

  it("posts the setup page's and the off-session payment's events in order", async () => {
    const customer = await stripe.customers.create({});
    const session = await stripe.checkout.sessions.create({
      mode: "setup",
      customer: customer.id,
      currency: "eur",
      success_url: "http://a.test/ok",
    });
    await fetch(session.url!, { method: "POST", redirect: "manual" });
    const setup = await stripe.setupIntents.retrieve(session.setup_intent as string);
    fake.offSessionOutcome = "declined";
    await thrown(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: "eur",
        customer: customer.id,
        payment_method: setup.payment_method as string,
        off_session: true,
        confirm: true,
      }),
    );
    await fake.settled();
    expect(received.map((e) => e.type)).toEqual([
      "customer.created",
      "setup_intent.created",
      "payment_method.attached",
      "setup_intent.succeeded",
      "checkout.session.completed",
      "payment_intent.created",
      "charge.failed",
      "payment_intent.payment_failed",
    ]);
    expect(received.map((e) => e.id)).toEqual(fake.events.map((e) => e.id));
  });
});
