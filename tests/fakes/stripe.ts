import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

export const STRIPE_TEST = {
  secretKey: "sk_test_atelierfake000000000000",
  webhookSecret: "whsec_atelierfake000000000000000",
} as const;

type Json = Record<string, unknown>;

export interface FakeSession extends Json {
  id: string;
  object: "checkout.session";
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid";
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
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
  receipt_url: string;
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

export interface FakeStripe {
  /** Base URL of the API, for STRIPE_API_URL. */
  url: string;
  sessions: Map<string, FakeSession>;
  charges: Map<string, Charge>;
  /** Requests seen by the API (method, path, idempotency key). */
  requests: Array<{ method: string; path: string; idempotencyKey?: string }>;
  /** Where events are posted (the app's /webhooks/stripe); events are kept, not sent, while unset. */
  webhookUrl: string | null;
  /** Whether paying a session sends its `checkout.session.completed` event right away. */
  autoDeliver: boolean;
  /** When set, the next API requests get this status (Stripe's api_error body). */
  outage: number | null;
  /** How long creating a checkout session takes, in milliseconds (to hold a request in flight). */
  latencyMs: number;
  /** Completes a session as paid: a payment intent and a charge with a receipt. Returns the completed event. */
  pay(sessionId: string): Stripe.Event;
  expire(sessionId: string): Stripe.Event;
  refund(sessionId: string, amount?: number): Stripe.Event;
  /**
   * Moves the charge's dispute (one per charge, as at Stripe) and returns its event: `created` opens it (an inquiry
   * when `inquiry`), `funds_withdrawn`, `funds_reinstated`, and `closed` with the outcome.
   */
  dispute(sessionId: string, step?: DisputeStep): Stripe.Event;
  /** Posts an event to the webhook URL, signed like Stripe does. */
  deliver(event: Stripe.Event, options?: DeliverOptions): Promise<Delivery[]>;
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

/**
 * A local Stripe: the Checkout Session endpoints the app uses (create with idempotency keys, retrieve, list by
 * payment intent, expire), payment intents with their latest charge, refunds (which send `charge.refunded`), a hosted payment page that completes the
 * session, and webhook delivery signed with the endpoint secret through the SDK's own test helper.
 */
export async function startFakeStripe(
  options: { webhookUrl?: string | null; secretKey?: string; webhookSecret?: string } = {},
): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? STRIPE_TEST.secretKey;
  const webhookSecret = options.webhookSecret ?? STRIPE_TEST.webhookSecret;
  const signer = new Stripe(secretKey);
  const idempotent = new Map<string, { params: string; status: number; body: string } | "running">();
  const intents = new Map<string, { id: string; latest_charge: string; amount: number; metadata: Json }>();
  const disputes = new Map<string, { id: string; status: string } & Json>();

  const event = (type: string, object: Json): Stripe.Event =>
    ({
      id: id("evt"),
      object: "event",
      api_version: "2026-07-29.dahlia",
      created: now(),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object: structuredClone(object) },
    }) as unknown as Stripe.Event;

  const session = (sessionId: string) => {
    const s = fake.sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    return s;
  };
  const chargeOf = (s: FakeSession) => {
    const intent = s.payment_intent ? intents.get(s.payment_intent) : undefined;
    const charge = intent ? fake.charges.get(intent.latest_charge) : undefined;
    if (!charge) throw new Error(`session ${s.id} was not paid`);
    return charge;
  };

