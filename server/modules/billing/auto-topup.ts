import { randomUUID } from "node:crypto";
import { and, count, desc, eq, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Logger } from "pino";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import {
  autoTopUp,
  billingCustomer,
  creditBalance,
  creditOrder,
  user,
  type TopUpStop,
} from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import type { Tx } from "#server/modules/credits/ledger.ts";
import { grantPack } from "#server/modules/payments/grant-pack.ts";
import type { StripeClient } from "#server/modules/payments/stripe-client.ts";
import { CHECKOUT_LOCALES } from "#server/modules/payments/start-checkout.ts";
import { customerOf } from "#server/modules/billing/stripe-customer.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { sendInTx, uuidFrom, warmQueue } from "#server/jobs/send-in-tx.ts";
import { MAIL_QUEUE, type MailJob } from "#server/modules/mail/queue-mail.ts";
import type { SiteConfig } from "#config/site.ts";
import { DEFAULT_LOCALE, isLocale, localizePath, localizedUrl, type Locale } from "#common/locales.ts";
import { formatMoney, formatNumber } from "#common/format.ts";

/** The queue of one account's top-up, and the minute's look for accounts that fell below their threshold. */
export const TOPUP_QUEUE = "credits.topup";
export const TOPUP_SCAN_QUEUE = "credits.topup-scan";
/** At most one automatic purchase an hour per account. */
export const TOPUP_SPACING_SECONDS = 60 * 60;
/** What a Checkout session or payment made for automatic top-up says it is for. */
const PURPOSE = "auto_topup";

export interface TopUpJob {
  userId: string;
}

/** What the orders page shows of an account's automatic top-up. */
export interface AutoTopUpView {
  enabled: boolean;
  threshold: number;
  packId: string;
  monthlyMax: number;
  card: { brand: string; last4: string } | null;
  stoppedReason: TopUpStop | null;
  /** Automatic purchases this calendar month (UTC), paid or on their way. */
  usedThisMonth: number;
}

/** The form's fields: below how many credits, which pack, at most how many times a month. */
export const autoTopUpInput = z.object({
  threshold: z.coerce.number().int().min(0).max(10_000_000),
  pack: z.string().min(1).max(64),
  monthlyMax: z.coerce.number().int().min(1).max(100),
});

const startOfMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

/** Automatic purchases that count against the month's maximum: paid (even refunded later) or on their way. */
const COUNTED = ["pending", "paid", "refunded"] as const;

/** An account's automatic purchases of the month (the account a value, or a column of an outer query). */
const ofTheMonth = (account: string | typeof autoTopUp.userId, now: Date) =>
  and(
    eq(creditOrder.userId, account),
    eq(creditOrder.automatic, true),
    inArray(creditOrder.status, [...COUNTED]),
    gte(creditOrder.createdAt, startOfMonth(now)),
  );

async function usedThisMonth(db: Db | Tx, userId: string, now: Date): Promise<number> {
  const [row] = await db.select({ n: count() }).from(creditOrder).where(ofTheMonth(userId, now));
  return row?.n ?? 0;
}

export async function autoTopUpOf(db: Db, userId: string, now = new Date()): Promise<AutoTopUpView | null> {
  const [row] = await db.select().from(autoTopUp).where(eq(autoTopUp.userId, userId));
  if (!row) return null;
  return {
    enabled: row.enabled,
    threshold: row.threshold,
    packId: row.packId,
    monthlyMax: row.monthlyMax,
    card: row.cardLast4 ? { brand: row.cardBrand ?? "card", last4: row.cardLast4 } : null,
    stoppedReason: row.stoppedReason,
    usedThisMonth: await usedThisMonth(db, userId, now),
  };
}

export interface SaveAutoTopUpOptions {
  db: Db;
  stripe: StripeClient | null;
  site: SiteConfig;
  logger: Logger;
  user: { id: string; email: string; name?: string | null };
  input: unknown;
  locale: Locale;
  /** Save a new card even when one is saved (the page's "change card"). */
  newCard?: boolean;
}

