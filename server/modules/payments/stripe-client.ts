import type Stripe from "stripe";
import type { Env } from "#server/env.ts";

export type StripeClient = Stripe;

/** Purchasing needs both the API key (to open checkouts) and the webhook secret (to learn they were paid). */
export function purchasingConfigured(env: Env): boolean {
  return Boolean(env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET);
}

/**
 * The official SDK, pointed at STRIPE_API_URL (Stripe itself unless a test points it at a local fake). It is loaded
 * only when purchasing is configured: an installation without it never holds the SDK in memory.
 */
export async function createStripeClient(env: Env): Promise<StripeClient | null> {
  if (!purchasingConfigured(env)) return null;
  const { default: Stripe } = await import("stripe");
  const api = new URL(env.STRIPE_API_URL);
  const protocol = api.protocol === "http:" ? "http" : "https";
  return new Stripe(env.STRIPE_SECRET_KEY!, {
    host: api.hostname,
    port: api.port ? Number(api.port) : protocol === "http" ? 80 : 443,
    protocol,
    maxNetworkRetries: 2,
    timeout: 15_000,
    appInfo: { name: "Atelier" },
  });
}

/**
 * Where a buy form's redirect goes: Stripe's hosted checkout (and, when the API is elsewhere, that host, as a
 * local stand-in serves its own payment page). The page policy's form-action must allow it, or a browser without
 * scripts would refuse to follow the redirect.
 */
export function checkoutOrigins(env: Env): string[] {
  if (!purchasingConfigured(env)) return [];
  const api = new URL(env.STRIPE_API_URL).origin;
  return api === "https://api.stripe.com" ? ["https://checkout.stripe.com"] : ["https://checkout.stripe.com", api];
}
