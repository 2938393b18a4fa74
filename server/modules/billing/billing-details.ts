import { eq, isNull, lte, or, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { billingCustomer, billingDetails } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import {
  BILLING_FIELDS,
  billingDetailsSchema,
  TAX_ID_TYPES,
  type BillingDetailsInput,
} from "#common/billing-details.ts";
import type { StripeClient } from "#server/modules/payments/stripe-client.ts";
import { customerOf } from "./stripe-customer.ts";

export type BillingDetailsView = BillingDetailsInput;

const EMPTY: BillingDetailsView = {
  name: "",
  line1: "",
  line2: "",
  city: "",
  postalCode: "",
  state: "",
  country: "",
  taxIdType: "",
  taxIdValue: "",
};

/** What the account's invoices carry, as the orders page's form shows it (empty fields for an account without). */
export async function billingDetailsOf(db: Db, userId: string): Promise<BillingDetailsView> {
  const [row] = await db.select().from(billingDetails).where(eq(billingDetails.userId, userId));
  if (!row) return EMPTY;
  return Object.fromEntries(BILLING_FIELDS.map((f) => [f, row[f]])) as BillingDetailsView;
}

type Field = (typeof BILLING_FIELDS)[number];

/** A refused form: the field, and the message that says why (`invalid_billing_details`, `values.field`). */
function refused(field: Field, key: "billingDetails" | "billingCountry" | "billingTaxId" | "billingTaxIdInvalid") {
  return new AppError("invalid_billing_details", `billing details: ${field}`, {
    key: `pricing.errors.${key}`,
    values: { field },
  });
}

/**
 * Saves the account's billing details at Stripe, then here: the tax id first (Stripe checks its format and refuses
 * an invalid one before anything else changed), then the customer's name and address, then the old tax ids removed.
 * Only what Stripe accepted is written here. The account's customer is made if it has none yet.
 */
export async function saveBillingDetails(options: {
  db: Db;
  stripe: StripeClient | null;
  logger: Logger;
  user: { id: string; email: string; name?: string | null };
  input: Record<string, unknown>;
}): Promise<BillingDetailsView> {
  const stripe = options.stripe;
  if (!stripe) throw new AppError("purchasing_disabled");
  const parsed = billingDetailsSchema.safeParse(options.input);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? "name") as Field;
    if (field === "country") throw refused(field, "billingCountry");
    throw refused(field, field === "taxIdValue" || field === "taxIdType" ? "billingTaxId" : "billingDetails");
  }
  const details = parsed.data;
  if (details.taxIdType) details.taxIdValue = details.taxIdValue.toUpperCase();
  const customer = await customerOf(options.db, stripe, options.user);
  const log = options.logger.child({ customer });

  let made: Stripe.TaxId | undefined;
  try {
    const held = await stripe.customers.listTaxIds(customer, { limit: 100 });
    const wanted = details.taxIdType
      ? held.data.find((t) => t.type === details.taxIdType && t.value === details.taxIdValue)
      : undefined;
    if (details.taxIdType && !wanted) {
      made = await stripe.customers.createTaxId(customer, {
        type: details.taxIdType as Stripe.TaxIdCreateParams.Type,
        value: details.taxIdValue,
      });
      // As Stripe keeps it, so that its later events find it here.
      details.taxIdValue = made.value;
    }
    const address = details.country
      ? {
          line1: details.line1,
          line2: details.line2,
          city: details.city,
          postal_code: details.postalCode,
          state: details.state,
          country: details.country,
        }
      : "";
    await stripe.customers.update(customer, { name: details.name, address });
    // Last, once the rest is saved. The form holds one tax id of the kinds it offers; others the customer holds (of a
    // kind entered at Stripe that the form does not offer) stay.
    for (const old of held.data)
      if (old.id !== wanted?.id && old.type in TAX_ID_TYPES) await stripe.customers.deleteTaxId(customer, old.id);
  } catch (error) {
    if ((error as { code?: string }).code === "tax_id_invalid") throw refused("taxIdValue", "billingTaxIdInvalid");
    log.error({ err: (error as Error).message }, "billing details not saved at Stripe");
    // What this save added at Stripe is taken back, so that "nothing was changed" holds as far as it can.
    if (made) await stripe.customers.deleteTaxId(customer, made.id).catch(() => undefined);
    throw new AppError("checkout_failed", "the billing details could not be saved at Stripe", {
      key: "pricing.errors.billingUnsaved",
    });
  }

  // Stripe's events carry whole seconds: an event of this second or later (Checkout's, the portal's) still applies.
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  await options.db
    .insert(billingDetails)
    .values({ userId: options.user.id, ...details, stripeAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: billingDetails.userId, set: { ...details, stripeAt: now, updatedAt: now } });
  return details;
}

/**
 * A change made at Stripe (an address entered in Checkout, a tax id added there or in the customer portal), told by
 * `customer.updated` or `customer.tax_id.*`: written here unless a later one was already applied. A customer that is
 * not one of ours changes nothing.
 */
export async function customerChanged(db: Db, event: Stripe.Event, log: Logger): Promise<"applied" | "ignored"> {
  const object = event.data.object as Stripe.Customer | Stripe.TaxId;
  const customerId =
    object.object === "customer"
      ? object.id
      : typeof object.customer === "string"
        ? object.customer
        : object.customer?.id;
  if (!customerId) return "ignored";
  const [owner] = await db
    .select({ userId: billingCustomer.userId })
    .from(billingCustomer)
    .where(eq(billingCustomer.stripeCustomerId, customerId));
  if (!owner) {
    log.warn("a customer that is not one of this site's");
    return "ignored";
  }
  let change: Partial<BillingDetailsView>;
  if (object.object === "customer") {
    const a = object.address;
    change = {
      name: object.name ?? "",
      line1: a?.line1 ?? "",
      line2: a?.line2 ?? "",
      city: a?.city ?? "",
      postalCode: a?.postal_code ?? "",
      state: a?.state ?? "",
      country: a?.country ?? "",
    };
  } else if (!(object.type in TAX_ID_TYPES)) {
    return "ignored";
  } else if (event.type === "customer.tax_id.deleted") {
    const [mine] = await db.select().from(billingDetails).where(eq(billingDetails.userId, owner.userId));
    if (!mine || mine.taxIdType !== object.type || mine.taxIdValue !== object.value) return "ignored";
    change = { taxIdType: "", taxIdValue: "" };
  } else {
    change = { taxIdType: object.type as BillingDetailsView["taxIdType"], taxIdValue: object.value };
  }
  const at = new Date(event.created * 1000);
  const written = await db
    .insert(billingDetails)
    .values({ ...EMPTY, userId: owner.userId, ...change, stripeAt: at })
    .onConflictDoUpdate({
      target: billingDetails.userId,
      set: { ...change, stripeAt: at, updatedAt: sql`now()` },
      where: or(isNull(billingDetails.stripeAt), lte(billingDetails.stripeAt, at)),
    })
    .returning({ userId: billingDetails.userId });
  return written.length > 0 ? "applied" : "ignored";
}

export const CUSTOMER_EVENTS = new Set([
  "customer.updated",
  "customer.tax_id.created",
  "customer.tax_id.updated",
  "customer.tax_id.deleted",
]);