/**
 * Saves the account's choice. With a card saved for it, automatic top-up is on at once; without one (or when asked
 * for a new one), it answers Stripe Checkout's page in setup mode, where the card is saved for later payments made
 * without the account there; the card's arrival (a signed webhook) turns it on.
 */
export async function saveAutoTopUp(options: SaveAutoTopUpOptions): Promise<{ url?: string }> {
  const { db, stripe, site } = options;
  if (!stripe) throw new AppError("purchasing_disabled");
  const parsed = autoTopUpInput.safeParse(options.input);
  if (!parsed.success) throw new AppError("invalid_auto_topup", parsed.error.issues[0]?.message);
  const pack = site.packs.find((p) => p.id === parsed.data.pack);
  if (!pack) throw new AppError("unknown_pack", `no pack ${JSON.stringify(parsed.data.pack)}`);
  const values = { threshold: parsed.data.threshold, packId: pack.id, monthlyMax: parsed.data.monthlyMax };
  const [row] = await db
    .insert(autoTopUp)
    .values({ userId: options.user.id, ...values })
    .onConflictDoUpdate({
      target: autoTopUp.userId,
      set: {
        ...values,
        // Saving again with a card turns it back on, whatever had stopped it.
        enabled: sql`${autoTopUp.paymentMethodId} is not null`,
        stoppedReason: sql`case when ${autoTopUp.paymentMethodId} is not null then null else ${autoTopUp.stoppedReason} end`,
        updatedAt: new Date(),
      },
    })
    .returning();
  if (row?.paymentMethodId && !options.newCard) return {};

  const customer = await customerOf(db, stripe, options.user);
  const orders = `${site.url}${localizePath("/user/orders", options.locale)}`;
  try {
    const session = await stripe.checkout.sessions.create({
      mode: "setup",
      customer,
      currency: pack.currency,
      metadata: { purpose: PURPOSE, user_id: options.user.id },
      setup_intent_data: { metadata: { purpose: PURPOSE, user_id: options.user.id } },
      locale: CHECKOUT_LOCALES[options.locale] as "en",
      success_url: `${orders}?topup=saved`,
      cancel_url: `${orders}?topup=canceled`,
    });
    if (!session.url) throw new Error("the checkout session has no URL");
    return { url: session.url };
  } catch (error) {
    options.logger.error({ err: (error as Error).message }, "card setup checkout not opened");
    throw new AppError("checkout_failed");
  }
}

export async function turnOffAutoTopUp(db: Db, userId: string): Promise<void> {
  await db.update(autoTopUp).set({ enabled: false, updatedAt: new Date() }).where(eq(autoTopUp.userId, userId));
}

/** Whether a completed Checkout session is one that saved a card for automatic top-up. */
export const savesCard = (session: Stripe.Checkout.Session) =>
  session.mode === "setup" && session.metadata?.purpose === PURPOSE;

/**
 * A card saved in Checkout's setup mode: it is the account's card for automatic top-up from now on, which is turned
 * on. The session must be for the account's own customer at Stripe. Applying it twice changes nothing.
 */
export async function cardSaved(
  db: Db,
  stripe: StripeClient,
  session: Stripe.Checkout.Session,
  log: Logger,
): Promise<"applied" | "ignored"> {
  const userId = session.metadata?.user_id;
  const customer = typeof session.customer === "string" ? session.customer : session.customer?.id;
  const setupId = typeof session.setup_intent === "string" ? session.setup_intent : session.setup_intent?.id;
  if (!userId || !customer || !setupId) return "ignored";
  const [known] = await db
    .select()
    .from(billingCustomer)
    .where(and(eq(billingCustomer.userId, userId), eq(billingCustomer.stripeCustomerId, customer)));
  if (!known) {
    log.warn({ userId, customer }, "a saved card's session is not for the account's customer; ignored");
    return "ignored";
  }
  const setup = await stripe.setupIntents.retrieve(setupId, { expand: ["payment_method"] });
  const method = setup.payment_method;
  if (setup.status !== "succeeded" || !method || typeof method === "string") return "ignored";
  const updated = await db
    .update(autoTopUp)
    .set({
      paymentMethodId: method.id,
      cardBrand: method.card?.brand ?? method.type,
      cardLast4: method.card?.last4 ?? null,
      enabled: true,
      stoppedReason: null,
      updatedAt: new Date(),
    })
    .where(eq(autoTopUp.userId, userId))
    .returning({ userId: autoTopUp.userId });
  return updated.length > 0 ? "applied" : "ignored";
}

