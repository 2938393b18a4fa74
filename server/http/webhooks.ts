import { Hono } from "hono";
import type Stripe from "stripe";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";
import { runtimeReady } from "#server/http/runtime-gate.ts";
import { errorResponse } from "#server/http/api-error.ts";
import { AppError } from "#server/errors.ts";
import { handleStripeEvent } from "#server/modules/payments/handle-stripe-event.ts";

/** Stripe's default: a signature older than five minutes is a replay. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Payment provider callbacks. Not behind the session or the same-origin check: the signature over the raw body is
 * what authenticates them. A 2xx tells the provider the event is done; anything else makes it deliver again.
 */
export function webhookRoutes(state: ServerState) {
  const hooks = new Hono<AppEnv>().use(runtimeReady(state));
  hooks.post("/stripe", async (c) => {
    const runtime = c.var.runtime;
    const stripe = runtime.stripe;
    const secret = runtime.env.STRIPE_WEBHOOK_SECRET;
    if (!stripe || !secret) return errorResponse(c, new AppError("not_found", "payments are not configured"));
    const signature = c.req.header("stripe-signature");
    const raw = Buffer.from(await c.req.arrayBuffer());
    let event: Stripe.Event;
    try {
      if (!signature) throw new Error("no Stripe-Signature header");
      event = await stripe.webhooks.constructEventAsync(raw, signature, secret, SIGNATURE_TOLERANCE_SECONDS);
    } catch (error) {
      c.get("logger").warn({ err: (error as Error).message }, "stripe webhook refused");
      return errorResponse(c, new AppError("bad_request", "invalid signature"));
    }
    try {
      const outcome = await handleStripeEvent({
        db: runtime.database.db,
        stripe,
        logger: c.get("logger"),
        event,
        graceDays: runtime.settings.current().billing.graceDays,
        packExpiryDays: runtime.settings.current().billing.packExpiryDays,
        mail: { boss: runtime.boss, siteUrl: runtime.site.url },
      });
      return c.json({ received: true, outcome });
    } catch (error) {
      c.get("logger").error(
        { err: error, stripeEvent: event.id, type: event.type },
        "stripe event failed; will be retried",
      );
      return errorResponse(c, new AppError("internal_error", "event not applied, retry later"));
    }
  });
  return hooks;
}
