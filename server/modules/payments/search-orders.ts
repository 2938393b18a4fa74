import { and, count, desc, eq, ilike, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { containing, dayParam, withinDays } from "#server/db/search.ts";
import { creditOrder, paymentEvent, user } from "#server/db/schema/index.ts";
import { ORDER_STATUSES } from "#common/orders.ts";
import { isUuid } from "#common/ids.ts";

/** The console's order list query; a value it does not know is no filter. */
export const orderSearchSchema = z.object({
  /** An order's id, or part of its buyer's e-mail address. */
  q: z.string().trim().max(200).optional().catch(undefined),
  status: z.enum(ORDER_STATUSES).optional().catch(undefined),
  provider: z.string().trim().max(40).optional().catch(undefined),
  from: dayParam,
  to: dayParam,
});
export type OrderSearch = z.infer<typeof orderSearchSchema>;

const columns = {
  id: creditOrder.id,
  userId: creditOrder.userId,
  email: user.email,
  packId: creditOrder.packId,
  credits: creditOrder.credits,
  amount: creditOrder.amount,
  currency: creditOrder.currency,
  status: creditOrder.status,
  provider: creditOrder.provider,
  refundedAmount: creditOrder.refundedAmount,
  creditsReversed: creditOrder.creditsReversed,
  shortfall: creditOrder.shortfall,
  disputeStatus: creditOrder.disputeStatus,
  paymentIntentId: creditOrder.paymentIntentId,
  providerSessionId: creditOrder.providerSessionId,
  receiptUrl: creditOrder.receiptUrl,
  createdAt: creditOrder.createdAt,
  paidAt: creditOrder.paidAt,
};

export type AdminOrderRow = {
  [K in keyof typeof columns]: K extends "email"
    ? string | null
    : (typeof creditOrder.$inferSelect)[K & keyof typeof creditOrder.$inferSelect];
};

/** One page of every account's orders, the newest first, by status, provider, days (UTC) and buyer or id. */
export async function searchOrders({
  db,
  search,
  page,
  pageSize,
}: {
  db: Db;
  search: OrderSearch;
  page: number;
  pageSize: number;
}): Promise<{ rows: AdminOrderRow[]; total: number }> {
  const where: SQL[] = [];
  if (search.q) where.push(isUuid(search.q) ? eq(creditOrder.id, search.q) : ilike(user.email, containing(search.q)));
  if (search.status) where.push(eq(creditOrder.status, search.status));
  if (search.provider) where.push(eq(creditOrder.provider, search.provider));
  where.push(...withinDays(creditOrder.createdAt, search));
  const [rows, [total]] = await Promise.all([
    db
      .select(columns)
      .from(creditOrder)
      .leftJoin(user, eq(user.id, creditOrder.userId))
      .where(and(...where))
      .orderBy(desc(creditOrder.createdAt), desc(creditOrder.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ n: count() })
      .from(creditOrder)
      .leftJoin(user, eq(user.id, creditOrder.userId))
      .where(and(...where)),
  ]);
  return { rows: rows as AdminOrderRow[], total: total?.n ?? 0 };
}

/** One order as the console shows it, with the payment provider's events applied to it; null when unknown. */
export async function getOrderRecord({ db, orderId }: { db: Db; orderId: string }) {
  if (!isUuid(orderId)) return null;
  const [row] = await db
    .select(columns)
    .from(creditOrder)
    .leftJoin(user, eq(user.id, creditOrder.userId))
    .where(eq(creditOrder.id, orderId));
  if (!row) return null;
  const events = await db
    .select({ id: paymentEvent.id, type: paymentEvent.type, createdAt: paymentEvent.createdAt })
    .from(paymentEvent)
    .where(eq(paymentEvent.orderId, orderId))
    .orderBy(desc(paymentEvent.createdAt));
  return { order: row as AdminOrderRow, events };
}