/** Accounts whose automatic top-up is due: on, below their threshold, and not bought within the hour. */
function dueWhere(now: Date) {
  return and(
    eq(autoTopUp.enabled, true),
    sql`${creditBalance.balance} - ${creditBalance.held} < ${autoTopUp.threshold}`,
    or(
      isNull(autoTopUp.lastFiredAt),
      lt(autoTopUp.lastFiredAt, new Date(now.getTime() - TOPUP_SPACING_SECONDS * 1000)),
    ),
    // Not at the month's maximum: an account that reached it is not queued again every minute.
    sql`(select count(*) from ${creditOrder} where ${ofTheMonth(autoTopUp.userId, now)}) < ${autoTopUp.monthlyMax}`,
  );
}

/** The job that buys for one account; one waits in the queue per account, however many ask. */
export async function sendTopUp(boss: PgBoss, userId: string): Promise<void> {
  await boss.send(TOPUP_QUEUE, { userId } satisfies TopUpJob, {
    singletonKey: userId,
    retryLimit: 5,
    retryDelay: 30,
    retryBackoff: true,
  });
}

/**
 * After credits were taken or held: queues the account's top-up when it is due. One indexed read, and nothing for an
 * account without automatic top-up.
 */
export async function requestTopUp({ db, boss, userId }: { db: Db; boss: PgBoss; userId: string }): Promise<boolean> {
  const [due] = await db
    .select({ userId: autoTopUp.userId })
    .from(autoTopUp)
    .innerJoin(creditBalance, eq(creditBalance.userId, autoTopUp.userId))
    .where(and(eq(autoTopUp.userId, userId), dueWhere(new Date())));
  if (!due) return false;
  await sendTopUp(boss, userId);
  return true;
}

/** The minute's look: queues the top-up of every account that is due (spent by the chat, or a missed request). */
export async function scanTopUps({ db, boss, now = new Date() }: { db: Db; boss: PgBoss; now?: Date }) {
  const due = await db
    .select({ userId: autoTopUp.userId })
    .from(autoTopUp)
    .innerJoin(creditBalance, eq(creditBalance.userId, autoTopUp.userId))
    .where(dueWhere(now))
    .limit(1000);
  for (const { userId } of due) await sendTopUp(boss, userId);
  return due.length;
}

/** `settled`: another run (or the webhook) had already settled the same order. */
export type TopUpOutcome =
  "charged" | "settled" | "pending" | "failed" | "not_due" | "too_soon" | "monthly_max" | "off";

export interface RunTopUpOptions {
  db: Db;
  stripe: StripeClient | null;
  boss: PgBoss;
  site: SiteConfig;
  logger: Logger;
  userId: string;
  /** Days a pack's credits last (the console's billing settings); 0: they never expire. */
  packExpiryDays?: number;
  now?: Date;
}

type Order = typeof creditOrder.$inferSelect;

/**
 * Buys the account's pack with its saved card if it is still due. The decision and the order are made under a lock on
 * the account's top-up row, so however many jobs or requests ask at once, one order is made an hour. The charge is
 * made after that commits, with an idempotency key from the order: a job that dies between the two finds its order
 * pending on the next try and sends the very same charge, which Stripe answers once.
 */
