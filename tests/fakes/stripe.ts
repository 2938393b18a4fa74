import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

export const STRIPE_TEST = {
  secretKey: "sk_test_atelierfake000000000000",
  webhookSecret: "whsec_atelierfake000000000000000",
} as const;

/** The environment that points the app's Stripe client at a fake, with the test keys. */
export const stripeEnvFor = (fake: { url: string }) => ({
  STRIPE_SECRET_KEY: STRIPE_TEST.secretKey,
  STRIPE_WEBHOOK_SECRET: STRIPE_TEST.webhookSecret,
  STRIPE_API_URL: fake.url,
});

type Json = Record<string, unknown>;

export interface FakeSession extends Json {
  id: string;
  object: "checkout.session";
  mode: "payment" | "subscription" | "setup";
  status: "open" | "complete" | "expired";
  /** `no_payment_required` from the start in setup mode, as at Stripe. */
  payment_status: "unpaid" | "paid" | "no_payment_required";
  /** Null in setup mode, which has no line items. */
  amount_total: number | null;
  /** Null only in setup mode, when payment method types were given instead (`allowed_payment_method_types`). */
  currency: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  /**
   * In setup mode, the SetupIntent Checkout made with the session (it waits in `requires_payment_method` until the
   * session completes, and is canceled when it expires); null in the other modes.
   */
  setup_intent: string | null;
  /** The customer given or, once paid in subscription mode, the one made for it. */
  customer: string | null;
  /** Set when a subscription-mode session is paid. */
  subscription: string | null;
  invoice: string | null;
  url: string | null;
  success_url: string;
  cancel_url: string;
  customer_email: string | null;
  locale: string | null;
  expires_at: number;
  product_name: string;
}

interface Charge extends Json {
  id: string;
  object: "charge";
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  currency: string;
  payment_intent: string;
  /** Null on a failed charge. */
  receipt_url: string | null;
  /** Set on the charges of off-session payments (the others succeeded). */
  status?: "succeeded" | "failed";
}

export interface Delivery {
  status: number;
  body: string;
}

export interface DeliverOptions {
  /** How many times to send the same event (same id), all at once. */
  times?: number;
  /** Sign with this secret instead of the endpoint's. */
  secret?: string;
  /** Signature timestamp in unix seconds (default: now). */
  timestamp?: number;
  /** Send exactly this header. */
  signature?: string;
  /** Change the body after signing. */
  tamper?: (body: string) => string;
}

/** Options of the test controls that move a subscription. */
export interface ControlOptions {
  /** Post the events made to the webhook URL, in order, in the background (default: `autoDeliver`). */
  deliver?: boolean;
}

/** How a renewal's payment goes: paid, declined, or held for the customer's authentication (3-D Secure). */
export type RenewOutcome = "paid" | "failed" | "action_required";

/**
 * How a payment confirmed with a saved card goes (`POST /v1/payment_intents` with `confirm`): paid; declined by the
 * issuer (`card_declined`, a failed charge); or declined because the issuer wants the customer to authenticate
 * (`authentication_required`, no charge), which is how Stripe answers a 3-D Secure request when `off_session`.
 */
export type OffSessionOutcome = "paid" | "declined" | "authentication_required";

