import { randomUUID } from "node:crypto";
import pino from "pino";
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { billingCustomer, billingDetails, plan } from "#server/db/schema/index.ts";
import { handleStripeEvent } from "#server/modules/payments/handle-stripe-event.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { createStripeClient, type StripeClient } from "#server/modules/payments/stripe-client.ts";
import { billingDetailsOf, saveBillingDetails } from "#server/modules/billing/billing-details.ts";
import { startCheckout } from "#server/modules/payments/start-checkout.ts";
import { startSubscription } from "#server/modules/billing/start-subscription.ts";
import { newPlan } from "#server/modules/billing/edit-plans.ts";
import { parseEnv } from "#server/env.ts";
import { siteDefaults, type SiteConfig } from "#config/site.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertUser, openEngine } from "#tests/support/backends.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

const logger = pino({ level: "silent" });
const site: SiteConfig = { ...siteDefaults, url: "http://atelier.test" };

const FORM = {
  name: "Nordlicht Studio GmbH",
  line1: "Torstraße 12",
  line2: "",
  city: "Berlin",
  postalCode: "10119",
  state: "",
  country: "DE",
  taxIdType: "eu_vat",
  taxIdValue: "de123456789",
};

/*
 * Billing details: saved at the account's Stripe customer (name, address, one tax id, which Stripe checks) and here,
 * only once Stripe accepted them; changes made at Stripe (Checkout's entered address and tax id) come back by events,
 * applied by their time. With Stripe Tax on, Checkout computes the tax and keeps what the buyer enters.
 */
