import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { billingCustomer } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import type { StripeClient } from "#server/modules/payments/stripe-client.ts";

/**
 * What Checkout needs for Stripe Tax with an existing customer: the tax computed from the address the buyer enters,
 * which (with the name for a business's tax id) is kept on the customer and so on the next invoices.
 */
export const TAXED = {
  automatic_tax: { enabled: true },
  tax_id_collection: { enabled: true },
  customer_update: { address: "auto", name: "auto" },
} as const;

/** The account's Stripe customer, made on first need with a key that makes a concurrent second request find it. */
export async function customerOf(
  db: Db,
  stripe: StripeClient,
  who: { id: string; email: string; name?: string | null },
): Promise<string> {
  const [known] = await db.select().from(billingCustomer).where(eq(billingCustomer.userId, who.id));
  if (known) return known.stripeCustomerId;
  let created;
  try {
    created = await stripe.customers.create(
      { email: who.email, ...(who.name ? { name: who.name } : {}), metadata: { user_id: who.id } },
      { idempotencyKey: `atelier-customer-${who.id}` },
    );
  } catch {
    throw new AppError("checkout_failed", "the customer could not be made");
  }
  await db.insert(billingCustomer).values({ userId: who.id, stripeCustomerId: created.id }).onConflictDoNothing();
  const [row] = await db.select().from(billingCustomer).where(eq(billingCustomer.userId, who.id));
  return row!.stripeCustomerId;
}
