import { randomUUID } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { creditOrder } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import type { SiteConfig } from "#config/site.ts";
import { localizePath, type Locale } from "#common/locales.ts";
import type { StripeClient } from "./stripe-client.ts";
import { customerOf, TAXED } from "#server/modules/billing/stripe-customer.ts";

/** Stripe's Checkout speaks all ten languages; Portuguese is its Brazilian variant. */
export const CHECKOUT_LOCALES: Record<Locale, string> = {
  en: "en",
  zh: "zh",
  ru: "ru",
  de: "de",
  fr: "fr",
  ja: "ja",
  ko: "ko",
  es: "es",
  pt: "pt-BR",
  tr: "tr",
};

const REQUEST_KEY = /^[\w-]{16,64}$/;
/** Checkout sessions live 30 minutes to 24 hours; an abandoned one cancels its order when it expires. */
const CHECKOUT_LIFETIME_SECONDS = 60 * 60;
/** How long a second request for an order waits for the first one's checkout session. */
const IN_FLIGHT_WAIT_MS = 20_000;

export interface StartCheckoutOptions {
  db: Db;
  stripe: StripeClient | null;
  site: SiteConfig;
  logger: Logger;
  user: { id: string; email: string; name?: string | null };
  packId: string;
  /** The buy form's one-time key; repeating it (a double-click, a resent form) finds the same order. */
  requestKey?: string;
  locale: Locale;
  /** The pack's name on the payment page, in the buyer's language. */
  productName: string;
  /** Stripe Tax (the console's billing settings): the account's customer, its address asked for and kept. */
  stripeTax?: boolean;
}

/**
 * Opens a checkout for a pack: a pending order, then a Stripe Checkout session carrying the order (reference and
 * metadata) created with an idempotency key derived from the order, so a retried or repeated request gets the
 * same session instead of a second one. Credits come later, from the signed webhook only.
 */
export async function startCheckout(options: StartCheckoutOptions): Promise<{ orderId: string; url: string }> {
  const stripe = options.stripe;
  if (!stripe) throw new AppError("purchasing_disabled");
  const pack = options.site.packs.find((p) => p.id === options.packId);
  if (!pack) throw new AppError("unknown_pack", `no pack ${JSON.stringify(options.packId)}`);
  const requestKey = options.requestKey && REQUEST_KEY.test(options.requestKey) ? options.requestKey : randomUUID();

  await options.db
    .insert(creditOrder)
    .values({
      userId: options.user.id,
      packId: pack.id,
      credits: pack.credits,
      amount: pack.amount,
      currency: pack.currency,
      requestKey,
    })
    .onConflictDoNothing();
  const [order] = await options.db
    .select()
    .from(creditOrder)
    .where(and(eq(creditOrder.userId, options.user.id), eq(creditOrder.requestKey, requestKey)));
  if (!order) throw new Error("order vanished after insert");
  if (order.packId !== pack.id) throw new AppError("conflict", "this form already bought another pack");
  if (order.status !== "pending") throw new AppError("conflict", `order ${order.id} is ${order.status}`);
  if (order.checkoutUrl) return { orderId: order.id, url: order.checkoutUrl };
  const buyer = options.stripeTax
    ? { customer: await customerOf(options.db, stripe, options.user), ...TAXED }
    : { customer_email: options.user.email };

  const create = () =>
    stripe.checkout.sessions.create(
      {
        mode: "payment",
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: order.currency,
              unit_amount: order.amount,
              product_data: { name: options.productName, metadata: { pack_id: pack.id } },
            },
          },
        ],
        client_reference_id: order.id,
        metadata: { order_id: order.id, pack_id: pack.id },
        payment_intent_data: { metadata: { order_id: order.id } },
        ...buyer,
        locale: CHECKOUT_LOCALES[options.locale] as "en",
        // From the order, not the clock: a second request for the same order (a double-click) must send the very
        // same parameters, or Stripe refuses the idempotency key instead of answering with the first session.
        expires_at: Math.floor(order.createdAt.getTime() / 1000) + CHECKOUT_LIFETIME_SECONDS,
        success_url: `${options.site.url}${localizePath(`/user/orders/${order.id}`, options.locale)}?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${options.site.url}${localizePath("/pricing", options.locale)}?checkout=canceled`,
      },
      { idempotencyKey: `atelier-checkout-${order.id}` },
    );

  let session;
  const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
  try {
    for (;;) {
      try {
        session = await create();
        break;
      } catch (error) {
        // Another request for this order (a second click) is still creating the session under the same idempotency
        // key: wait for it, then take its answer from the order or from Stripe's replay.
        if ((error as { statusCode?: number }).statusCode !== 409 || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 300));
        const [now] = await options.db.select().from(creditOrder).where(eq(creditOrder.id, order.id));
        if (now?.checkoutUrl) return { orderId: order.id, url: now.checkoutUrl };
      }
    }
  } catch (error) {
    options.logger.error({ err: (error as Error).message, orderId: order.id }, "checkout session could not be created");
    await options.db
      .update(creditOrder)
      .set({ status: "failed", updatedAt: new Date() })
      .where(and(eq(creditOrder.id, order.id), eq(creditOrder.status, "pending"), isNull(creditOrder.checkoutUrl)));
    throw new AppError("checkout_failed");
  }
  if (!session.url) throw new AppError("checkout_failed", "the checkout session has no URL");
  await options.db
    .update(creditOrder)
    .set({ providerSessionId: session.id, checkoutUrl: session.url, updatedAt: new Date() })
    .where(and(eq(creditOrder.id, order.id), isNull(creditOrder.providerSessionId)));
  return { orderId: order.id, url: session.url };
}