export interface FakeStripe {
  /** Base URL of the API, for STRIPE_API_URL. */
  url: string;
  sessions: Map<string, FakeSession>;
  charges: Map<string, Charge>;
  customers: Map<string, Stripe.Customer>;
  products: Map<string, Stripe.Product>;
  prices: Map<string, Stripe.Price>;
  subscriptions: Map<string, Stripe.Subscription>;
  invoices: Map<string, Stripe.Invoice>;
  invoicePayments: Map<string, Stripe.InvoicePayment>;
  portalSessions: Map<string, Stripe.BillingPortal.Session>;
  /** SetupIntents: those of setup-mode Checkout sessions. */
  setupIntents: Map<string, Stripe.SetupIntent>;
  /** Payment methods: the cards saved by setup-mode Checkout sessions (attached to the session's customer). */
  paymentMethods: Map<string, Stripe.PaymentMethod>;
  /**
   * The payment intents made by `POST /v1/payment_intents` (payments with a saved card), as the API shows them.
   * Checkout's and invoices' payment intents are not here, though `GET /v1/payment_intents/:id` finds them all.
   */
  paymentIntents: Map<string, Stripe.PaymentIntent>;
  /**
   * How the next payments confirmed with a saved card go (default `paid`). `declined` answers 402 `card_declined`
   * (`generic_decline`) with a failed charge; `authentication_required` answers 402 `authentication_required` with
   * none. Either way the intent is left in `requires_payment_method`, with its `last_payment_error`.
   */
  offSessionOutcome: OffSessionOutcome;
  /**
   * What a buyer enters on the payment page when Checkout asks for it (Stripe Tax on): the billing address, and a
   * business's name and tax id when tax ids are collected. With `customer_update[address|name]=auto` they are kept on
   * the session's customer (`customer.updated`, `customer.tax_id.created`).
   */
  checkoutEntry: {
    address: Stripe.Address;
    businessName: string | null;
    taxId: { type: string; value: string } | null;
  };
  /** Every event the fake made, in the order it made them (delivered or not). */
  events: Stripe.Event[];
  /** Requests seen by the API (method, path, idempotency key). */
  requests: Array<{ method: string; path: string; idempotencyKey?: string }>;
  /** Where events are posted (the app's /webhooks/stripe); events are kept, not sent, while unset. */
  webhookUrl: string | null;
  /**
   * Whether events are sent as they happen: by the payment and portal pages (before they redirect), by API calls
   * that make events, and by the subscription controls below (unless told otherwise).
   */
  autoDeliver: boolean;
  /** When set, the next API requests get this status (Stripe's api_error body). */
  outage: number | null;
  /** How long creating a checkout session takes, in milliseconds (to hold a request in flight). */
  latencyMs: number;
  /**
   * Completes a session as paid: a payment intent and a charge with a receipt. Returns the completed event. In
   * subscription mode, also makes the customer (when the session has none), the price, the subscription and its
   * first invoice, paid; the events before `checkout.session.completed` are in `events`: `customer.created` (when
   * made), `customer.subscription.created`, `invoice.created`, `invoice.finalized`, `invoice.paid`,
   * `invoice.payment_succeeded`. In setup mode, saves a card instead: a card payment method attached to the
   * session's customer, and the session's SetupIntent succeeded with it; the events before are
   * `payment_method.attached` (when there is a customer) and `setup_intent.succeeded`. Nothing is delivered (the
   * payment page delivers).
   */
  pay(sessionId: string): Stripe.Event;
  /**
   * Expires an open session and returns its `checkout.session.expired` event. A setup-mode session's SetupIntent is
   * canceled with it (`setup_intent.canceled`, in `events` before it).
   */
  expire(sessionId: string): Stripe.Event;
  /** Refunds the session's charge (a subscription session's: its first invoice's). */
  refund(sessionId: string, amount?: number): Stripe.Event;
  /**
   * Moves the charge's dispute (one per charge, as at Stripe) and returns its event: `created` opens it (an inquiry
   * when `inquiry`), `funds_withdrawn`, `funds_reinstated`, and `closed` with the outcome.
   */
  dispute(sessionId: string, step?: DisputeStep): Stripe.Event;
  /**
   * The next period begins: its `subscription_cycle` invoice, paid (`invoice.created`, `invoice.finalized`,
   * `invoice.paid`, `invoice.payment_succeeded`, `customer.subscription.updated`), declined (left open, the
   * subscription `past_due`: `invoice.created`, `invoice.finalized`, `invoice.payment_failed`,
   * `customer.subscription.updated`) or waiting for authentication (as declined, with
   * `invoice.payment_action_required` instead of `invoice.payment_failed`). A trial ends this way.
   */
  renew(subscriptionId: string, options?: ControlOptions & { outcome?: RenewOutcome }): Stripe.Event[];
  /** A retry pays an open invoice: `invoice.paid`, `invoice.payment_succeeded`, and `customer.subscription.updated` when that makes it active again. */
  payInvoice(invoiceId: string, options?: ControlOptions): Stripe.Event[];
  /** Retries are exhausted: `canceled` sends `customer.subscription.deleted`, `unpaid` `customer.subscription.updated`. */
  endDunning(subscriptionId: string, status: "canceled" | "unpaid", options?: ControlOptions): Stripe.Event[];
  /** Cancels at the period's end (`customer.subscription.updated`) or now (`customer.subscription.deleted`). */
  cancel(subscriptionId: string, options: ControlOptions & { atPeriodEnd: boolean }): Stripe.Event[];
  /** The period of a subscription set to cancel at its end is over: `customer.subscription.deleted`. */
  endPeriod(subscriptionId: string, options?: ControlOptions): Stripe.Event[];
  /** Refunds (all or `amount` of) the charge that paid the invoice: `charge.refunded`. */
  refundInvoice(invoiceId: string, amount?: number, options?: ControlOptions): Stripe.Event[];
  /** Moves the dispute of the charge that paid the invoice, as `dispute` does. */
  disputeInvoice(invoiceId: string, step?: DisputeStep, options?: ControlOptions): Stripe.Event[];
  /**
   * Refunds (all or `amount` of) the charge of a payment made with a saved card (one of `paymentIntents`, paid):
   * `charge.refunded`, as `POST /v1/refunds` does.
   */
  refundPayment(paymentIntentId: string, amount?: number, options?: ControlOptions): Stripe.Event[];
  /** Moves the dispute of a paid payment made with a saved card, as `dispute` does. */
  disputePayment(paymentIntentId: string, step?: DisputeStep, options?: ControlOptions): Stripe.Event[];
  /** Posts an event to the webhook URL, signed like Stripe does. */
  deliver(event: Stripe.Event, options?: DeliverOptions): Promise<Delivery[]>;
  /** Resolves once the events queued for delivery in the background so far have been posted. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export type DisputeStep =
  | { type: "created"; inquiry?: boolean }
  | { type: "funds_withdrawn" | "funds_reinstated" }
  | { type: "closed"; status: "won" | "lost" | "warning_closed" };

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;
const now = () => Math.floor(Date.now() / 1000);

/** Parses Stripe's form encoding (`a[b][0][c]=v`) into nested objects; array indices become object keys. */
export function parseStripeForm(body: string): Json {
  const out: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, "").split("[");
    let node = out;
    path.forEach((part, i) => {
      const name = part === "" ? String(Object.keys(node).length) : part;
      if (i === path.length - 1) node[name] = value;
      else node = (node[name] ??= {}) as Json;
    });
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A form value as an object (nested params), or empty. */
const obj = (value: unknown): Json => (value && typeof value === "object" ? (value as Json) : {});
/** A form value as a string, or null. */
const str = (value: unknown): string | null => (typeof value === "string" ? value : null);
/** A form list (`a[0]=x&a[1]=y`) as an array. */
const list = (value: unknown): string[] => Object.values(obj(value)).map(String);
const money = (amount: number, currency: string) => `${currency.toUpperCase()} ${(amount / 100).toFixed(2)}`;
const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface Recurring {
  interval: string;
  interval_count: number;
}
const INTERVALS = ["day", "week", "month", "year"];

/** The country of a tax id type that names one (the rest read it from the value, as an EU VAT number does). */
const TAX_ID_COUNTRY: Record<string, string> = {
  gb_vat: "GB",
  ch_vat: "CH",
  ch_uid: "CH",
  no_vat: "NO",
  es_cif: "ES",
  us_ein: "US",
  ca_bn: "CA",
  mx_rfc: "MX",
  br_cnpj: "BR",
  br_cpf: "BR",
  au_abn: "AU",
  nz_gst: "NZ",
  jp_cn: "JP",
  kr_brn: "KR",
  cn_tin: "CN",
  hk_br: "HK",
  tw_vat: "TW",
  sg_uen: "SG",
  in_gst: "IN",
  ae_trn: "AE",
  sa_vat: "SA",
  il_vat: "IL",
  tr_tin: "TR",
  ru_inn: "RU",
  ua_vat: "UA",
  za_vat: "ZA",
};
/**
 * The formats Stripe checks when a tax id is added (an invalid one is refused with `tax_id_invalid`), for the types
 * whose format its reference gives; other types need only a value.
 */
const TAX_ID_FORMATS: Record<string, RegExp> = {
  eu_vat: /^(AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI)[0-9A-Z+*]{2,13}$/,
  gb_vat: /^GB(\d{9}|\d{12})$/,
  us_ein: /^\d{2}-?\d{7}$/,
  au_abn: /^\d{11}$/,
};

/** `count` billing intervals after `from`: calendar months and years (the 31st becomes the month's last day). */
function addInterval(from: number, recurring: Recurring, count: number): number {
  const n = count * recurring.interval_count;
  if (recurring.interval === "day") return from + n * 86_400;
  if (recurring.interval === "week") return from + n * 7 * 86_400;
  const d = new Date(from * 1000);
  const month = d.getUTCMonth() + (recurring.interval === "year" ? 12 * n : n);
  const last = new Date(Date.UTC(d.getUTCFullYear(), month + 1, 0)).getUTCDate();
  const at = Date.UTC(
    d.getUTCFullYear(),
    month,
    Math.min(d.getUTCDate(), last),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  );
  return at / 1000;
}

/** Metadata after an update: `key=""` removes a key, `metadata=""` all of them. */
function mergeMetadata(current: Stripe.Metadata, update: unknown): Stripe.Metadata {
  if (update === "") return {};
  const next = { ...current };
  for (const [key, value] of Object.entries(obj(update))) {
    if (value === "") delete next[key];
    else next[key] = String(value);
  }
  return next;
}

/** A one-page PDF that says `text` (ASCII), with a correct cross-reference table. */
function tinyPdf(text: string): Buffer {
  const line = text.replace(/[^\x20-\x7e]/g, "?").replace(/[()\\]/g, "\\$&");
  const content = `BT /F1 18 Tf 72 720 Td (${line}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = "%PDF-1.4\n";
  const offsets = objects.map((body, i) => {
    const offset = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** A page of a list, newest first (`items` in creation order), with `limit` and `starting_after`. */
function pageOf<T extends { id: string }>(items: T[], params: Json, url: string): Stripe.ApiList<T> {
  const newest = [...items].reverse();
  const limit = Math.min(100, Math.max(1, Number(params.limit ?? 10) || 10));
  const after = str(params.starting_after);
  const from = after ? newest.findIndex((item) => item.id === after) + 1 : 0;
  const data = newest.slice(from, from + limit);
  return { object: "list", data, has_more: from + limit < newest.length, url };
}

interface Intent {
  id: string;
  latest_charge: string | null;
  amount: number;
  metadata: Json;
  currency?: string;
  customer?: string | null;
  status?: string;
  last_payment_error?: Json | null;
}

/** What a checkout line asks for: an existing price, or the price data to make one with at payment. */
interface CheckoutLine {
  price: Stripe.Price | null;
  currency: string;
  unitAmount: number;
  quantity: number;
  recurring: Recurring | null;
  product: string | null;
  productName: string;
  productMetadata: Stripe.Metadata;
}

/** What a subscription-mode session will make when paid. */
interface SessionPlan {
  line: CheckoutLine;
  trialDays: number | null;
  metadata: Stripe.Metadata;
  automaticTax: boolean;
}

/** Where a subscription is in its billing: its anchor, the period number (-1 in a trial), prorations to bill. */
interface BillingState {
  anchor: number;
  cycle: number;
  pending: Stripe.InvoiceLineItem[];
  /** The last line that charged the current price for a period (what a proration credits). */
  billed: { invoice: string; line: string } | null;
}

type ApiError = { status: number; message: string; param?: string; code?: string };
const isError = (value: unknown): value is ApiError =>
  Boolean(value && typeof value === "object" && "message" in value && "status" in value);

/**
 * A local Stripe: the Checkout Session endpoints the app uses (create with idempotency keys, retrieve, list by
 * payment intent, expire), payment intents with their latest charge, refunds (which send `charge.refunded`), a hosted
 * payment page that completes the session, and webhook delivery signed with the endpoint secret through the SDK's own
 * test helper. And Stripe Billing: customers, products and prices, Checkout in subscription mode, subscriptions with
 * their items, invoices (current API shapes: the subscription under `parent.subscription_details`, payments through
 * invoice payments), hosted invoice pages and PDFs, the customer portal, and test controls that move a subscription
 * through renewals, failed payments, dunning and cancellation. And saved cards: Checkout in setup mode (its
 * SetupIntent, and the card it saves, attached to the customer), then payments confirmed with the card off-session
 * (`POST /v1/payment_intents`), paid or declined as `offSessionOutcome` says, answered as Stripe answers them.
 */
export async function startFakeStripe(
  options: { webhookUrl?: string | null; secretKey?: string; webhookSecret?: string } = {},
): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? STRIPE_TEST.secretKey;
  const webhookSecret = options.webhookSecret ?? STRIPE_TEST.webhookSecret;
  const signer = new Stripe(secretKey);
  const idempotent = new Map<string, { params: string; status: number; body: string; path?: string } | "running">();
  const intents = new Map<string, Intent>();
  const disputes = new Map<string, { id: string; status: string } & Json>();
  const plans = new Map<string, SessionPlan>();
  /** A session's `customer_update`: what of the entered details Checkout keeps on its customer. */
  const customerUpdates = new Map<string, { address: boolean; name: boolean }>();
  const billing = new Map<string, BillingState>();
  const taxIds = new Map<string, Stripe.TaxId[]>();
  const portalConfiguration = id("bpc");
  let outbox: Promise<void> = Promise.resolve();

  /** An event about `object` as it is now (as JSON would carry it), recorded in `events`. */
  const event = (type: string, object: object, previous?: object): Stripe.Event => {
    const made = {
      id: id("evt"),
      object: "event",
      api_version: "2026-07-29.dahlia",
      created: now(),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: previous ? { object: clone(object), previous_attributes: clone(previous) } : { object: clone(object) },
    } as unknown as Stripe.Event;
    fake.events.push(made);
    return made;
  };

  /** Posts events in order, after those queued before; a failed delivery is skipped (its effect is then missing). */
  const send = (events: Stripe.Event[]): Promise<void> => {
    if (!fake.webhookUrl || events.length === 0) return outbox;
    outbox = outbox.then(async () => {
      for (const evt of events) await fake.deliver(evt).catch(() => undefined);
    });
    return outbox;
  };
  /** Runs a test control: its events, sent when asked (or by default when `autoDeliver`). */
  const control = (opts: ControlOptions | undefined, run: () => Stripe.Event[]): Stripe.Event[] => {
    if (opts?.deliver && !fake.webhookUrl) throw new Error("no webhook URL to deliver to");
    const events = run();
    if (opts?.deliver ?? fake.autoDeliver) void send(events);
    return events;
  };

  const session = (sessionId: string) => {
    const s = fake.sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    return s;
  };
  const subscriptionOf = (subscriptionId: string) => {
    const sub = fake.subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`no subscription ${subscriptionId}`);
    return sub;
  };
  const invoiceOf = (invoiceId: string) => {
    const invoice = fake.invoices.get(invoiceId);
    if (!invoice) throw new Error(`no invoice ${invoiceId}`);
    return invoice;
  };
  const itemOf = (sub: Stripe.Subscription) => {
    const item = sub.items.data[0];
    if (!item) throw new Error(`subscription ${sub.id} has no item`);
    return item;
  };
  const billingOf = (sub: Stripe.Subscription) => {
    const state = billing.get(sub.id);
    if (!state) throw new Error(`subscription ${sub.id} has no billing state`);
    return state;
  };
  const customerOf = (customerId: unknown) => {
    const customer = typeof customerId === "string" ? fake.customers.get(customerId) : undefined;
    if (!customer) throw new Error(`no customer ${String(customerId)}`);
    return customer;
  };
  const subscriptionIdOf = (invoice: Stripe.Invoice) => {
    const sub = invoice.parent?.subscription_details?.subscription;
    return typeof sub === "string" ? sub : (sub?.id ?? null);
  };
  const productName = (price: Stripe.Price) => {
    const product = typeof price.product === "string" ? fake.products.get(price.product) : undefined;
    return product?.name ?? "";
  };
  const recurringOf = (price: Stripe.Price): Recurring => {
    if (!price.recurring) throw new Error(`price ${price.id} is not recurring`);
    return price.recurring;
  };
  /** An invoice's payment (the one in that status). */
  const paymentOf = (invoice: Stripe.Invoice, status?: string) =>
    [...fake.invoicePayments.values()].find((p) => p.invoice === invoice.id && (!status || p.status === status));
  const chargeOfInvoice = (invoice: Stripe.Invoice) => {
    const payment = paymentOf(invoice, "paid");
    const intent = payment ? intents.get(String(payment.payment.payment_intent)) : undefined;
    const charge = intent?.latest_charge ? fake.charges.get(intent.latest_charge) : undefined;
    if (!charge) throw new Error(`invoice ${invoice.id} was not paid by a charge`);
    return charge;
  };
  const chargeOf = (s: FakeSession) => {
    if (s.mode === "subscription" && s.invoice) return chargeOfInvoice(invoiceOf(s.invoice));
    const intent = s.payment_intent ? intents.get(s.payment_intent) : undefined;
    const charge = intent?.latest_charge ? fake.charges.get(intent.latest_charge) : undefined;
    if (!charge) throw new Error(`session ${s.id} was not paid`);
    return charge;
  };
  const refundCharge = (charge: Charge, amount?: number) => {
    charge.amount_refunded = Math.min(charge.amount, charge.amount_refunded + (amount ?? charge.amount));
    charge.refunded = charge.amount_refunded === charge.amount;
    return event("charge.refunded", charge);
  };
  const disputeCharge = (charge: Charge, step: DisputeStep) => {
    let dispute = disputes.get(charge.id);
    if (!dispute) {
      const inquiry = step.type === "created" && step.inquiry === true;
      dispute = {
        id: id("dp"),
        object: "dispute",
        amount: charge.amount,
        charge: charge.id,
        payment_intent: charge.payment_intent,
        currency: charge.currency,
        reason: "fraudulent",
        is_charge_refundable: false,
        status: inquiry ? "warning_needs_response" : "needs_response",
      };
      disputes.set(charge.id, dispute);
    }
    if (step.type === "closed") dispute.status = step.status;
    return event(`charge.dispute.${step.type}`, { ...dispute });
  };

  // Saved cards: the SetupIntent and card of a setup-mode Checkout session, and payments made later with the card.

  const clientSecret = (objectId: string) => `${objectId}_secret_${randomBytes(12).toString("hex")}`;

  /** The card entered on a setup page: Stripe's test Visa, attached to the customer when there is one. */
  const newCard = (customerId: string | null): Stripe.PaymentMethod => {
    const email = customerId ? (fake.customers.get(customerId)?.email ?? null) : null;
    const card: Stripe.PaymentMethod = {
      id: id("pm"),
      object: "payment_method",
      allow_redisplay: "limited",
      billing_details: {
        address: { city: null, country: "US", line1: null, line2: null, postal_code: "42424", state: null },
        email,
        name: null,
        phone: null,
        tax_id: null,
      },
      card: {
        brand: "visa",
        checks: { address_line1_check: null, address_postal_code_check: "pass", cvc_check: "pass" },
        country: "US",
        display_brand: "visa",
        exp_month: 12,
        exp_year: new Date().getUTCFullYear() + 2,
        fingerprint: randomBytes(8).toString("hex"),
        funding: "credit",
        generated_from: null,
        last4: "4242",
        networks: { available: ["visa"], preferred: null },
        regulated_status: "unregulated",
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: now(),
      customer: customerId,
      customer_account: null,
      livemode: false,
      metadata: {},
      type: "card",
    };
    fake.paymentMethods.set(card.id, card);
    return card;
  };
  /** The SetupIntent Checkout makes with a setup-mode session: waiting for the card, to be used off-session. */
  const newSetupIntent = (spec: {
    customer: string | null;
    metadata: Stripe.Metadata;
    description: string | null;
    types: string[];
  }): Stripe.SetupIntent => {
    const setupId = id("seti");
    const setup: Stripe.SetupIntent = {
      id: setupId,
      object: "setup_intent",
      allowed_payment_method_types: null,
      application: null,
      automatic_payment_methods: null,
      cancellation_reason: null,
      client_secret: clientSecret(setupId),
      created: now(),
      customer: spec.customer,
      customer_account: null,
      description: spec.description,
      excluded_payment_method_types: null,
      flow_directions: null,
      last_setup_error: null,
      latest_attempt: null,
      livemode: false,
      mandate: null,
      metadata: spec.metadata,
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: "automatic" } },
      payment_method_types: spec.types,
      single_use_mandate: null,
      status: "requires_payment_method",
      usage: "off_session",
    };
    fake.setupIntents.set(setup.id, setup);
    return setup;
  };
  const setupIntentOf = (s: FakeSession) => {
    const setup = s.setup_intent ? fake.setupIntents.get(s.setup_intent) : undefined;
    if (!setup) throw new Error(`session ${s.id} has no SetupIntent`);
    return setup;
  };
  /** Completes a setup-mode session: the card saved (attached to its customer), its SetupIntent succeeded. */
  const saveCard = (s: FakeSession): Stripe.Event[] => {
    const setup = setupIntentOf(s);
    const events: Stripe.Event[] = [];
    const card = newCard(s.customer);
    if (s.customer) events.push(event("payment_method.attached", card));
    Object.assign(setup, { status: "succeeded", payment_method: card.id, latest_attempt: id("setatt") });
    events.push(event("setup_intent.succeeded", setup));
    Object.assign(s, { status: "complete", url: null });
    return events;
  };
  /** A charge of a payment made with a saved card: succeeded (with its receipt), or failed as the issuer declined. */
  const cardCharge = (intent: Stripe.PaymentIntent, card: Stripe.PaymentMethod, declined: boolean): Charge => {
    const details = card.card!;
    const charge: Charge = {
      id: id("ch"),
      object: "charge",
      amount: intent.amount,
      amount_captured: declined ? 0 : intent.amount,
      amount_refunded: 0,
      balance_transaction: null,
      billing_details: card.billing_details,
      captured: !declined,
      created: now(),
      currency: intent.currency,
      customer: intent.customer,
      description: intent.description,
      disputed: false,
      failure_code: declined ? "card_declined" : null,
      failure_message: declined ? "Your card was declined." : null,
      livemode: false,
      metadata: { ...intent.metadata },
      outcome: declined
        ? {
            network_status: "declined_by_network",
            reason: "generic_decline",
            risk_level: "normal",
            seller_message: "The bank did not return any further details with this decline.",
            type: "issuer_declined",
          }
        : {
            network_status: "approved_by_network",
            reason: null,
            risk_level: "normal",
            seller_message: "Payment complete.",
            type: "authorized",
          },
      paid: !declined,
      payment_intent: intent.id,
      payment_method: card.id,
      payment_method_details: {
        type: "card",
        card: {
          brand: details.brand,
          country: details.country,
          exp_month: details.exp_month,
          exp_year: details.exp_year,
          funding: details.funding,
          last4: details.last4,
          network: "visa",
        },
      },
      receipt_email: intent.receipt_email,
      receipt_url: null,
      refunded: false,
      status: declined ? "failed" : "succeeded",
    };
    if (!declined) charge.receipt_url = `${fake.url}/receipts/${charge.id}`;
    fake.charges.set(charge.id, charge);
    return charge;
  };
  /**
   * Confirms a payment intent with a card, as `offSessionOutcome` says: paid (`charge.succeeded`,
   * `payment_intent.succeeded`), or declined, when the error Stripe answers (402) comes back too: `card_declined`
   * with a failed charge (`charge.failed`, `payment_intent.payment_failed`), or `authentication_required` without
   * one (`payment_intent.payment_failed`). On-session, a card that wants authentication waits in `requires_action`.
   */
  const confirmPayment = (
    intent: Stripe.PaymentIntent,
    card: Stripe.PaymentMethod,
    offSession: boolean,
  ): { events: Stripe.Event[]; error: Json | null } => {
    const outcome = fake.offSessionOutcome;
    if (outcome === "paid") {
      const charge = cardCharge(intent, card, false);
      Object.assign(intent, {
        status: "succeeded",
        amount_received: intent.amount,
        latest_charge: charge.id,
        payment_method: card.id,
      });
      return { events: [event("charge.succeeded", charge), event("payment_intent.succeeded", intent)], error: null };
    }
    if (outcome === "authentication_required" && !offSession) {
      Object.assign(intent, {
        status: "requires_action",
        payment_method: card.id,
        next_action: { type: "use_stripe_sdk", use_stripe_sdk: {} },
      });
      return { events: [event("payment_intent.requires_action", intent)], error: null };
    }
    const declined = outcome === "declined";
    const code = declined ? "card_declined" : "authentication_required";
    const charge = declined ? cardCharge(intent, card, true) : null;
    const failure: Stripe.PaymentIntent.LastPaymentError = {
      ...(charge ? { charge: charge.id } : {}),
      code,
      decline_code: declined ? "generic_decline" : "authentication_required",
      doc_url: `https://stripe.com/docs/error-codes/${code.replace(/_/g, "-")}`,
      message: declined
        ? "Your card was declined."
        : "Your card was declined. This transaction requires authentication.",
      payment_method: clone(card),
      payment_method_type: "card",
      type: "card_error",
    };
    Object.assign(intent, {
      status: "requires_payment_method",
      payment_method: null,
      latest_charge: charge?.id ?? null,
      last_payment_error: failure,
    });
    const events = charge ? [event("charge.failed", charge)] : [];
    events.push(event("payment_intent.payment_failed", intent));
    // The error carries the intent as it now stands and the card, as Stripe's card errors do (the payment method's
    // type only on invoices' errors).
    const error: Json = {
      ...failure,
      payment_intent: clone(intent),
      request_log_url: `https://dashboard.stripe.com/test/logs/${id("req")}?t=${now()}`,
    };
    delete error.payment_method_type;
    return { events, error };
  };
  /** The charge of a paid payment made with a saved card. */
  const chargeOfPayment = (paymentIntentId: string) => {
    const intent = fake.paymentIntents.get(paymentIntentId);
    if (!intent) throw new Error(`no payment intent ${paymentIntentId} made with a saved card`);
    const charge = typeof intent.latest_charge === "string" ? fake.charges.get(intent.latest_charge) : undefined;
    if (!charge || intent.status !== "succeeded") throw new Error(`payment ${paymentIntentId} was not paid`);
    return charge;
  };

  // Billing objects, shaped as stripe-node's types have them.

  const newCustomer = (params: Json): Stripe.Customer => {
    const address = params.address === undefined ? null : addressOf(params.address);
    const customer: Stripe.Customer = {
      id: id("cus"),
      object: "customer",
      address,
      balance: 0,
      created: now(),
      currency: null,
      customer_account: null,
      default_source: null,
      delinquent: false,
      description: str(params.description),
      discount: null,
      email: str(params.email),
      invoice_prefix: randomBytes(4).toString("hex").toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: mergeMetadata({}, params.metadata),
      name: str(params.name),
      next_invoice_sequence: 1,
      phone: str(params.phone),
      preferred_locales: list(params.preferred_locales),
      shipping: null,
      tax_exempt: "none",
      test_clock: null,
    };
    fake.customers.set(customer.id, customer);
    for (const datum of Object.values(obj(params.tax_id_data))) {
      const { type, value } = obj(datum);
      addTaxId(customer, String(type ?? "unknown"), String(value ?? ""));
    }
    return customer;
  };
  /** A tax id kept on a customer, its country read from the value where it starts with one (an EU VAT number). */
  const addTaxId = (customer: Stripe.Customer, type: string, value: string): Stripe.TaxId => {
    const region = TAX_ID_COUNTRY[type];
    const taxId: Stripe.TaxId = {
      id: id("txi"),
      object: "tax_id",
      country: region ?? (/^[A-Za-z]{2}/.test(value) ? value.slice(0, 2).toUpperCase() : null),
      created: now(),
      customer: customer.id,
      customer_account: null,
      livemode: false,
      owner: { customer: customer.id, customer_account: null, type: "customer" },
      type: type as Stripe.TaxId.Type,
      value,
      verification: { status: "pending", verified_address: null, verified_name: null },
    };
    taxIds.set(customer.id, [...(taxIds.get(customer.id) ?? []), taxId]);
    return taxId;
  };
  const addressOf = (value: unknown): Stripe.Address => {
    const a = obj(value);
    return {
      city: str(a.city),
      country: str(a.country),
      line1: str(a.line1),
      line2: str(a.line2),
      postal_code: str(a.postal_code),
      state: str(a.state),
    };
  };
  const customerBody = (customer: Stripe.Customer, expand: string[]): Stripe.Customer => {
    if (!expand.includes("tax_ids")) return customer;
    const data = taxIds.get(customer.id) ?? [];
    return {
      ...customer,
      tax_ids: { object: "list", data, has_more: false, url: `/v1/customers/${customer.id}/tax_ids` },
    };
  };

  const newProduct = (name: string, metadata: Stripe.Metadata, description: string | null = null): Stripe.Product => {
    const product: Stripe.Product = {
      id: id("prod"),
      object: "product",
      active: true,
      created: now(),
      default_price: null,
      description,
      images: [],
      livemode: false,
      marketing_features: [],
      metadata,
      name,
      package_dimensions: null,
      shippable: null,
      statement_descriptor: null,
      tax_code: null,
      tax_details: null,
      type: "service",
      unit_label: null,
      updated: now(),
      url: null,
    };
    fake.products.set(product.id, product);
    return product;
  };
  const newPrice = (spec: {
    currency: string;
    unitAmount: number;
    product: string;
    recurring: Recurring | null;
    lookupKey?: string | null;
    metadata?: Stripe.Metadata;
    nickname?: string | null;
  }): Stripe.Price => {
    const price: Stripe.Price = {
      id: id("price"),
      object: "price",
      active: true,
      billing_scheme: "per_unit",
      created: now(),
      currency: spec.currency.toLowerCase(),
      custom_unit_amount: null,
      livemode: false,
      lookup_key: spec.lookupKey ?? null,
      metadata: spec.metadata ?? {},
      nickname: spec.nickname ?? null,
      product: spec.product,
      recurring: spec.recurring
        ? {
            interval: spec.recurring.interval,
            interval_count: spec.recurring.interval_count,
            meter: null,
            trial_period_days: null,
            usage_type: "licensed",
          }
        : null,
      tax_behavior: "unspecified",
      tiers_mode: null,
      transform_quantity: null,
      type: spec.recurring ? "recurring" : "one_time",
      unit_amount: spec.unitAmount,
      unit_amount_decimal: Stripe.Decimal.from(String(spec.unitAmount)),
    };
    fake.prices.set(price.id, price);
    return price;
  };
  const planOf = (price: Stripe.Price): Stripe.Plan => {
    const recurring = recurringOf(price);
    return {
      id: price.id,
      object: "plan",
      active: price.active,
      amount: price.unit_amount,
      amount_decimal: price.unit_amount_decimal,
      billing_scheme: "per_unit",
      created: price.created,
      currency: price.currency,
      interval: recurring.interval,
      interval_count: recurring.interval_count,
      livemode: false,
      metadata: price.metadata,
      meter: null,
      nickname: price.nickname,
      product: price.product,
      tiers_mode: null,
      transform_usage: null,
      trial_period_days: null,
      usage_type: "licensed",
    };
  };
  /** The price a checkout line names, or one made from its price data (and its product, when given only data). */
  const priceOfLine = (line: CheckoutLine): Stripe.Price => {
    if (line.price) return line.price;
    const product = line.product ?? newProduct(line.productName, line.productMetadata).id;
    return newPrice({ currency: line.currency, unitAmount: line.unitAmount, product, recurring: line.recurring });
  };
  /** Resolves `price` or `price_data` params (checkout line items, subscription items) into a checkout line. */
  const lineOf = (item: Json, param: string): CheckoutLine | ApiError => {
    const quantity = Number(item.quantity ?? 1);
    if (typeof item.price === "string") {
      const price = fake.prices.get(item.price);
      if (!price)
        return {
          status: 400,
          message: `No such price: '${item.price}'`,
          param: `${param}[price]`,
          code: "resource_missing",
        };
      return {
        price,
        currency: price.currency,
        unitAmount: price.unit_amount ?? Number.NaN,
        quantity,
        recurring: price.recurring,
        product: String(price.product),
        productName: productName(price),
        productMetadata: {},
      };
    }
    const data = obj(item.price_data);
    const recurring = data.recurring === undefined ? null : obj(data.recurring);
    const product = str(data.product);
    if (product && !fake.products.has(product))
      return {
        status: 400,
        message: `No such product: '${product}'`,
        param: `${param}[price_data][product]`,
        code: "resource_missing",
      };
    const productData = obj(data.product_data);
    return {
      price: null,
      currency: String(data.currency ?? "").toLowerCase(),
      unitAmount: Number(data.unit_amount),
      quantity,
      recurring: recurring
        ? { interval: String(recurring.interval ?? ""), interval_count: Number(recurring.interval_count ?? 1) }
        : null,
      product,
      productName: product ? (fake.products.get(product)?.name ?? "") : String(productData.name ?? ""),
      productMetadata: mergeMetadata({}, productData.metadata),
    };
  };

  const newSubscription = (spec: {
    customer: string;
    price: Stripe.Price;
    quantity: number;
    metadata: Stripe.Metadata;
    trialEnd: number | null;
    automaticTax: boolean;
  }): Stripe.Subscription => {
    const created = now();
    const subId = id("sub");
    const periodEnd = spec.trialEnd ?? addInterval(created, recurringOf(spec.price), 1);
    const item: Stripe.SubscriptionItem = {
      id: id("si"),
      object: "subscription_item",
      billing_thresholds: null,
      created,
      current_period_end: periodEnd,
      current_period_start: created,
      current_trial: null,
      discounts: [],
      metadata: {},
      plan: planOf(spec.price),
      price: spec.price,
      quantity: spec.quantity,
      subscription: subId,
      tax_rates: [],
    };
    const sub: Stripe.Subscription = {
      id: subId,
      object: "subscription",
      application: null,
      application_fee_percent: null,
      automatic_tax: {
        disabled_reason: null,
        enabled: spec.automaticTax,
        liability: spec.automaticTax ? { type: "self" } : null,
      },
      billing_cycle_anchor: spec.trialEnd ?? created,
      billing_cycle_anchor_config: null,
      billing_mode: { flexible: { proration_discounts: "included" }, type: "flexible", updated_at: created },
      billing_schedules: [],
      billing_thresholds: null,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
      collection_method: "charge_automatically",
      created,
      currency: spec.price.currency,
      customer: spec.customer,
      customer_account: null,
      days_until_due: null,
      default_payment_method: id("pm"),
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      ended_at: null,
      invoice_settings: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: { type: "self" },
      },
      items: { object: "list", data: [item], has_more: false, url: `/v1/subscription_items?subscription=${subId}` },
      latest_invoice: null,
      livemode: false,
      managed_payments: null,
      metadata: spec.metadata,
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: {
        payment_method_options: null,
        payment_method_types: null,
        save_default_payment_method: "off",
      },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: created,
      status: spec.trialEnd ? "trialing" : "active",
      test_clock: null,
      transfer_data: null,
      trial_end: spec.trialEnd,
      trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: "create_invoice" } },
      trial_start: spec.trialEnd ? created : null,
    };
    fake.subscriptions.set(sub.id, sub);
    billing.set(sub.id, { anchor: sub.billing_cycle_anchor, cycle: spec.trialEnd ? -1 : 0, pending: [], billed: null });
    return sub;
  };

  const newLine = (
    sub: Stripe.Subscription,
    spec: {
      amount: number;
      price: Stripe.Price;
      quantity: number;
      period: { start: number; end: number };
      description: string;
      proration: boolean;
      credited?: { invoice: string; line: string } | null;
    },
  ): Stripe.InvoiceLineItem => ({
    id: id("il"),
    object: "line_item",
    amount: spec.amount,
    currency: spec.price.currency,
    description: spec.description,
    discount_amounts: [],
    discountable: !spec.proration,
    discounts: [],
    invoice: null,
    livemode: false,
    metadata: spec.proration ? {} : { ...sub.metadata },
    parent: {
      type: "subscription_item_details",
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: spec.proration ? id("ii") : null,
        proration: spec.proration,
        proration_details: {
          credited_items: spec.credited
            ? { invoice: spec.credited.invoice, invoice_line_items: [spec.credited.line] }
            : null,
        },
        subscription: sub.id,
        subscription_item: itemOf(sub).id,
      },
    },
    period: spec.period,
    pretax_credit_amounts: [],
    pricing: {
      type: "price_details",
      price_details: { price: spec.price.id, product: String(spec.price.product) },
      unit_amount_decimal: spec.proration
        ? Stripe.Decimal.from(String(spec.amount / spec.quantity))
        : spec.price.unit_amount_decimal,
    },
    quantity: spec.quantity,
    quantity_decimal: Stripe.Decimal.from(String(spec.quantity)),
    subscription: sub.id,
    subtotal: spec.amount,
    taxes: [],
  });
  /** The line that bills a period of the subscription's price. */
  const periodLine = (sub: Stripe.Subscription, period: { start: number; end: number }) => {
    const item = itemOf(sub);
    const quantity = item.quantity ?? 1;
    const recurring = recurringOf(item.price);
    const each = money(item.price.unit_amount ?? 0, item.price.currency);
    return newLine(sub, {
      amount: (item.price.unit_amount ?? 0) * quantity,
      price: item.price,
      quantity,
      period,
      description: `${quantity} × ${productName(item.price)} (at ${each} / ${recurring.interval})`,
      proration: false,
    });
  };

  /** A draft invoice of the subscription with these lines. */
  const draftInvoice = (
    sub: Stripe.Subscription,
    reason: Stripe.Invoice.BillingReason,
    lines: Stripe.InvoiceLineItem[],
    period: { start: number; end: number },
  ): Stripe.Invoice => {
    const customer = customerOf(sub.customer);
    const invoiceId = id("in");
    for (const line of lines) line.invoice = invoiceId;
    const total = lines.reduce((sum, line) => sum + line.amount, 0);
    const created = now();
    const invoice: Stripe.Invoice = {
      id: invoiceId,
      object: "invoice",
      account_country: "US",
      account_name: "Atelier (test)",
      account_tax_ids: null,
      amount_due: Math.max(0, total),
      amount_overpaid: 0,
      amount_paid: 0,
      amount_remaining: Math.max(0, total),
      amount_shipping: 0,
      application: null,
      attempt_count: 0,
      attempted: false,
      auto_advance: true,
      automatic_tax: {
        disabled_reason: null,
        enabled: sub.automatic_tax.enabled,
        liability: sub.automatic_tax.enabled ? { type: "self" } : null,
        provider: sub.automatic_tax.enabled ? "stripe" : null,
        status: sub.automatic_tax.enabled ? "complete" : null,
      },
      automatically_finalizes_at: created + 3600,
      billing_reason: reason,
      collection_method: "charge_automatically",
      created,
      currency: sub.currency,
      custom_fields: null,
      customer: customer.id,
      customer_account: null,
      customer_address: customer.address ?? null,
      customer_email: customer.email,
      customer_name: customer.name ?? null,
      customer_phone: customer.phone ?? null,
      customer_shipping: null,
      customer_tax_exempt: customer.tax_exempt ?? "none",
      customer_tax_ids: (taxIds.get(customer.id) ?? []).map((t) => ({ type: t.type, value: t.value })),
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      due_date: null,
      effective_at: null,
      ending_balance: null,
      footer: null,
      from_invoice: null,
      hosted_invoice_url: null,
      invoice_pdf: null,
      issuer: { type: "self" },
      last_finalization_error: null,
      latest_revision: null,
      lines: { object: "list", data: lines, has_more: false, url: `/v1/invoices/${invoiceId}/lines` },
      livemode: false,
      metadata: {},
      next_payment_attempt: null,
      number: null,
      on_behalf_of: null,
      parent: {
        type: "subscription_details",
        quote_details: null,
        subscription_details: { metadata: { ...sub.metadata }, subscription: sub.id },
      },
      payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
      period_end: period.end,
      period_start: period.start,
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      receipt_number: null,
      rendering: null,
      shipping_cost: null,
      shipping_details: null,
      starting_balance: customer.balance,
      statement_descriptor: null,
      status: "draft",
      status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
      subtotal: total,
      subtotal_excluding_tax: total,
      test_clock: null,
      total,
      total_discount_amounts: [],
      total_excluding_tax: total,
      total_pretax_credit_amounts: [],
      total_taxes: [],
      webhooks_delivered_at: created,
    };
    fake.invoices.set(invoice.id, invoice);
    return invoice;
  };

  /**
   * Finalizes a draft: its number and hosted pages, the customer's balance applied (a negative total is credited to
   * it), and, when something is due, the default invoice payment with its payment intent, open until paid.
   */
  const finalize = (invoice: Stripe.Invoice) => {
    const customer = customerOf(invoice.customer);
    const sequence = customer.next_invoice_sequence ?? 1;
    const sum = invoice.total + customer.balance;
    Object.assign(invoice, {
      status: "open",
      number: `${customer.invoice_prefix}-${String(sequence).padStart(4, "0")}`,
      starting_balance: customer.balance,
      ending_balance: Math.min(0, sum),
      amount_due: Math.max(0, sum),
      amount_remaining: Math.max(0, sum),
      hosted_invoice_url: `${fake.url}/invoices/${invoice.id}`,
      invoice_pdf: `${fake.url}/invoices/${invoice.id}.pdf`,
      automatically_finalizes_at: null,
      effective_at: now(),
    });
    invoice.status_transitions.finalized_at = now();
    customer.balance = Math.min(0, sum);
    customer.next_invoice_sequence = sequence + 1;
    if (invoice.amount_due > 0) {
      const intent: Intent = {
        id: id("pi"),
        latest_charge: null,
        amount: invoice.amount_due,
        metadata: {},
        currency: invoice.currency,
        customer: customer.id,
        status: "requires_payment_method",
        last_payment_error: null,
      };
      intents.set(intent.id, intent);
      const payment: Stripe.InvoicePayment = {
        id: id("inpay"),
        object: "invoice_payment",
        amount_paid: null,
        amount_requested: invoice.amount_due,
        created: now(),
        currency: invoice.currency,
        invoice: invoice.id,
        is_default: true,
        livemode: false,
        payment: { type: "payment_intent", payment_intent: intent.id },
        status: "open",
        status_transitions: { canceled_at: null, paid_at: null },
      };
      fake.invoicePayments.set(payment.id, payment);
    }
  };
  /** Pays an open invoice: a charge on its payment intent (when something is due). */
  const settle = (invoice: Stripe.Invoice): Stripe.Event[] => {
    const payment = paymentOf(invoice, "open");
    if (invoice.amount_due > 0 && payment) {
      const intent = intents.get(String(payment.payment.payment_intent))!;
      const charge: Charge = {
        id: id("ch"),
        object: "charge",
        amount: invoice.amount_due,
        amount_refunded: 0,
        refunded: false,
        currency: invoice.currency,
        payment_intent: intent.id,
        receipt_url: "",
        customer: String(invoice.customer),
      };
      charge.receipt_url = `${fake.url}/receipts/${charge.id}`;
      fake.charges.set(charge.id, charge);
      Object.assign(intent, { latest_charge: charge.id, status: "succeeded", last_payment_error: null });
      Object.assign(payment, { status: "paid", amount_paid: invoice.amount_due });
      payment.status_transitions.paid_at = now();
    }
    Object.assign(invoice, {
      status: "paid",
      amount_paid: invoice.amount_due,
      amount_remaining: 0,
      attempted: true,
      attempt_count: invoice.attempt_count + (invoice.amount_due > 0 ? 1 : 0),
      next_payment_attempt: null,
      auto_advance: false,
    });
    invoice.status_transitions.paid_at = now();
    return [event("invoice.paid", invoice), event("invoice.payment_succeeded", invoice)];
  };
  /** An attempt to pay that fails: declined, or waiting for the customer to authenticate. */
  const failAttempt = (invoice: Stripe.Invoice, outcome: "failed" | "action_required"): Stripe.Event[] => {
    const payment = paymentOf(invoice, "open");
    const intent = payment ? intents.get(String(payment.payment.payment_intent)) : undefined;
    if (intent)
      Object.assign(intent, {
        status: outcome === "failed" ? "requires_payment_method" : "requires_action",
        last_payment_error:
          outcome === "failed"
            ? {
                type: "card_error",
                code: "card_declined",
                decline_code: "generic_decline",
                message: "Your card was declined.",
              }
            : null,
      });
    Object.assign(invoice, {
      attempted: true,
      attempt_count: invoice.attempt_count + 1,
      next_payment_attempt: now() + 3 * 86_400,
    });
    const type = outcome === "failed" ? "invoice.payment_failed" : "invoice.payment_action_required";
    return [event(type, invoice)];
  };
  /** A draft's life as Stripe bills it at once: created, finalized, then paid or not. */
  const collect = (invoice: Stripe.Invoice, outcome: RenewOutcome): Stripe.Event[] => {
    const events = [event("invoice.created", invoice)];
    finalize(invoice);
    events.push(event("invoice.finalized", invoice));
    if (outcome === "paid" || invoice.amount_due === 0) events.push(...settle(invoice));
    else events.push(...failAttempt(invoice, outcome));
    return events;
  };

  /** Ends a subscription now: `customer.subscription.deleted`. */
  const end = (sub: Stripe.Subscription, reason: string): Stripe.Event[] => {
    const at = now();
    Object.assign(sub, { status: "canceled", ended_at: at, canceled_at: sub.canceled_at ?? at });
    sub.cancellation_details = { ...sub.cancellation_details!, reason: sub.cancellation_details?.reason ?? reason };
    return [event("customer.subscription.deleted", sub)];
  };
  /** Sets or clears cancelling at the period's end; returns the previous values. */
  const scheduleCancel = (sub: Stripe.Subscription, atPeriodEnd: boolean): Partial<Stripe.Subscription> => {
    const previous = {
      cancel_at_period_end: sub.cancel_at_period_end,
      cancel_at: sub.cancel_at,
      canceled_at: sub.canceled_at,
      cancellation_details: sub.cancellation_details ? { ...sub.cancellation_details } : null,
    };
    Object.assign(sub, {
      cancel_at_period_end: atPeriodEnd,
      cancel_at: atPeriodEnd ? itemOf(sub).current_period_end : null,
      canceled_at: atPeriodEnd ? now() : null,
      cancellation_details: {
        comment: null,
        feedback: null,
        feedback_option: null,
        reason: atPeriodEnd ? "cancellation_requested" : null,
      },
    });
    return previous;
  };
  const live = (sub: Stripe.Subscription) => sub.status !== "canceled" && sub.status !== "incomplete_expired";
  const requireLive = (sub: Stripe.Subscription) => {
    if (!live(sub)) throw new Error(`subscription ${sub.id} has ended`);
  };

  /** Pays a subscription-mode session: what Checkout makes, in the order Stripe sends its events. */
  const subscribe = (s: FakeSession, plan: SessionPlan): Stripe.Event[] => {
    const events: Stripe.Event[] = [];
    let customerId = s.customer;
    if (!customerId) {
      const customer = newCustomer({ email: s.customer_email ?? undefined });
      events.push(event("customer.created", customer));
      customerId = customer.id;
    }
    const price = priceOfLine(plan.line);
    const trialEnd = plan.trialDays ? now() + plan.trialDays * 86_400 : null;
    const sub = newSubscription({
      customer: customerId,
      price,
      quantity: plan.line.quantity,
      metadata: { ...plan.metadata },
      trialEnd,
      automaticTax: plan.automaticTax,
    });
    const item = itemOf(sub);
    const period = { start: item.current_period_start, end: item.current_period_end };
    const line = trialEnd
      ? newLine(sub, {
          amount: 0,
          price,
          quantity: plan.line.quantity,
          period,
          description: `Trial period for ${productName(price)}`,
          proration: false,
        })
      : periodLine(sub, period);
    const invoice = draftInvoice(sub, "subscription_create", [line], { start: sub.created, end: sub.created });
    sub.latest_invoice = invoice.id;
    events.push(event("customer.subscription.created", sub));
    events.push(...collect(invoice, "paid"));
    if (!trialEnd) billingOf(sub).billed = { invoice: invoice.id, line: line.id };
    Object.assign(s, {
      status: "complete",
      payment_status: invoice.amount_paid > 0 ? "paid" : "no_payment_required",
      customer: customerId,
      subscription: sub.id,
      invoice: invoice.id,
      url: null,
    });
    return events;
  };

  /** The next period: its invoice, paid or not, and the subscription as it then stands. */
  const renewal = (sub: Stripe.Subscription, outcome: RenewOutcome): Stripe.Event[] => {
    requireLive(sub);
    if (sub.cancel_at_period_end) throw new Error(`subscription ${sub.id} ends with its period: use endPeriod`);
    const item = itemOf(sub);
    const state = billingOf(sub);
    const previous: Partial<Stripe.Subscription> = { items: clone(sub.items), latest_invoice: sub.latest_invoice };
    const ended = { start: item.current_period_start, end: item.current_period_end };
    state.cycle += 1;
    const recurring = recurringOf(item.price);
    item.current_period_start = addInterval(state.anchor, recurring, state.cycle);
    item.current_period_end = addInterval(state.anchor, recurring, state.cycle + 1);
    const line = periodLine(sub, { start: item.current_period_start, end: item.current_period_end });
    const invoice = draftInvoice(sub, "subscription_cycle", [...state.pending.splice(0), line], ended);
    sub.latest_invoice = invoice.id;
    const events = collect(invoice, outcome);
    const status = invoice.status === "paid" ? "active" : "past_due";
    if (invoice.status === "paid") state.billed = { invoice: invoice.id, line: line.id };
    if (sub.status !== status) previous.status = sub.status;
    sub.status = status;
    events.push(event("customer.subscription.updated", sub, previous));
    return events;
  };

  /** Pays an open invoice (a retry that succeeds), and the subscription is active again. */
  const retry = (invoice: Stripe.Invoice): Stripe.Event[] => {
    if (invoice.status !== "open") throw new Error(`invoice ${invoice.id} is ${invoice.status}, not open`);
    const events = settle(invoice);
    const subId = subscriptionIdOf(invoice);
    const sub = subId ? fake.subscriptions.get(subId) : undefined;
    if (sub && live(sub) && sub.status !== "active" && sub.status !== "trialing") {
      const previous = { status: sub.status };
      sub.status = "active";
      const line = invoice.lines.data.find((l) => !l.parent?.subscription_item_details?.proration);
      if (line && invoice.billing_reason === "subscription_cycle")
        billingOf(sub).billed = { invoice: invoice.id, line: line.id };
      events.push(event("customer.subscription.updated", sub, previous));
    }
    return events;
  };

  /**
   * Replaces the subscription item's price (and quantity). Prorations credit the unused time of the old price and
   * charge the rest of the period at the new one, by seconds; a new interval starts a new period now, billed in
   * full. They are invoiced at once with `always_invoice` (or a new interval), else kept for the next renewal.
   */
  const changeItem = (
    sub: Stripe.Subscription,
    price: Stripe.Price,
    quantity: number,
    behavior: string,
  ): { previous: Partial<Stripe.Subscription>; invoice: Stripe.Invoice | null } => {
    const item = itemOf(sub);
    const state = billingOf(sub);
    const previous: Partial<Stripe.Subscription> = { items: clone(sub.items) };
    const old = { price: item.price, quantity: item.quantity ?? 1 };
    const period = { start: item.current_period_start, end: item.current_period_end };
    const at = Math.min(Math.max(now(), period.start), period.end);
    const left = (amount: number) =>
      period.end > period.start ? Math.round((amount * (period.end - at)) / (period.end - period.start)) : 0;
    const newRecurring = recurringOf(price);
    const oldRecurring = recurringOf(old.price);
    const newInterval =
      newRecurring.interval !== oldRecurring.interval || newRecurring.interval_count !== oldRecurring.interval_count;
    const trialing = sub.status === "trialing";
    const prorate = !trialing && behavior !== "none";
    const lines: Stripe.InvoiceLineItem[] = [];
    const unused = prorate ? left((old.price.unit_amount ?? 0) * old.quantity) : 0;
    if (unused)
      lines.push(
        newLine(sub, {
          amount: -unused,
          price: old.price,
          quantity: old.quantity,
          period: { start: at, end: period.end },
          description: `Unused time on ${old.quantity} × ${productName(old.price)} after ${day(at)}`,
          proration: true,
          credited: state.billed,
        }),
      );
    Object.assign(item, { price, plan: planOf(price), quantity });
    if (newInterval && !trialing) {
      // A new period from now: in the fake's time, not before the current period began (renewals move it ahead).
      const start = at;
      previous.billing_cycle_anchor = sub.billing_cycle_anchor;
      Object.assign(state, { anchor: start, cycle: 0 });
      sub.billing_cycle_anchor = start;
      item.current_period_start = start;
      item.current_period_end = addInterval(start, newRecurring, 1);
      lines.push(periodLine(sub, { start, end: item.current_period_end }));
    } else if (prorate) {
      const remaining = left((price.unit_amount ?? 0) * quantity);
      if (remaining)
        lines.push(
          newLine(sub, {
            amount: remaining,
            price,
            quantity,
            period: { start: at, end: period.end },
            description: `Remaining time on ${quantity} × ${productName(price)} after ${day(at)}`,
            proration: true,
          }),
        );
    }
    if (lines.length === 0) return { previous, invoice: null };
    if (!(newInterval && !trialing) && behavior !== "always_invoice") {
      state.pending.push(...lines);
      return { previous, invoice: null };
    }
    const invoice = draftInvoice(sub, "subscription_update", [...state.pending.splice(0), ...lines], {
      start: now(),
      end: now(),
    });
    previous.latest_invoice = sub.latest_invoice;
    sub.latest_invoice = invoice.id;
    const full = lines.find((l) => !l.parent?.subscription_item_details?.proration);
    if (full) state.billed = { invoice: invoice.id, line: full.id };
    return { previous, invoice };
  };

  /** `POST /v1/subscriptions/:id`: what the app may change, and the events it makes, in Stripe's order. */
  const updateSubscription = (sub: Stripe.Subscription, params: Json): Stripe.Event[] | ApiError => {
    const asked = Object.keys(params).filter((key) => key !== "expand");
    if (!live(sub) && asked.some((key) => key !== "metadata" && key !== "cancellation_details"))
      return {
        status: 400,
        message: "A canceled subscription can only update its cancellation_details and metadata.",
      };
    let change: { price: Stripe.Price | CheckoutLine; quantity: number } | null = null;
    const itemParams = obj(params.items)["0"];
    if (itemParams !== undefined) {
      const wanted = obj(itemParams);
      if (wanted.id !== itemOf(sub).id)
        return {
          status: 400,
          message: "This fake changes the subscription's one item: pass items[0][id] with its id.",
          param: "items[0][id]",
        };
      if (wanted.price !== undefined || wanted.price_data !== undefined) {
        if (wanted.price_data !== undefined && !str(obj(wanted.price_data).product))
          return {
            status: 400,
            message: "Missing required param: items[0][price_data][product].",
            param: "items[0][price_data][product]",
          };
        const line = lineOf({ ...wanted, quantity: wanted.quantity ?? itemOf(sub).quantity ?? 1 }, "items[0]");
        if (isError(line)) return line;
        if (!line.recurring || !INTERVALS.includes(line.recurring.interval))
          return {
            status: 400,
            message:
              "The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.",
            param: "items[0][price]",
          };
        if (!Number.isInteger(line.unitAmount) || line.unitAmount < 0 || !line.currency)
          return {
            status: 400,
            message: "Missing required param: items[0][price_data][unit_amount].",
            param: "items[0][price_data][unit_amount]",
          };
        change = { price: line, quantity: line.quantity };
      } else if (wanted.quantity !== undefined) {
        change = { price: itemOf(sub).price, quantity: Number(wanted.quantity) };
      }
      if (change && (!Number.isInteger(change.quantity) || change.quantity < 1))
        return { status: 400, message: "Invalid positive integer", param: "items[0][quantity]" };
    }

    const previous: Partial<Stripe.Subscription> = {};
    if (params.metadata !== undefined) {
      const next = mergeMetadata(sub.metadata, params.metadata);
      if (JSON.stringify(next) !== JSON.stringify(sub.metadata)) {
        previous.metadata = sub.metadata;
        sub.metadata = next;
      }
    }
    if (params.cancel_at_period_end !== undefined) {
      const atPeriodEnd = params.cancel_at_period_end === "true";
      if (atPeriodEnd !== sub.cancel_at_period_end) Object.assign(previous, scheduleCancel(sub, atPeriodEnd));
    }
    let invoice: Stripe.Invoice | null = null;
    if (change) {
      const price = "object" in change.price ? change.price : priceOfLine(change.price);
      const item = itemOf(sub);
      if (price.id !== item.price.id || change.quantity !== (item.quantity ?? 1)) {
        const behavior = str(params.proration_behavior) ?? "create_prorations";
        const changed = changeItem(sub, price, change.quantity, behavior);
        Object.assign(previous, changed.previous);
        invoice = changed.invoice;
      }
    }
    const events: Stripe.Event[] = [];
    if (Object.keys(previous).length > 0) events.push(event("customer.subscription.updated", sub, previous));
    if (invoice) events.push(...collect(invoice, "paid"));
    return events;
  };

  /** The portal's "update payment method": a new default card for the customer and its subscriptions. */
  const updateCard = (customer: Stripe.Customer): Stripe.Event[] => {
    const card = id("pm");
    const events = [];
    const before = { ...customer.invoice_settings };
    customer.invoice_settings.default_payment_method = card;
    events.push(event("customer.updated", customer, { invoice_settings: before }));
    for (const sub of fake.subscriptions.values()) {
      if (sub.customer !== customer.id || !live(sub)) continue;
      const previous = { default_payment_method: sub.default_payment_method };
      sub.default_payment_method = card;
      events.push(event("customer.subscription.updated", sub, previous));
    }
    return events;
  };

  /**
   * What the buyer entered on a taxed session's page: its `customer_details`, and on its customer what
   * `customer_update` allows (the address; the business's name and tax id when tax ids were collected).
   */
  const keepEntered = (s: FakeSession) => {
    const entry = fake.checkoutEntry;
    const collectsTaxId = (s.tax_id_collection as { enabled?: boolean } | undefined)?.enabled === true;
    const taxId = collectsTaxId ? entry.taxId : null;
    const customer = typeof s.customer === "string" ? fake.customers.get(s.customer) : undefined;
    s.customer_details = {
      address: entry.address,
      email: customer?.email ?? s.customer_email ?? null,
      name: (collectsTaxId ? entry.businessName : null) ?? customer?.name ?? null,
      phone: null,
      tax_exempt: "none",
      tax_ids: taxId ? [taxId] : [],
    };
    const update = customerUpdates.get(s.id);
    if (!customer || !update) return;
    const previous: Json = {};
    if (update.address && JSON.stringify(customer.address) !== JSON.stringify(entry.address)) {
      previous.address = customer.address;
      customer.address = { ...entry.address };
    }
    if (update.name && taxId && entry.businessName && customer.name !== entry.businessName) {
      previous.name = customer.name;
      customer.name = entry.businessName;
    }
    if (Object.keys(previous).length > 0) event("customer.updated", customer, previous);
    if (taxId) event("customer.tax_id.created", addTaxId(customer, taxId.type, taxId.value));
  };

  const fake: FakeStripe = {
    url: "",
    sessions: new Map(),
    charges: new Map(),
    customers: new Map(),
    products: new Map(),
    prices: new Map(),
    subscriptions: new Map(),
    invoices: new Map(),
    invoicePayments: new Map(),
    portalSessions: new Map(),
    setupIntents: new Map(),
    paymentMethods: new Map(),
    paymentIntents: new Map(),
    offSessionOutcome: "paid",
    checkoutEntry: {
      address: {
        line1: "Unter den Linden 1",
        line2: null,
        city: "Berlin",
        postal_code: "10117",
        state: null,
        country: "DE",
      },
      businessName: null,
      taxId: null,
    },
    events: [],
    requests: [],
    webhookUrl: options.webhookUrl ?? null,
    autoDeliver: true,
    outage: null,
    latencyMs: 0,
    pay(sessionId) {
      const s = session(sessionId);
      const plan = plans.get(sessionId);
      if (s.status !== "complete" && s.mode === "subscription" && plan) {
        subscribe(s, plan);
      } else if (s.mode === "setup") {
        if (s.status === "open") saveCard(s);
      } else if (s.status !== "complete") {
        const intentId = id("pi");
        // Stripe Tax on: the tax of the entered address added to the price (20 % here), as with exclusive prices.
        if ((s.automatic_tax as { enabled?: boolean } | undefined)?.enabled) {
          const subtotal = Number(s.amount_subtotal ?? 0);
          const tax = Math.round(subtotal * 0.2);
          s.amount_total = subtotal + tax;
          s.total_details = { amount_discount: 0, amount_shipping: 0, amount_tax: tax };
        }
        const amount = s.amount_total ?? 0;
        const charge: Charge = {
          id: id("ch"),
          object: "charge",
          amount,
          amount_refunded: 0,
          refunded: false,
          currency: s.currency ?? "",
          payment_intent: intentId,
          receipt_url: `${fake.url}/receipts/${sessionId}`,
        };
        fake.charges.set(charge.id, charge);
        intents.set(intentId, { id: intentId, latest_charge: charge.id, amount, metadata: {} });
        Object.assign(s, { status: "complete", payment_status: "paid", payment_intent: intentId, url: null });
      }
      const tax = s.automatic_tax as Stripe.Checkout.Session.AutomaticTax | undefined;
      if (s.status === "complete" && tax?.enabled) {
        tax.status = "complete";
        keepEntered(s);
      }
      return event("checkout.session.completed", s);
    },
    expire(sessionId) {
      const s = session(sessionId);
      if (s.status === "open" && s.mode === "setup") {
        const setup = setupIntentOf(s);
        Object.assign(setup, { status: "canceled", cancellation_reason: "abandoned" });
        event("setup_intent.canceled", setup);
      }
      if (s.status === "open") Object.assign(s, { status: "expired", url: null });
      return event("checkout.session.expired", s);
    },
    refund(sessionId, amount) {
      return refundCharge(chargeOf(session(sessionId)), amount);
    },
    dispute(sessionId, step = { type: "created" }) {
      return disputeCharge(chargeOf(session(sessionId)), step);
    },
    renew(subscriptionId, opts) {
      return control(opts, () => renewal(subscriptionOf(subscriptionId), opts?.outcome ?? "paid"));
    },
    payInvoice(invoiceId, opts) {
      return control(opts, () => retry(invoiceOf(invoiceId)));
    },
    endDunning(subscriptionId, status, opts) {
      return control(opts, () => {
        const sub = subscriptionOf(subscriptionId);
        requireLive(sub);
        if (status === "canceled") return end(sub, "payment_failed");
        const previous = { status: sub.status };
        sub.status = "unpaid";
        return [event("customer.subscription.updated", sub, previous)];
      });
    },
    cancel(subscriptionId, opts) {
      return control(opts, () => {
        const sub = subscriptionOf(subscriptionId);
        requireLive(sub);
        if (!opts.atPeriodEnd) return end(sub, "cancellation_requested");
        if (sub.cancel_at_period_end) return [];
        return [event("customer.subscription.updated", sub, scheduleCancel(sub, true))];
      });
    },
    endPeriod(subscriptionId, opts) {
      return control(opts, () => {
        const sub = subscriptionOf(subscriptionId);
        requireLive(sub);
        if (!sub.cancel_at_period_end && !sub.cancel_at)
          throw new Error(`subscription ${sub.id} is not set to cancel: use renew`);
        return end(sub, "cancellation_requested");
      });
    },
    refundInvoice(invoiceId, amount, opts) {
      return control(opts, () => [refundCharge(chargeOfInvoice(invoiceOf(invoiceId)), amount)]);
    },
    disputeInvoice(invoiceId, step = { type: "created" }, opts) {
      return control(opts, () => [disputeCharge(chargeOfInvoice(invoiceOf(invoiceId)), step)]);
    },
    refundPayment(paymentIntentId, amount, opts) {
      return control(opts, () => [refundCharge(chargeOfPayment(paymentIntentId), amount)]);
    },
    disputePayment(paymentIntentId, step = { type: "created" }, opts) {
      return control(opts, () => [disputeCharge(chargeOfPayment(paymentIntentId), step)]);
    },
    async deliver(evt, opts = {}) {
      if (!fake.webhookUrl) throw new Error("no webhook URL");
      const payload = JSON.stringify(evt, null, 2);
      const header =
        opts.signature ??
        (await signer.webhooks.generateTestHeaderStringAsync({
          payload,
          secret: opts.secret ?? webhookSecret,
          timestamp: opts.timestamp ?? now(),
        }));
      const body = opts.tamper ? opts.tamper(payload) : payload;
      const send = async (): Promise<Delivery> => {
        const response = await fetch(fake.webhookUrl!, {
          method: "POST",
          headers: { "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": header },
          body,
        });
        return { status: response.status, body: await response.text() };
      };
      return Promise.all(Array.from({ length: opts.times ?? 1 }, send));
    },
    settled: () => outbox,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  /** A payment intent as the API shows it (its latest charge expanded when asked). */
  const intentBody = (intent: Intent, expandCharge: boolean): Json => {
    const body = { ...intent, object: "payment_intent", status: intent.status ?? "succeeded" } as Json;
    if (expandCharge)
      body.latest_charge = intent.latest_charge ? (fake.charges.get(intent.latest_charge) ?? null) : null;
    return body;
  };

  /** A payment intent made with `POST /v1/payment_intents` as the API shows it (its latest charge expanded when asked). */
  const paymentIntentBody = (intent: Stripe.PaymentIntent, expandCharge: boolean): Stripe.PaymentIntent => {
    if (!expandCharge || typeof intent.latest_charge !== "string") return intent;
    const charge = fake.charges.get(intent.latest_charge) as unknown as Stripe.Charge | undefined;
    return { ...intent, latest_charge: charge ?? null };
  };

  /** The smallest amount Stripe charges, as its refusal spells it (50 minor units here, whatever the currency). */
  const minimumCharge = (currency: string) => `${{ usd: "$", eur: "€", gbp: "£" }[currency] ?? ""}0.50 ${currency}`;

  /**
   * `POST /v1/payment_intents`, checked as Stripe does: the intent (`payment_intent.created`) and, with `confirm`,
   * its payment with the card (`confirmPayment`). The card must be the customer's.
   */
  const createPaymentIntent = (
    params: Json,
  ): { intent: Stripe.PaymentIntent; events: Stripe.Event[]; error: Json | null } | ApiError => {
    if (params.amount === undefined)
      return { status: 400, message: "Missing required param: amount.", param: "amount" };
    const currency = str(params.currency)?.toLowerCase();
    if (!currency) return { status: 400, message: "Missing required param: currency.", param: "currency" };
    if (!/^\d+$/.test(String(params.amount)))
      return {
        status: 400,
        message: `Invalid integer: ${String(params.amount)}`,
        param: "amount",
        code: "parameter_invalid_integer",
      };
    const amount = Number(params.amount);
    if (amount < 50)
      return {
        status: 400,
        message: `Amount must be at least ${minimumCharge(currency)}`,
        param: "amount",
        code: "amount_too_small",
      };
    const customerId = str(params.customer);
    const customer = customerId ? fake.customers.get(customerId) : undefined;
    if (customerId && !customer)
      return { status: 400, message: `No such customer: '${customerId}'`, param: "customer", code: "resource_missing" };
    const confirm = params.confirm === "true";
    const saved = customer?.invoice_settings.default_payment_method;
    const cardId =
      str(params.payment_method) ??
      (confirm && typeof saved === "string" && fake.paymentMethods.has(saved) ? saved : null);
    const card = cardId ? fake.paymentMethods.get(cardId) : undefined;
    if (cardId && !card)
      return {
        status: 400,
        message: `No such PaymentMethod: '${cardId}'`,
        param: "payment_method",
        code: "resource_missing",
      };
    if (card && customerId && card.customer !== customerId)
      return {
        status: 400,
        message:
          `The PaymentMethod ${card.id} does not belong to the Customer you supplied ${customerId}. ` +
          "Please use this PaymentMethod with the Customer that it belongs to instead.",
        param: "payment_method",
      };
    if (card?.customer && !customerId)
      return {
        status: 400,
        message:
          `The \`payment_method\` parameter supplied ${card.id} belongs to the Customer ${String(card.customer)}. ` +
          "Please include the Customer in the `customer` parameter on the PaymentIntent.",
        param: "source",
        code: "parameter_missing",
      };
    if (confirm && !card)
      return {
        status: 400,
        message: customerId
          ? "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the " +
            `PaymentIntent with ${customerId}, specify a payment method attached to this customer along with the ` +
            "customer ID."
          : "You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the " +
            "PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a " +
            "payment method or ConfirmationToken.",
        code: "payment_intent_unexpected_state",
      };
    const intentId = id("pi");
    const intent: Stripe.PaymentIntent = {
      id: intentId,
      object: "payment_intent",
      allowed_payment_method_types: null,
      amount,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: "automatic_async",
      client_secret: clientSecret(intentId),
      confirmation_method: "automatic",
      created: now(),
      currency,
      customer: customerId,
      customer_account: null,
      description: str(params.description),
      excluded_payment_method_types: null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      managed_payments: null,
      metadata: mergeMetadata({}, params.metadata),
      next_action: null,
      on_behalf_of: null,
      payment_method: card?.id ?? null,
      payment_method_configuration_details: null,
      payment_method_options: {
        card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" },
      },
      payment_method_types: ["card"],
      payment_record: null,
      processing: null,
      receipt_email: str(params.receipt_email),
      review: null,
      setup_future_usage: null,
      shipping: null,
      source: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: card ? "requires_confirmation" : "requires_payment_method",
      transfer_group: null,
    };
    fake.paymentIntents.set(intent.id, intent);
    const events = [event("payment_intent.created", intent)];
    if (!confirm || !card) return { intent, events, error: null };
    // `off_session` is `true`, or the kind of later payment: `one_off`, `recurring`.
    const offSession = ["true", "one_off", "recurring"].includes(String(params.off_session));
    const confirmed = confirmPayment(intent, card, offSession);
    return { intent, events: [...events, ...confirmed.events], error: confirmed.error };
  };

  /**
   * A setup-mode session, checked as Stripe does (no line items; a currency unless payment method types are given),
   * and the SetupIntent Checkout makes with it.
   */
  const newSetupSession = (params: Json): FakeSession | ApiError => {
    for (const param of ["line_items", "allow_promotion_codes"])
      if (params[param] !== undefined)
        return { status: 400, message: `You can not pass \`${param}\` in \`setup\` mode.`, param };
    const currency = str(params.currency)?.toLowerCase() ?? null;
    const types = [...list(params.payment_method_types), ...list(params.allowed_payment_method_types)];
    if (!currency && types.length === 0)
      return { status: 400, message: "Missing required param: currency.", param: "currency" };
    const customer = str(params.customer);
    if (customer && !fake.customers.has(customer))
      return { status: 400, message: `No such customer: '${customer}'`, param: "customer", code: "resource_missing" };
    const setupData = obj(params.setup_intent_data);
    const setup = newSetupIntent({
      customer,
      metadata: mergeMetadata({}, setupData.metadata),
      description: str(setupData.description),
      types: types.length > 0 ? types : ["card"],
    });
    const sessionId = id("cs");
    return {
      id: sessionId,
      object: "checkout.session",
      mode: "setup",
      status: "open",
      payment_status: "no_payment_required",
      amount_subtotal: null,
      amount_total: null,
      currency,
      client_reference_id: str(params.client_reference_id),
      metadata: mergeMetadata({}, params.metadata),
      payment_intent: null,
      setup_intent: setup.id,
      customer,
      subscription: null,
      invoice: null,
      url: `${fake.url}/pay/${sessionId}`,
      success_url: String(params.success_url),
      cancel_url: String(params.cancel_url),
      customer_email: str(params.customer_email),
      locale: str(params.locale),
      expires_at: Number(params.expires_at ?? now() + 86400),
      created: now(),
      livemode: false,
      allow_promotion_codes: null,
      billing_address_collection: str(params.billing_address_collection),
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      product_name: "",
    };
  };

  /** Checks a new session's line and mode as Stripe does; the session's fields and, in subscription mode, its plan. */
  const newSession = (params: Json): FakeSession | ApiError => {
    const missing = { status: 400, message: "Missing required param: line_items[0][price_data]." };
    const mode = params.mode;
    if (mode === "setup") return newSetupSession(params);
    if (mode !== "payment" && mode !== "subscription") return missing;
    const line = lineOf(obj(obj(params.line_items)["0"]), "line_items[0]");
    if (isError(line)) return line;
    const amount = line.unitAmount * line.quantity;
    if (mode === "payment") {
      if (line.recurring)
        return {
          status: 400,
          message:
            "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.",
          param: "line_items[0]",
        };
      if (!Number.isInteger(amount) || amount <= 0 || !line.currency) return missing;
    } else {
      if (!line.recurring)
        return {
          status: 400,
          message: "You must provide at least one recurring price in `subscription` mode when using prices.",
          param: "line_items",
        };
      if (!INTERVALS.includes(line.recurring.interval))
        return {
          status: 400,
          message: `Invalid line_items[0][price_data][recurring][interval]: must be one of day, week, month, or year`,
          param: "line_items[0][price_data][recurring][interval]",
        };
      if (!Number.isInteger(amount) || amount < 0 || !line.currency) return missing;
    }
    const customer = str(params.customer);
    if (customer && !fake.customers.has(customer))
      return { status: 400, message: `No such customer: '${customer}'`, param: "customer", code: "resource_missing" };
    const update = params.customer_update === undefined ? null : obj(params.customer_update);
    if (update && !customer)
      return {
        status: 400,
        message: "`customer_update` can only be used with `customer`.",
        param: "customer_update",
      };
    if (
      customer &&
      obj(params.automatic_tax).enabled === "true" &&
      !fake.customers.get(customer)?.address?.country &&
      update?.address !== "auto" &&
      update?.shipping !== "auto"
    )
      return {
        status: 400,
        message:
          "Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the " +
          "Customer or set either `customer_update[address]` to 'auto' or `customer_update[shipping]` to 'auto' to save " +
          "the address entered in Checkout to the Customer.",
        param: "automatic_tax[enabled]",
      };
    const subscriptionData = obj(params.subscription_data);
    const trialDays =
      subscriptionData.trial_period_days === undefined ? null : Number(subscriptionData.trial_period_days);
    if (trialDays !== null && (!Number.isInteger(trialDays) || trialDays < 1 || trialDays > 730))
      return {
        status: 400,
        message: "Invalid integer: subscription_data[trial_period_days] must be between 1 and 730.",
        param: "subscription_data[trial_period_days]",
      };
    const automaticTax = obj(params.automatic_tax).enabled === "true";
    const taxIdCollection = obj(params.tax_id_collection);
    const sessionId = id("cs");
    if (update) customerUpdates.set(sessionId, { address: update.address === "auto", name: update.name === "auto" });
    const total = mode === "subscription" && trialDays ? 0 : amount;
    const s: FakeSession = {
      id: sessionId,
      object: "checkout.session",
      mode,
      status: "open",
      payment_status: "unpaid",
      amount_subtotal: total,
      amount_total: total,
      currency: line.currency,
      client_reference_id: (params.client_reference_id as string | undefined) ?? null,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      payment_intent: null,
      setup_intent: null,
      customer,
      subscription: null,
      invoice: null,
      url: `${fake.url}/pay/${sessionId}`,
      success_url: String(params.success_url),
      cancel_url: String(params.cancel_url),
      customer_email: (params.customer_email as string | undefined) ?? null,
      locale: (params.locale as string | undefined) ?? null,
      expires_at: Number(params.expires_at ?? now() + 86400),
      created: now(),
      livemode: false,
      allow_promotion_codes:
        params.allow_promotion_codes === undefined ? null : params.allow_promotion_codes === "true",
      billing_address_collection: str(params.billing_address_collection),
      tax_id_collection: {
        enabled: taxIdCollection.enabled === "true",
        required: str(taxIdCollection.required) ?? "never",
      },
      automatic_tax: {
        enabled: automaticTax,
        liability: automaticTax ? { type: "self" } : null,
        provider: automaticTax ? "stripe" : null,
        status: automaticTax ? "requires_location_inputs" : null,
      },
      product_name: line.productName,
    };
    if (mode === "subscription")
      plans.set(sessionId, { line, trialDays, metadata: mergeMetadata({}, subscriptionData.metadata), automaticTax });
    return s;
  };

  /** `POST /v1/prices`. */
  const createPrice = (params: Json): Stripe.Price | ApiError => {
    const currency = str(params.currency);
    if (!currency) return { status: 400, message: "Missing required param: currency.", param: "currency" };
    let product = str(params.product);
    if (product && !fake.products.has(product))
      return { status: 400, message: `No such product: '${product}'`, param: "product", code: "resource_missing" };
    const productData = obj(params.product_data);
    if (!product && productData.name === undefined)
      return { status: 400, message: "Missing required param: product.", param: "product" };
    const unitAmount = Number(params.unit_amount);
    if (!Number.isInteger(unitAmount) || unitAmount < 0)
      return { status: 400, message: "Missing required param: unit_amount.", param: "unit_amount" };
    const recurring = params.recurring === undefined ? null : obj(params.recurring);
    if (recurring && !INTERVALS.includes(String(recurring.interval)))
      return {
        status: 400,
        message: "Invalid recurring[interval]: must be one of day, week, month, or year",
        param: "recurring[interval]",
      };
    const lookupKey = str(params.lookup_key);
    const holder = lookupKey ? [...fake.prices.values()].find((p) => p.lookup_key === lookupKey) : undefined;
    if (holder && params.transfer_lookup_key !== "true")
      return {
        status: 400,
        message: `A price (\`${holder.id}\`) already uses that lookup key.`,
        param: "lookup_key",
      };
    if (holder) holder.lookup_key = null;
    product ??= newProduct(String(productData.name), mergeMetadata({}, productData.metadata)).id;
    return newPrice({
      currency,
      unitAmount,
      product,
      recurring: recurring
        ? { interval: String(recurring.interval), interval_count: Number(recurring.interval_count ?? 1) }
        : null,
      lookupKey,
      metadata: mergeMetadata({}, params.metadata),
      nickname: str(params.nickname),
    });
  };

  /** `POST /v1/billing_portal/sessions`. */
  const createPortalSession = (params: Json): Stripe.BillingPortal.Session | ApiError => {
    const customer = str(params.customer);
    if (!customer) return { status: 400, message: "Missing required param: customer.", param: "customer" };
    if (!fake.customers.has(customer))
      return { status: 400, message: `No such customer: '${customer}'`, param: "customer", code: "resource_missing" };
    const flowData = params.flow_data === undefined ? null : obj(params.flow_data);
    let flow: Stripe.BillingPortal.Session.Flow | null = null;
    if (flowData) {
      const type = String(flowData.type ?? "");
      const flowTypes = [
        "customer_update",
        "payment_method_update",
        "subscription_cancel",
        "subscription_pause",
        "subscription_update",
        "subscription_update_confirm",
      ];
      if (!flowTypes.includes(type))
        return { status: 400, message: "Missing required param: flow_data[type].", param: "flow_data[type]" };
      const subscriptionOfFlow = str(obj(flowData[type]).subscription);
      if (type.startsWith("subscription_") && !subscriptionOfFlow)
        return {
          status: 400,
          message: `Missing required param: flow_data[${type}][subscription].`,
          param: `flow_data[${type}][subscription]`,
        };
      const after = obj(flowData.after_completion);
      const redirect = str(obj(after.redirect).return_url);
      const message = str(obj(after.hosted_confirmation).custom_message);
      const confirmItems = Object.values(obj(obj(flowData.subscription_update_confirm).items)).map((value) => {
        const item = obj(value);
        return {
          id: str(item.id),
          price: str(item.price),
          ...(item.quantity === undefined ? {} : { quantity: Number(item.quantity) }),
        };
      });
      flow = {
        after_completion: {
          hosted_confirmation: str(after.type) === "hosted_confirmation" ? { custom_message: message } : null,
          redirect: redirect ? { return_url: redirect } : null,
          type: str(after.type) ?? "portal_homepage",
        },
        customer_update: null,
        subscription_cancel:
          type === "subscription_cancel" ? { retention: null, subscription: subscriptionOfFlow! } : null,
        subscription_pause: type === "subscription_pause" ? { subscription: subscriptionOfFlow! } : null,
        subscription_update: type === "subscription_update" ? { subscription: subscriptionOfFlow! } : null,
        subscription_update_confirm:
          type === "subscription_update_confirm"
            ? { discounts: null, items: confirmItems, subscription: subscriptionOfFlow! }
            : null,
        type,
      };
    }
    const portalId = id("bps");
    const portal: Stripe.BillingPortal.Session = {
      id: portalId,
      object: "billing_portal.session",
      configuration: portalConfiguration,
      created: now(),
      customer,
      customer_account: null,
      flow,
      livemode: false,
      locale: str(params.locale),
      on_behalf_of: null,
      return_url: str(params.return_url),
      url: `${fake.url}/portal/${portalId}`,
    };
    fake.portalSessions.set(portal.id, portal);
    return portal;
  };

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL, raw: string) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json", "Request-Id": id("req") });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, type: string, message: string, extra: { param?: string; code?: string } = {}) =>
      reply(status, { error: { type, message, ...extra } });
    const missing = (object: string, objectId: string) =>
      error(404, "invalid_request_error", `No such ${object}: '${objectId}'`, {
        code: "resource_missing",
        param: "id",
      });
    const auth = req.headers.authorization ?? "";
    if (auth !== `Bearer ${secretKey}`) return error(401, "invalid_request_error", "Invalid API Key provided");
    const key = req.headers["idempotency-key"] as string | undefined;
    fake.requests.push({ method: req.method ?? "GET", path: url.pathname, idempotencyKey: key });
    if (fake.outage) return error(fake.outage, "api_error", "Something went wrong on Stripe's end.");
    const params = req.method === "POST" ? parseStripeForm(raw) : parseStripeForm(url.search.slice(1));
    const expand = list(params.expand);

    const ids = /\/((?:cs|pi|cus|sub|seti|si|pm|inpay|in|il|price|prod|bps)_test_\w+)/;
    const route = `${req.method} ${url.pathname.replace(ids, "/:id")}`;
    const pathId = ids.exec(url.pathname)?.[1] ?? "";

    /**
     * Runs a POST under its Idempotency-Key as Stripe does: the first response is kept and replayed for the same
     * parameters; other parameters, or a request while the first runs, are refused. Refusals of bad parameters
     * (`keep: false`) are not kept. With `events`, they are sent (when `autoDeliver`) once the response is written.
     */
    const idempotently = async (
      run: () => Promise<{ status: number; body: unknown; keep?: boolean; events?: Stripe.Event[] }>,
    ) => {
      if (key) {
        const seen = idempotent.get(key);
        if (seen === "running") return error(409, "idempotency_error", "A request with this key is in progress.");
        if (seen) {
          if (seen.params !== raw || (seen.path !== undefined && seen.path !== url.pathname))
            return error(
              400,
              "idempotency_error",
              "Keys for idempotent requests can only be used with the same parameters.",
            );
          res.writeHead(seen.status, { "Content-Type": "application/json", "Idempotent-Replayed": "true" });
          return res.end(seen.body);
        }
        idempotent.set(key, "running");
      }
      let outcome;
      try {
        outcome = await run();
      } catch (thrown) {
        if (key) idempotent.delete(key);
        throw thrown;
      }
      const body = JSON.stringify(outcome.body);
      if (key && outcome.keep === false) idempotent.delete(key);
      else if (key) idempotent.set(key, { params: raw, status: outcome.status, body, path: url.pathname });
      res.writeHead(outcome.status, { "Content-Type": "application/json", "Request-Id": id("req") });
      res.end(body);
      if (fake.autoDeliver && outcome.events) void send(outcome.events);
    };
    const refused = (e: ApiError) => ({
      status: e.status,
      body: {
        error: {
          type: "invalid_request_error",
          message: e.message,
          ...(e.param ? { param: e.param } : {}),
          ...(e.code ? { code: e.code } : {}),
        },
      },
      keep: false,
    });
    const subscriptionBody = (sub: Stripe.Subscription): Json => {
      const body = { ...sub } as Json;
      if (expand.includes("latest_invoice") && typeof sub.latest_invoice === "string")
        body.latest_invoice = fake.invoices.get(sub.latest_invoice) ?? null;
      if (expand.includes("customer") && typeof sub.customer === "string")
        body.customer = fake.customers.get(sub.customer) ?? sub.customer;
      return body;
    };
    const invoiceBody = (invoice: Stripe.Invoice): Json => {
      if (!expand.includes("payments")) return { ...invoice };
      const data = [...fake.invoicePayments.values()].filter((p) => p.invoice === invoice.id);
      return {
        ...invoice,
        payments: { object: "list", data, has_more: false, url: `/v1/invoices/${invoice.id}/payments` },
      };
    };

    if (route === "POST /v1/checkout/sessions") {
      return idempotently(async () => {
        if (fake.latencyMs) await new Promise((resolve) => setTimeout(resolve, fake.latencyMs));
        const made = newSession(params);
        if (isError(made)) return refused(made);
        fake.sessions.set(made.id, made);
        // In setup mode, Checkout makes the session's SetupIntent at once.
        const events = made.setup_intent ? [event("setup_intent.created", setupIntentOf(made))] : [];
        return { status: 200, body: made, events };
      });
    }
    if (route === "GET /v1/checkout/sessions") {
      const data = [...fake.sessions.values()].filter(
        (s) => !params.payment_intent || s.payment_intent === params.payment_intent,
      );
      return reply(200, { object: "list", data, has_more: false, url: "/v1/checkout/sessions" });
    }
    if (route === "GET /v1/checkout/sessions/:id") {
      const s = fake.sessions.get(pathId);
      return s ? reply(200, s) : error(404, "invalid_request_error", `No such checkout.session: '${pathId}'`);
    }
    if (route === "POST /v1/checkout/sessions/:id/expire") {
      const s = fake.sessions.get(pathId);
      if (!s) return error(404, "invalid_request_error", `No such checkout.session: '${pathId}'`);
      if (s.status !== "open") return error(400, "invalid_request_error", "Only open sessions can be expired.");
      const from = fake.events.length;
      const expired = fake.expire(pathId);
      // A setup-mode session's SetupIntent is canceled first: both events are sent, in order.
      if (fake.webhookUrl && s.mode === "setup") void send(fake.events.slice(from));
      else if (fake.webhookUrl) void fake.deliver(expired).catch(() => undefined);
      return reply(200, s);
    }
    if (route === "POST /v1/refunds") {
      if (key) {
        const seen = idempotent.get(key);
        if (seen && seen !== "running") {
          res.writeHead(seen.status, { "Content-Type": "application/json", "Idempotent-Replayed": "true" });
          return res.end(seen.body);
        }
      }
      const intentId = String(params.payment_intent ?? "");
      const intent = intents.get(intentId) ?? fake.paymentIntents.get(intentId);
      if (!intent)
        return error(404, "invalid_request_error", `No such payment_intent: '${String(params.payment_intent)}'`);
      const charge = typeof intent.latest_charge === "string" ? fake.charges.get(intent.latest_charge) : undefined;
      if (!charge || charge.status === "failed")
        return error(
          400,
          "invalid_request_error",
          `PaymentIntent ${intent.id} does not have a successful charge to refund.`,
        );
      const left = charge.amount - charge.amount_refunded;
      const amount = params.amount === undefined ? left : Number(params.amount);
      if (left <= 0) return error(400, "invalid_request_error", `Charge ${charge.id} has already been refunded.`);
      if (!Number.isInteger(amount) || amount <= 0 || amount > left)
        return error(400, "invalid_request_error", "Refund amount is greater than the unrefunded amount.");
      charge.amount_refunded += amount;
      charge.refunded = charge.amount_refunded === charge.amount;
      const refund = {
        id: id("re"),
        object: "refund",
        amount,
        charge: charge.id,
        payment_intent: intent.id,
        currency: charge.currency,
        reason: (params.reason as string | undefined) ?? null,
        metadata: (params.metadata as Json | undefined) ?? {},
        status: "succeeded",
        created: now(),
      };
      const body = JSON.stringify(refund);
      if (key) idempotent.set(key, { params: raw, status: 200, body });
      // Stripe then tells the webhook.
      if (fake.autoDeliver && fake.webhookUrl)
        void fake.deliver(event("charge.refunded", { ...charge })).catch(() => undefined);
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(body);
    }
    if (route === "GET /v1/payment_intents/:id") {
      const made = fake.paymentIntents.get(pathId);
      if (made) return reply(200, paymentIntentBody(made, expand.includes("latest_charge")));
      const intent = intents.get(pathId);
      if (!intent) return error(404, "invalid_request_error", `No such payment_intent: '${pathId}'`);
      return reply(200, intentBody(intent, expand.includes("latest_charge")));
    }
    if (route === "POST /v1/payment_intents") {
      return idempotently(async () => {
        const made = createPaymentIntent(params);
        if (isError(made)) return refused(made);
        const { intent, events, error: declined } = made;
        // A declined payment is Stripe's answer too: kept under the key and replayed like a success.
        if (declined) return { status: 402, body: { error: declined }, events };
        return { status: 200, body: paymentIntentBody(intent, expand.includes("latest_charge")), events };
      });
    }

    // Saved cards: SetupIntents and payment methods.
    if (route === "GET /v1/setup_intents/:id") {
      const setup = fake.setupIntents.get(pathId);
      if (!setup) return missing("setupintent", pathId);
      const card = typeof setup.payment_method === "string" ? fake.paymentMethods.get(setup.payment_method) : null;
      return reply(200, expand.includes("payment_method") && card ? { ...setup, payment_method: card } : setup);
    }
    if (route === "GET /v1/payment_methods/:id") {
      const card = fake.paymentMethods.get(pathId);
      return card ? reply(200, card) : missing("PaymentMethod", pathId);
    }
    if (route === "GET /v1/payment_methods" || route === "GET /v1/customers/:id/payment_methods") {
      const customer = route === "GET /v1/payment_methods" ? str(params.customer) : pathId;
      if (customer && !fake.customers.has(customer)) return missing("customer", customer);
      const cards = [...fake.paymentMethods.values()].filter(
        (card) => (!customer || card.customer === customer) && (params.type === undefined || card.type === params.type),
      );
      const path = customer ? `/v1/customers/${customer}/payment_methods` : "/v1/payment_methods";
      return reply(200, pageOf(cards, params, path));
    }

    // Customers.
    if (route === "POST /v1/customers") {
      return idempotently(async () => {
        const customer = newCustomer(params);
        return { status: 200, body: customerBody(customer, expand), events: [event("customer.created", customer)] };
      });
    }
    if (route === "GET /v1/customers/:id") {
      const customer = fake.customers.get(pathId);
      return customer ? reply(200, customerBody(customer, expand)) : missing("customer", pathId);
    }
    if (route === "POST /v1/customers/:id") {
      return idempotently(async () => {
        const customer = fake.customers.get(pathId);
        if (!customer)
          return refused({
            status: 404,
            message: `No such customer: '${pathId}'`,
            param: "id",
            code: "resource_missing",
          });
        const previous: Json = {};
        const set = <K extends keyof Stripe.Customer>(field: K, value: Stripe.Customer[K]) => {
          if (JSON.stringify(customer[field] ?? null) === JSON.stringify(value ?? null)) return;
          previous[field] = customer[field] ?? null;
          customer[field] = value;
        };
        for (const field of ["email", "name", "description", "phone"] as const)
          if (params[field] !== undefined) set(field, str(params[field]) || null);
        if (params.address !== undefined) set("address", params.address === "" ? null : addressOf(params.address));
        if (params.metadata !== undefined) set("metadata", mergeMetadata(customer.metadata, params.metadata));
        if (params.preferred_locales !== undefined) set("preferred_locales", list(params.preferred_locales));
        const events = Object.keys(previous).length > 0 ? [event("customer.updated", customer, previous)] : [];
        return { status: 200, body: customerBody(customer, expand), events };
      });
    }

    // A customer's tax ids.
    const taxIdPath = /^\/v1\/customers\/(cus_test_\w+)\/tax_ids(?:\/(txi_test_\w+))?$/.exec(url.pathname);
    if (taxIdPath) {
      const customer = fake.customers.get(taxIdPath[1]!);
      if (!customer) return missing("customer", taxIdPath[1]!);
      const [, , taxIdId] = taxIdPath;
      if (req.method === "GET" && !taxIdId) {
        const data = taxIds.get(customer.id) ?? [];
        return reply(200, { object: "list", data, has_more: false, url: url.pathname });
      }
      if (req.method === "POST" && !taxIdId) {
        return idempotently(async () => {
          const type = String(params.type ?? "");
          const value = String(params.value ?? "");
          if (!(type in TAX_ID_COUNTRY) && !(type in TAX_ID_FORMATS))
            return refused({ status: 400, message: `Invalid type: ${JSON.stringify(type)}`, param: "type" });
          if (!value) return refused({ status: 400, message: "Missing required param: value.", param: "value" });
          if (TAX_ID_FORMATS[type] && !TAX_ID_FORMATS[type].test(value))
            return refused({
              status: 400,
              message: `Invalid value for ${type}.`,
              param: "value",
              code: "tax_id_invalid",
            });
          const made = addTaxId(customer, type, value);
          return { status: 200, body: made, events: [event("customer.tax_id.created", made)] };
        });
      }
      if (req.method === "DELETE" && taxIdId) {
        const held = taxIds.get(customer.id) ?? [];
        const gone = held.find((t) => t.id === taxIdId);
        if (!gone) return missing("tax_id", taxIdId);
        taxIds.set(
          customer.id,
          held.filter((t) => t.id !== taxIdId),
        );
        const deleted = event("customer.tax_id.deleted", gone);
        reply(200, { id: gone.id, object: "tax_id", deleted: true });
        if (fake.autoDeliver) void send([deleted]);
        return;
      }
    }

    // Products and prices.
    if (route === "POST /v1/products") {
      return idempotently(async () => {
        const name = str(params.name);
        if (!name) return refused({ status: 400, message: "Missing required param: name.", param: "name" });
        const product = newProduct(name, mergeMetadata({}, params.metadata), str(params.description));
        if (params.active === "false") product.active = false;
        return { status: 200, body: product, events: [event("product.created", product)] };
      });
    }
    if (route === "GET /v1/products/:id") {
      const product = fake.products.get(pathId);
      return product ? reply(200, product) : missing("product", pathId);
    }
    if (route === "POST /v1/prices") {
      return idempotently(async () => {
        const price = createPrice(params);
        if (isError(price)) return refused(price);
        return { status: 200, body: price, events: [event("price.created", price)] };
      });
    }
    if (route === "GET /v1/prices") {
      const keys = list(params.lookup_keys);
      const recurring = obj(params.recurring);
      const prices = [...fake.prices.values()].filter(
        (p) =>
          (keys.length === 0 || (p.lookup_key !== null && keys.includes(p.lookup_key))) &&
          (params.product === undefined || p.product === params.product) &&
          (params.active === undefined || String(p.active) === params.active) &&
          (params.type === undefined || p.type === params.type) &&
          (params.currency === undefined || p.currency === params.currency) &&
          (recurring.interval === undefined || p.recurring?.interval === recurring.interval),
      );
      return reply(200, pageOf(prices, params, "/v1/prices"));
    }
    if (route === "GET /v1/prices/:id") {
      const price = fake.prices.get(pathId);
      return price ? reply(200, price) : missing("price", pathId);
    }

    // Subscriptions.
    if (route === "GET /v1/subscriptions") {
      const status = str(params.status);
      const subs = [...fake.subscriptions.values()].filter(
        (sub) =>
          (params.customer === undefined || sub.customer === params.customer) &&
          (params.price === undefined || itemOf(sub).price.id === params.price) &&
          (status === "all" || (status ? sub.status === status : sub.status !== "canceled")),
      );
      const page = pageOf(subs, params, "/v1/subscriptions");
      return reply(200, { ...page, data: page.data.map(subscriptionBody) });
    }
    if (route === "GET /v1/subscriptions/:id") {
      const sub = fake.subscriptions.get(pathId);
      return sub ? reply(200, subscriptionBody(sub)) : missing("subscription", pathId);
    }
    if (route === "POST /v1/subscriptions/:id") {
      return idempotently(async () => {
        const sub = fake.subscriptions.get(pathId);
        if (!sub)
          return refused({
            status: 404,
            message: `No such subscription: '${pathId}'`,
            param: "id",
            code: "resource_missing",
          });
        const events = updateSubscription(sub, params);
        if (isError(events)) return refused(events);
        return { status: 200, body: subscriptionBody(sub), events };
      });
    }
    if (route === "DELETE /v1/subscriptions/:id") {
      const sub = fake.subscriptions.get(pathId);
      if (!sub) return missing("subscription", pathId);
      if (live(sub)) {
        const events = end(sub, "cancellation_requested");
        if (fake.autoDeliver) void send(events);
      }
      return reply(200, subscriptionBody(sub));
    }

    // Invoices and their payments.
    if (route === "GET /v1/invoices") {
      const invoices = [...fake.invoices.values()].filter(
        (invoice) =>
          (params.customer === undefined || invoice.customer === params.customer) &&
          (params.subscription === undefined || subscriptionIdOf(invoice) === params.subscription) &&
          (params.status === undefined || invoice.status === params.status),
      );
      const page = pageOf(invoices, params, "/v1/invoices");
      return reply(200, { ...page, data: page.data.map(invoiceBody) });
    }
    if (route === "GET /v1/invoices/:id") {
      const invoice = fake.invoices.get(pathId);
      return invoice ? reply(200, invoiceBody(invoice)) : missing("invoice", pathId);
    }
    if (route === "GET /v1/invoices/:id/lines") {
      const invoice = fake.invoices.get(pathId);
      if (!invoice) return missing("invoice", pathId);
      return reply(200, pageOf([...invoice.lines.data].reverse(), params, `/v1/invoices/${invoice.id}/lines`));
    }
    if (route === "GET /v1/invoice_payments") {
      const payment = obj(params.payment);
      const payments = [...fake.invoicePayments.values()].filter(
        (p) =>
          (params.invoice === undefined || p.invoice === params.invoice) &&
          (params.status === undefined || p.status === params.status) &&
          (payment.type === undefined || p.payment.type === payment.type) &&
          (payment.payment_intent === undefined || p.payment.payment_intent === payment.payment_intent),
      );
      const page = pageOf(payments, params, "/v1/invoice_payments");
      const expandIntent = expand.includes("data.payment.payment_intent");
      const data = page.data.map((p) => {
        const intent = intents.get(String(p.payment.payment_intent));
        return expandIntent && intent
          ? { ...p, payment: { ...p.payment, payment_intent: intentBody(intent, false) } }
          : p;
      });
      return reply(200, { ...page, data });
    }
    if (route === "GET /v1/invoice_payments/:id") {
      const payment = fake.invoicePayments.get(pathId);
      return payment ? reply(200, payment) : missing("invoice_payment", pathId);
    }

    // The customer portal.
    if (route === "POST /v1/billing_portal/sessions") {
      return idempotently(async () => {
        const portal = createPortalSession(params);
        if (isError(portal)) return refused(portal);
        return { status: 200, body: portal };
      });
    }
    return error(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  };

  const page = (res: ServerResponse, status: number, title: string, content: string) => {
    res.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
        `<body style="font-family:sans-serif;max-width:420px;margin:48px auto">${content}</body></html>`,
    );
  };

  /** The hosted payment page of a subscription-mode session. */
  const subscribePage = (s: FakeSession, plan: SessionPlan) => {
    const { line } = plan;
    const interval = line.recurring?.interval ?? "";
    return (
      `<h1>Subscribe to ${escapeHtml(line.productName)}</h1>` +
      `<p data-testid="product">${escapeHtml(line.productName)}</p>` +
      `<p data-testid="price">${escapeHtml(money(line.unitAmount * line.quantity, line.currency))} / ${escapeHtml(interval)}</p>` +
      (plan.trialDays ? `<p data-testid="trial">${plan.trialDays} days free</p>` : "") +
      `<p>${escapeHtml(s.customer_email ?? "")}</p>` +
      `<form method="post"><button type="submit" data-testid="pay">Subscribe</button></form>` +
      `<a href="${escapeHtml(s.cancel_url)}" data-testid="cancel">Back</a>`
    );
  };

  /** The hosted page of a setup-mode session: a card to save for later payments, no amount. */
  const setupPage = (s: FakeSession) => {
    const email = s.customer ? fake.customers.get(s.customer)?.email : s.customer_email;
    return (
      `<h1>Save card</h1>` +
      `<p data-testid="setup">Save your card for future payments</p>` +
      `<p>${escapeHtml(email ?? "")}</p>` +
      `<p data-testid="card">Visa •••• 4242</p>` +
      `<form method="post"><button type="submit" data-testid="pay">Save card</button></form>` +
      `<a href="${escapeHtml(s.cancel_url)}" data-testid="cancel">Back</a>`
    );
  };

  /** The customer portal: its subscriptions (cancel or renew), its card, its invoices, and the way back. */
  const portalPage = (portal: Stripe.BillingPortal.Session) => {
    const customer = fake.customers.get(portal.customer);
    const base = `/portal/${portal.id}`;
    const subs = [...fake.subscriptions.values()].filter((sub) => sub.customer === portal.customer).reverse();
    const subscriptions = subs
      .map((sub) => {
        const item = itemOf(sub);
        const price = `${money((item.price.unit_amount ?? 0) * (item.quantity ?? 1), item.price.currency)} / ${item.price.recurring?.interval ?? ""}`;
        const hidden = `<input type="hidden" name="subscription" value="${escapeHtml(sub.id)}">`;
        const action = !live(sub)
          ? ""
          : sub.cancel_at_period_end
            ? `<p data-testid="portal-cancels">Cancels on ${day(item.current_period_end)}</p>` +
              `<form method="post" action="${base}/renew">${hidden}<button type="submit" data-testid="portal-renew">Renew plan</button></form>`
            : `<form method="post" action="${base}/cancel">${hidden}<button type="submit" data-testid="portal-cancel">Cancel plan</button></form>`;
        return (
          `<div data-testid="portal-subscription" data-subscription="${escapeHtml(sub.id)}" data-status="${escapeHtml(sub.status)}">` +
          `<h2>${escapeHtml(productName(item.price))}</h2>` +
          `<p data-testid="portal-price">${escapeHtml(price)}</p>` +
          `<p data-testid="portal-status">${escapeHtml(sub.status)}</p>` +
          `<p data-testid="portal-period-end">${live(sub) ? `Current period ends ${day(item.current_period_end)}` : `Ended ${day(sub.ended_at ?? now())}`}</p>` +
          `${action}</div>`
        );
      })
      .join("");
    const invoices = [...fake.invoices.values()]
      .filter((invoice) => invoice.customer === portal.customer && invoice.status !== "draft")
      .reverse()
      .map(
        (invoice) =>
          `<li data-testid="portal-invoice" data-status="${escapeHtml(invoice.status ?? "")}">` +
          `<a href="${escapeHtml(invoice.hosted_invoice_url ?? "")}">${escapeHtml(invoice.number ?? invoice.id)}</a> ` +
          `${escapeHtml(money(invoice.total, invoice.currency))} ${escapeHtml(invoice.status ?? "")} ${day(invoice.created)}</li>`,
      )
      .join("");
    const card = customer?.invoice_settings.default_payment_method;
    return (
      `<h1>Billing</h1><p data-testid="portal-customer">${escapeHtml(customer?.email ?? "")}</p>` +
      `<section data-testid="portal-subscriptions">${subscriptions || "<p>No subscriptions</p>"}</section>` +
      `<form method="post" action="${base}/card"><button type="submit" data-testid="portal-card">Update payment method</button></form>` +
      (card ? `<p data-testid="portal-card-updated">Payment method updated</p>` : "") +
      `<h2>Invoices</h2><ul data-testid="portal-invoices">${invoices}</ul>` +
      `<a data-testid="portal-return" href="${escapeHtml(portal.return_url ?? "")}">Return</a>`
    );
  };
  /** A portal form's change and its events (null when the subscription is not the customer's, or has ended). */
  const portalAction = (portal: Stripe.BillingPortal.Session, action: string, form: URLSearchParams) => {
    const customer = customerOf(portal.customer);
    if (action === "card") return updateCard(customer);
    const chosen = form.get("subscription");
    const sub = chosen
      ? fake.subscriptions.get(chosen)
      : [...fake.subscriptions.values()].find((s) => s.customer === customer.id && live(s));
    if (!sub || sub.customer !== customer.id || !live(sub)) return null;
    const atPeriodEnd = action === "cancel";
    if (sub.cancel_at_period_end === atPeriodEnd) return [];
    return [event("customer.subscription.updated", sub, scheduleCancel(sub, atPeriodEnd))];
  };
  /** The hosted invoice page. */
  const invoicePage = (invoice: Stripe.Invoice) =>
    `<h1>Invoice ${escapeHtml(invoice.number ?? "")}</h1>` +
    `<p data-testid="invoice-status">${escapeHtml(invoice.status ?? "")}</p>` +
    `<p data-testid="invoice-amount">${escapeHtml(money(invoice.total, invoice.currency))}</p>` +
    `<ul>${invoice.lines.data
      .map(
        (line) =>
          `<li data-testid="invoice-line">${escapeHtml(line.description ?? "")}: ${escapeHtml(money(line.amount, line.currency))} ` +
          `(${day(line.period.start)} – ${day(line.period.end)})</li>`,
      )
      .join("")}</ul>` +
    `<a data-testid="invoice-pdf" href="${escapeHtml(invoice.invoice_pdf ?? "")}">Download PDF</a>`;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const raw = await readBody(req);
      if (url.pathname.startsWith("/v1/")) return api(req, res, url, raw);
      const payMatch = /^\/pay\/(cs_test_\w+)$/.exec(url.pathname);
      if (payMatch) {
        const s = fake.sessions.get(payMatch[1]!);
        if (!s) return page(res, 404, "Not found", "<h1>Checkout session not found</h1>");
        const plan = s.mode === "subscription" ? plans.get(s.id) : undefined;
        if (req.method === "POST") {
          if (s.status === "expired") return page(res, 410, "Expired", "<h1>This checkout session has expired</h1>");
          if (plan || s.mode === "setup") {
            const from = fake.events.length;
            fake.pay(s.id);
            if (fake.autoDeliver && fake.webhookUrl) {
              await outbox;
              for (const evt of fake.events.slice(from)) await fake.deliver(evt);
            }
          } else {
            // The entered address and tax id (a taxed session) come before the completion, as at Stripe.
            const from = fake.events.length;
            fake.pay(s.id);
            if (fake.autoDeliver && fake.webhookUrl) for (const evt of fake.events.slice(from)) await fake.deliver(evt);
          }
          res.writeHead(303, { Location: s.success_url.replace("{CHECKOUT_SESSION_ID}", s.id) });
          return res.end();
        }
        if (plan) return page(res, 200, "Subscribe", subscribePage(s, plan));
        if (s.mode === "setup") return page(res, 200, "Save card", setupPage(s));
        const amount = ((s.amount_total ?? 0) / 100).toFixed(2);
        return page(
          res,
          200,
          "Checkout",
          `<h1>Pay ${escapeHtml((s.currency ?? "").toUpperCase())} ${amount}</h1><p data-testid="product">${escapeHtml(
            s.product_name,
          )}</p><p>${escapeHtml(s.customer_email ?? "")}</p>` +
            `<form method="post"><button type="submit" data-testid="pay">Pay</button></form>` +
            `<a href="${escapeHtml(s.cancel_url)}" data-testid="cancel">Back</a>`,
        );
      }
      const portalMatch = /^\/portal\/(bps_test_\w+)(?:\/(cancel|renew|card))?$/.exec(url.pathname);
      if (portalMatch) {
        const portal = fake.portalSessions.get(portalMatch[1]!);
        if (!portal) return page(res, 404, "Not found", "<h1>Portal session not found</h1>");
        const action = portalMatch[2];
        if (req.method === "POST" && action) {
          const events = portalAction(portal, action, new URLSearchParams(raw));
          if (!events) return page(res, 404, "Not found", "<h1>Subscription not found</h1>");
          if (fake.autoDeliver && fake.webhookUrl) {
            await outbox;
            for (const evt of events) await fake.deliver(evt);
          }
          res.writeHead(303, { Location: `/portal/${portal.id}` });
          return res.end();
        }
        if (action) return page(res, 405, "Not allowed", "<h1>Method not allowed</h1>");
        return page(res, 200, "Billing", portalPage(portal));
      }
      const invoiceMatch = /^\/invoices\/(in_test_\w+)(\.pdf)?$/.exec(url.pathname);
      if (invoiceMatch) {
        const invoice = fake.invoices.get(invoiceMatch[1]!);
        if (!invoice || invoice.status === "draft") return page(res, 404, "Not found", "<h1>Invoice not found</h1>");
        if (invoiceMatch[2]) {
          const pdf = tinyPdf(
            `Invoice ${invoice.number ?? ""} ${money(invoice.total, invoice.currency)} ${invoice.status ?? ""}`,
          );
          res.writeHead(200, { "Content-Type": "application/pdf", "Content-Length": String(pdf.length) });
          return res.end(pdf);
        }
        return page(res, 200, `Invoice ${invoice.number ?? ""}`, invoicePage(invoice));
      }
      if (url.pathname.startsWith("/receipts/")) return page(res, 200, "Receipt", "<h1>Receipt</h1>");
      page(res, 404, "Not found", "<h1>Not found</h1>");
    })().catch((error: Error) => {
      res.writeHead(500);
      res.end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