describe.each(backends)("billing details and Stripe Tax on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let fake: FakeStripe;
  let stripe: StripeClient;
  const db = () => handle.db;

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle } = engine);
    fake = await startFakeStripe();
    fake.autoDeliver = false;
    stripe = (await createStripeClient(parseEnv({ IMAGE_CLASSIFIER: "off", ...stripeEnvFor(fake) })))!;
  }, 120_000);
  afterAll(async () => {
    await fake?.close();
    await engine?.close();
  });

  const account = async () => {
    const id = await insertUser(db());
    return { id, email: `${id}@example.com` };
  };
  const save = (user: { id: string; email: string }, input: Record<string, unknown>) =>
    saveBillingDetails({ db: db(), stripe, logger, user, input });
  const customerOf = async (userId: string) =>
    (await db().select().from(billingCustomer).where(eq(billingCustomer.userId, userId)))[0]?.stripeCustomerId;
  const taxIdsOf = async (customer: string) => (await stripe.customers.listTaxIds(customer)).data;
  const apply = (event: Stripe.Event) => handleStripeEvent({ db: db(), stripe, logger, event });
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    const { code, messageKey, values } = error as AppError;
    return { code, messageKey, field: values.field };
  };

  it("saves the name, address and tax id at the customer, and changes them there", async () => {
    const user = await account();
    const saved = await save(user, FORM);
    expect(saved.taxIdValue).toBe("DE123456789");
    const customer = (await customerOf(user.id))!;
    const atStripe = (await stripe.customers.retrieve(customer)) as Stripe.Customer;
    expect(atStripe.name).toBe("Nordlicht Studio GmbH");
    expect(atStripe.address).toMatchObject({
      line1: "Torstraße 12",
      city: "Berlin",
      postal_code: "10119",
      country: "DE",
    });
    expect((await taxIdsOf(customer)).map((t) => [t.type, t.value])).toEqual([["eu_vat", "DE123456789"]]);
    expect(await billingDetailsOf(db(), user.id)).toMatchObject({ ...FORM, taxIdValue: "DE123456789" });

    // Saved again unchanged: the tax id is kept, not made again. Then another one replaces it; then none.
    const kept = (await taxIdsOf(customer))[0]!.id;
    await save(user, FORM);
    expect((await taxIdsOf(customer)).map((t) => t.id)).toEqual([kept]);
    // A kind of tax id the form does not offer, added at Stripe, stays.
    await stripe.customers.createTaxId(customer, { type: "ch_uid", value: "CHE-123.456.789" });
    await save(user, { ...FORM, taxIdType: "gb_vat", taxIdValue: "GB123456789" });
    expect((await taxIdsOf(customer)).map((t) => [t.type, t.value])).toEqual([
      ["ch_uid", "CHE-123.456.789"],
      ["gb_vat", "GB123456789"],
    ]);
    await save(user, { ...FORM, taxIdType: "", taxIdValue: "", line1: "", city: "", postalCode: "", country: "" });
    expect((await taxIdsOf(customer)).map((t) => t.type)).toEqual(["ch_uid"]);
    expect(((await stripe.customers.retrieve(customer)) as Stripe.Customer).address).toBeNull();
    expect(await billingDetailsOf(db(), user.id)).toMatchObject({ country: "", taxIdType: "", line1: "" });
  });

  it("refuses what Stripe or the form refuses, and changes nothing", async () => {
    const user = await account();
    await save(user, FORM);
    const customer = (await customerOf(user.id))!;
    const before = await billingDetailsOf(db(), user.id);

    expect(await refusal(save(user, { ...FORM, name: "Other", taxIdValue: "123456789" }))).toEqual({
      code: "invalid_billing_details",
      messageKey: "pricing.errors.billingTaxIdInvalid",
      field: "taxIdValue",
    });
    expect(await refusal(save(user, { ...FORM, country: "" }))).toMatchObject({
      messageKey: "pricing.errors.billingCountry",
      field: "country",
    });
    expect(await refusal(save(user, { ...FORM, country: "XX" }))).toMatchObject({ field: "country" });
    expect(await refusal(save(user, { ...FORM, taxIdType: "" }))).toMatchObject({
      messageKey: "pricing.errors.billingTaxId",
      field: "taxIdValue",
    });
    expect(await refusal(save(user, { ...FORM, taxIdType: "xx_made_up" }))).toMatchObject({ field: "taxIdType" });
    expect(await refusal(save(user, { ...FORM, name: "x".repeat(201) }))).toMatchObject({
      messageKey: "pricing.errors.billingDetails",
      field: "name",
    });

    // Stripe unreachable: nothing saved here, and the message says so.
    fake.outage = 500;
    try {
      expect(await refusal(save(user, { ...FORM, name: "Elsewhere" }))).toMatchObject({
        messageKey: "pricing.errors.billingUnsaved",
      });
    } finally {
      fake.outage = null;
    }
    expect(await billingDetailsOf(db(), user.id)).toEqual(before);
    expect(((await stripe.customers.retrieve(customer)) as Stripe.Customer).name).toBe("Nordlicht Studio GmbH");
  });

  it("takes Checkout's entered address and tax id from their events, never an older one over a newer one", async () => {
    const user = await account();
    await save(user, { ...FORM, taxIdType: "", taxIdValue: "" });
    const customer = (await customerOf(user.id))!;
    const from = fake.events.length;
    const [pro] = await db()
      .insert(plan)
      .values(newPlan({ id: `tax-${randomUUID().slice(0, 6)}`, name: "Pro", monthly: { eur: 1500 }, yearly: {} }))
      .returning();
    fake.checkoutEntry = {
      address: {
        line1: "Rue de Rivoli 5",
        line2: null,
        city: "Paris",
        postal_code: "75001",
        state: null,
        country: "FR",
      },
      businessName: "Atelier Lumière SARL",
      taxId: { type: "eu_vat", value: "FR12345678901" },
    };
    const { url } = await startSubscription({
      db: db(),
      stripe,
      site,
      logger,
      user,
      planId: pro!.id,
      interval: "monthly",
      locale: "fr",
      stripeTax: true,
    });
    const session = [...fake.sessions.values()].find((s) => s.url === url)!;
    expect(session.automatic_tax).toMatchObject({ enabled: true });
    expect(session.tax_id_collection).toMatchObject({ enabled: true });
    fake.pay(session.id);
    const events = fake.events
      .slice(from)
      .filter((e) => e.type.startsWith("customer.") && !e.type.includes("subscription"));
    expect(events.map((e) => e.type)).toEqual(["customer.updated", "customer.tax_id.created"]);
    for (const event of events) expect(await apply(event)).toBe("applied");
    expect(await billingDetailsOf(db(), user.id)).toMatchObject({
      name: "Atelier Lumière SARL",
      line1: "Rue de Rivoli 5",
      city: "Paris",
      country: "FR",
      taxIdType: "eu_vat",
      taxIdValue: "FR12345678901",
    });
    // Delivered again: the same details. An older event delivered late: ignored.
    const applied = await billingDetailsOf(db(), user.id);
    for (const event of events) await apply(event);
    expect(await billingDetailsOf(db(), user.id)).toEqual(applied);
    const stale = {
      ...events[0]!,
      id: `evt_${randomUUID()}`,
      created: events[0]!.created - 3600,
      data: { object: { ...(events[0]!.data.object as Stripe.Customer), name: "Old name" } },
    } as Stripe.Event;
    expect(await apply(stale)).toBe("ignored");
    expect((await billingDetailsOf(db(), user.id)).name).toBe("Atelier Lumière SARL");
    // A customer that is not one of this site's changes nothing.
    const stranger = await stripe.customers.create({ name: "Stranger" });
    const foreign = { ...events[0]!, id: `evt_${randomUUID()}`, data: { object: stranger } } as Stripe.Event;
    expect(await apply(foreign)).toBe("ignored");
    expect(customer).toMatch(/^cus_/);
  });

  it("opens a pack's Checkout with Stripe Tax on the account's customer, and without it as before", async () => {
    const user = await account();
    const pack = site.packs[0]!;
    const open = (stripeTax: boolean) =>
      startCheckout({
        db: db(),
        stripe,
        site,
        logger,
        user,
        packId: pack.id,
        locale: "de",
        productName: "Credits",
        stripeTax,
      });
    const plain = await open(false);
    const plainSession = [...fake.sessions.values()].find((s) => s.url === plain.url)!;
    expect(plainSession).toMatchObject({ customer_email: user.email, automatic_tax: { enabled: false } });
    expect(await customerOf(user.id)).toBeUndefined();

    const taxed = await open(true);
    const taxedSession = [...fake.sessions.values()].find((s) => s.url === taxed.url)!;
    expect(taxedSession).toMatchObject({
      customer: await customerOf(user.id),
      automatic_tax: { enabled: true, status: "requires_location_inputs" },
      tax_id_collection: { enabled: true },
    });
    fake.checkoutEntry = { ...fake.checkoutEntry, businessName: null, taxId: null };
    const completed = fake.pay(taxedSession.id);
    expect(taxedSession.automatic_tax).toMatchObject({ status: "complete" });
    // The tax added on top of the pack's price: the pack is granted all the same, once.
    expect(taxedSession.amount_total).toBeGreaterThan(pack.amount);
    expect(await apply(completed)).toBe("applied");
    expect(await getBalance({ db: db(), userId: user.id })).toMatchObject({ balance: pack.credits });
    const atStripe = (await stripe.customers.retrieve((await customerOf(user.id))!)) as Stripe.Customer;
    expect(atStripe.address?.country).toBe(fake.checkoutEntry.address.country);
    const [row] = await db().select().from(billingDetails).where(eq(billingDetails.userId, user.id));
    expect(row).toBeUndefined();
  });
});
