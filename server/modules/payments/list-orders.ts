import { count, desc, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditOrder, plan } from "#server/db/schema/index.ts";

export const orderColumns = {
  id: creditOrder.id,
  kind: creditOrder.kind,
  packId: creditOrder.packId,
  planId: creditOrder.planId,
  invoiceUrl: creditOrder.invoiceUrl,
  invoicePdf: creditOrder.invoicePdf,
  billingReason: creditOrder.billingReason,
  periodStart: creditOrder.periodStart,
  periodEnd: creditOrder.periodEnd,
  credits: creditOrder.credits,
  amount: creditOrder.amount,
  currency: creditOrder.currency,
  status: creditOrder.status,
  receiptUrl: creditOrder.receiptUrl,
  refundedAmount: creditOrder.refundedAmount,
  creditsReversed: creditOrder.creditsReversed,
  shortfall: creditOrder.shortfall,
  disputeStatus: creditOrder.disputeStatus,
  createdAt: creditOrder.createdAt,
  paidAt: creditOrder.paidAt,
};

export type OrderView = { [K in keyof typeof orderColumns]: (typeof creditOrder.$inferSelect)[K] } & {
  /** The plan's name, for a subscription's invoice. */
  planName?: string | null;
};

/** One page of a user's orders, newest first, and how many there are in all. */
export async function listOrders({
  db,
  userId,
  page,
  pageSize,
}: {
  db: Db;
  userId: string;
  page: number;
  pageSize: number;
}): Promise<{ rows: OrderView[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    db
      .select({ ...orderColumns, planName: plan.name })
      .from(creditOrder)
      .leftJoin(plan, eq(plan.id, creditOrder.planId))
      .where(eq(creditOrder.userId, userId))
      .orderBy(desc(creditOrder.createdAt), desc(creditOrder.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(creditOrder).where(eq(creditOrder.userId, userId)),
  ]);
  return { rows, total: total?.n ?? 0 };
}