export async function runTopUp(options: RunTopUpOptions): Promise<TopUpOutcome> {
  const { db, site, userId } = options;
  const now = options.now ?? new Date();
  const log = options.logger.child({ userId, job: TOPUP_QUEUE });
  const stripe = options.stripe;
  if (!stripe) return "off";
  await warmQueue(options.boss, MAIL_QUEUE);
  const decided = await db.transaction(async (tx): Promise<{ order: Order; paymentMethod: string } | TopUpOutcome> => {
    const [row] = await tx.select().from(autoTopUp).where(eq(autoTopUp.userId, userId)).for("update");
    if (!row?.enabled || !row.paymentMethodId) return "off";
    const [pending] = await tx
      .select()
      .from(creditOrder)
      .where(
        and(
          eq(creditOrder.userId, userId),
          eq(creditOrder.automatic, true),
          eq(creditOrder.status, "pending"),
          gte(creditOrder.createdAt, new Date(now.getTime() - TOPUP_SPACING_SECONDS * 1000)),
        ),
      )
      .orderBy(desc(creditOrder.createdAt))
      .limit(1);
    if (pending) return { order: pending, paymentMethod: row.paymentMethodId };
    const [balance] = await tx.select().from(creditBalance).where(eq(creditBalance.userId, userId));
    if ((balance?.balance ?? 0) - (balance?.held ?? 0) >= row.threshold) return "not_due";
    if (row.lastFiredAt && now.getTime() - row.lastFiredAt.getTime() < TOPUP_SPACING_SECONDS * 1000) return "too_soon";
    if ((await usedThisMonth(tx, userId, now)) >= row.monthlyMax) return "monthly_max";
    const pack = site.packs.find((p) => p.id === row.packId);
    if (!pack) {
      await tx
        .update(autoTopUp)
        .set({ enabled: false, stoppedReason: "failed", updatedAt: now })
        .where(eq(autoTopUp.userId, userId));
      return "off";
    }
    const [order] = await tx
      .insert(creditOrder)
      .values({
        userId,
        kind: "pack",
        packId: pack.id,
        credits: pack.credits,
        amount: pack.amount,
        currency: pack.currency,
        automatic: true,
        requestKey: `auto-topup-${randomUUID()}`,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.update(autoTopUp).set({ lastFiredAt: now, updatedAt: now }).where(eq(autoTopUp.userId, userId));
    return { order: order!, paymentMethod: row.paymentMethodId };
  });
  if (typeof decided === "string") return decided;

  const { order, paymentMethod } = decided;
  const [customer] = await db.select().from(billingCustomer).where(eq(billingCustomer.userId, userId));
  if (!customer) throw new Error(`no Stripe customer for ${userId}`);
  const mail = { boss: options.boss, siteUrl: site.url };
  let intent: Stripe.PaymentIntent;
  try {
    intent = await stripe.paymentIntents.create(
      {
        amount: order.amount,
        currency: order.currency,
        customer: customer.stripeCustomerId,
        payment_method: paymentMethod,
        off_session: true,
        confirm: true,
        description: `${site.name} · ${order.credits} credits`,
        metadata: { purpose: PURPOSE, order_id: order.id, user_id: userId, pack_id: order.packId ?? "" },
        expand: ["latest_charge"],
      },
      { idempotencyKey: `atelier-topup-${order.id}` },
    );
  } catch (error) {
    const failure = error as { type?: string; code?: string; raw?: { payment_intent?: { id?: string } } };
    if (failure.type !== "StripeCardError") throw error; // Stripe unreachable: the job tries again, same key.
    const reason: TopUpStop = failure.code === "authentication_required" ? "authentication_required" : "declined";
    log.warn({ orderId: order.id, code: failure.code }, "automatic top-up declined; turned off");
    await db.transaction((tx) =>
      topUpFailed(tx, order.id, { reason, paymentIntentId: failure.raw?.payment_intent?.id ?? null, mail }),
    );
    return "failed";
  }
  if (intent.status !== "succeeded") {
    // Still processing: the payment's webhook settles the order.
    await db
      .update(creditOrder)
      .set({ paymentIntentId: intent.id, updatedAt: new Date() })
      .where(and(eq(creditOrder.id, order.id), isNull(creditOrder.paymentIntentId)));
    return "pending";
  }
  const granted = await db.transaction((tx) =>
    topUpPaid(tx, order.id, intent, { expiryDays: options.packExpiryDays ?? 0, mail, log }),
  );
  if (!granted) return "settled";
  log.info({ orderId: order.id, credits: order.credits }, "automatic top-up charged");
  return "charged";
}

interface TopUpMail {
  boss: PgBoss;
  siteUrl: string;
}

/** Whether a payment intent is an automatic top-up's, and its order. */
export function topUpOrderOf(intent: Stripe.PaymentIntent): string | null {
  const id = intent.metadata?.purpose === PURPOSE ? intent.metadata.order_id : undefined;
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
}

/**
 * A top-up's payment succeeded (the job's answer or the webhook, whichever comes first): the order is paid and its
 * credits granted once, and the account gets its receipt once. Says whether this call granted them.
 */
export async function topUpPaid(
  tx: Tx,
  orderId: string,
  intent: Stripe.PaymentIntent,
  {
    expiryDays,
    mail,
    log,
    receiptUrl: known = null,
  }: { expiryDays: number; mail?: TopUpMail; log: Logger; receiptUrl?: string | null },
): Promise<boolean> {
  const [order] = await tx.select().from(creditOrder).where(eq(creditOrder.id, orderId)).for("update");
  if (!order?.automatic || order.status !== "pending") return false;
  if (intent.amount_received !== order.amount || intent.currency.toLowerCase() !== order.currency) {
    log.error({ orderId, charged: intent.amount_received }, "paid amount differs from the order; not granting");
    await tx.update(creditOrder).set({ status: "failed", updatedAt: new Date() }).where(eq(creditOrder.id, orderId));
    return false;
  }
  const charge = intent.latest_charge;
  const receiptUrl = typeof charge === "object" && charge ? (charge.receipt_url ?? known) : known;
  await grantPack(tx, order, { paymentIntentId: intent.id, receiptUrl, expiryDays });
  if (mail && order.userId) await tell(tx, mail, order, "billing.topUpReceipt");
  return true;
}

/**
 * A top-up's payment failed: the order failed, automatic top-up is off with the reason, and the account is told once.
 */
export async function topUpFailed(
  tx: Tx,
  orderId: string,
  { reason, paymentIntentId, mail }: { reason: TopUpStop; paymentIntentId: string | null; mail?: TopUpMail },
): Promise<void> {
  const [order] = await tx.select().from(creditOrder).where(eq(creditOrder.id, orderId)).for("update");
  if (!order?.automatic || order.status !== "pending") return;
  await tx
    .update(creditOrder)
    .set({ status: "failed", paymentIntentId: paymentIntentId ?? order.paymentIntentId, updatedAt: new Date() })
    .where(eq(creditOrder.id, orderId));
  if (!order.userId) return;
  await tx
    .update(autoTopUp)
    .set({ enabled: false, stoppedReason: reason, updatedAt: new Date() })
    .where(eq(autoTopUp.userId, order.userId));
  if (mail) await tell(tx, mail, order, "billing.topUpFailed");
}

/** The account's e-mail about a top-up, queued with its order's change under an id made from the order: once. */
async function tell(tx: Tx, mail: TopUpMail, order: Order, kind: "billing.topUpReceipt" | "billing.topUpFailed") {
  const [account] = await tx
    .select({ email: user.email, name: user.name, locale: user.locale })
    .from(user)
    .where(eq(user.id, order.userId!));
  if (!account) return;
  const locale: Locale = isLocale(account.locale) ? account.locale : DEFAULT_LOCALE;
  const job: MailJob = {
    to: account.email,
    kind,
    locale,
    name: account.name,
    url: localizedUrl(
      mail.siteUrl,
      kind === "billing.topUpReceipt" ? `/user/orders/${order.id}` : "/user/orders",
      locale,
    ),
    values: {
      credits: formatNumber(locale, order.credits),
      amount: formatMoney(locale, order.amount, order.currency),
    },
  };
  await sendInTx(mail.boss, tx, MAIL_QUEUE, job, {
    id: uuidFrom(`mail:${kind}:${order.id}`),
    retryLimit: 8,
    retryDelay: 15,
    retryBackoff: true,
  });
}