  const fake: FakeStripe = {
    url: "",
    sessions: new Map(),
    charges: new Map(),
    requests: [],
    webhookUrl: options.webhookUrl ?? null,
    autoDeliver: true,
    outage: null,
    latencyMs: 0,
    pay(sessionId) {
      const s = session(sessionId);
      if (s.status !== "complete") {
        const intentId = id("pi");
        const charge: Charge = {
          id: id("ch"),
          object: "charge",
          amount: s.amount_total,
          amount_refunded: 0,
          refunded: false,
          currency: s.currency,
          payment_intent: intentId,
          receipt_url: `${fake.url}/receipts/${sessionId}`,
        };
        fake.charges.set(charge.id, charge);
        intents.set(intentId, { id: intentId, latest_charge: charge.id, amount: s.amount_total, metadata: {} });
        Object.assign(s, { status: "complete", payment_status: "paid", payment_intent: intentId, url: null });
      }
      return event("checkout.session.completed", s);
    },
    expire(sessionId) {
      const s = session(sessionId);
      if (s.status === "open") Object.assign(s, { status: "expired", url: null });
      return event("checkout.session.expired", s);
    },
    refund(sessionId, amount) {
      const charge = chargeOf(session(sessionId));
      charge.amount_refunded = Math.min(charge.amount, charge.amount_refunded + (amount ?? charge.amount));
      charge.refunded = charge.amount_refunded === charge.amount;
      return event("charge.refunded", charge);
    },
    dispute(sessionId, step = { type: "created" }) {
      const charge = chargeOf(session(sessionId));
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL, raw: string) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json", "Request-Id": id("req") });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, type: string, message: string) => reply(status, { error: { type, message } });
    const auth = req.headers.authorization ?? "";
    if (auth !== `Bearer ${secretKey}`) return error(401, "invalid_request_error", "Invalid API Key provided");
    const key = req.headers["idempotency-key"] as string | undefined;
    fake.requests.push({ method: req.method ?? "GET", path: url.pathname, idempotencyKey: key });
    if (fake.outage) return error(fake.outage, "api_error", "Something went wrong on Stripe's end.");
    const params = req.method === "POST" ? parseStripeForm(raw) : parseStripeForm(url.search.slice(1));

    const route = `${req.method} ${url.pathname.replace(/\/(cs|pi)_test_\w+/, "/:id")}`;
    const pathId = /\/((cs|pi)_test_\w+)/.exec(url.pathname)?.[1] ?? "";

    if (route === "POST /v1/checkout/sessions") {
      if (key) {
        const seen = idempotent.get(key);
        if (seen === "running") return error(409, "idempotency_error", "A request with this key is in progress.");
        if (seen) {
          if (seen.params !== raw)
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
      if (fake.latencyMs) await new Promise((resolve) => setTimeout(resolve, fake.latencyMs));
      const item = ((params.line_items as Json | undefined)?.["0"] ?? {}) as Json;
      const price = (item.price_data ?? {}) as Json;
      const amount = Number(price.unit_amount) * Number(item.quantity ?? 1);
      if (params.mode !== "payment" || !Number.isInteger(amount) || amount <= 0 || !price.currency) {
        if (key) idempotent.delete(key);
        return error(400, "invalid_request_error", "Missing required param: line_items[0][price_data].");
      }
      const sessionId = id("cs");
      const s: FakeSession = {
        id: sessionId,
        object: "checkout.session",
        mode: "payment",
        status: "open",
        payment_status: "unpaid",
        amount_subtotal: amount,
        amount_total: amount,
        currency: String(price.currency).toLowerCase(),
        client_reference_id: (params.client_reference_id as string | undefined) ?? null,
        metadata: (params.metadata as Record<string, string> | undefined) ?? {},
        payment_intent: null,
        url: `${fake.url}/pay/${sessionId}`,
        success_url: String(params.success_url),
        cancel_url: String(params.cancel_url),
        customer_email: (params.customer_email as string | undefined) ?? null,
        locale: (params.locale as string | undefined) ?? null,
        expires_at: Number(params.expires_at ?? now() + 86400),
        created: now(),
        livemode: false,
        product_name: String(((price.product_data ?? {}) as Json).name ?? ""),
      };
      fake.sessions.set(sessionId, s);
      const body = JSON.stringify(s);
      if (key) idempotent.set(key, { params: raw, status: 200, body });
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(body);
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
      const expired = fake.expire(pathId);
      if (fake.webhookUrl) void fake.deliver(expired).catch(() => undefined);
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
      const intent = intents.get(String(params.payment_intent ?? ""));
      if (!intent)
        return error(404, "invalid_request_error", `No such payment_intent: '${String(params.payment_intent)}'`);
      const charge = fake.charges.get(intent.latest_charge)!;
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
      const intent = intents.get(pathId);
      if (!intent) return error(404, "invalid_request_error", `No such payment_intent: '${pathId}'`);
      const expand = Object.values((params.expand as Json | undefined) ?? {});
      const body = { ...intent, object: "payment_intent", status: "succeeded" } as Json;
      if (expand.includes("latest_charge")) body.latest_charge = fake.charges.get(intent.latest_charge);
      return reply(200, body);
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

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const raw = await readBody(req);
      if (url.pathname.startsWith("/v1/")) return api(req, res, url, raw);
      const payMatch = /^\/pay\/(cs_test_\w+)$/.exec(url.pathname);
      if (payMatch) {
        const s = fake.sessions.get(payMatch[1]!);
        if (!s) return page(res, 404, "Not found", "<h1>Checkout session not found</h1>");
        if (req.method === "POST") {
          if (s.status === "expired") return page(res, 410, "Expired", "<h1>This checkout session has expired</h1>");
          const completed = fake.pay(s.id);
          if (fake.autoDeliver && fake.webhookUrl) await fake.deliver(completed);
          res.writeHead(303, { Location: s.success_url.replace("{CHECKOUT_SESSION_ID}", s.id) });
          return res.end();
        }
        const amount = (s.amount_total / 100).toFixed(2);
        return page(
          res,
          200,
          "Checkout",
          `<h1>Pay ${escapeHtml(s.currency.toUpperCase())} ${amount}</h1><p data-testid="product">${escapeHtml(
            s.product_name,
          )}</p><p>${escapeHtml(s.customer_email ?? "")}</p>` +
            `<form method="post"><button type="submit" data-testid="pay">Pay</button></form>` +
            `<a href="${escapeHtml(s.cancel_url)}" data-testid="cancel">Back</a>`,
        );
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
