import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditOrder, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { isUuid } from "#common/ids.ts";
import { decimalAmount } from "#common/format.ts";
import type { StripeClient } from "./stripe-client.ts";

/**
 * Refunds a paid order in full through the payment provider, on an administrator's request. Nothing is changed
 * here: the provider's `charge.refunded` event reverses the credits and marks the order, exactly once, as for a
 * refund made in its dashboard. The request carries a key of the order's own, so asking twice refunds once.
 */
export async function refundOrder({
  db,
  stripe,
  orderId,
  reason,
  actor,
}: {
  db: Db;
  stripe: StripeClient | null;
  orderId: string;
  reason: string;
  actor: AdminActor;
}): Promise<{ amount: number; currency: string }> {
  if (!stripe) throw new AppError("purchasing_disabled");
  if (!isUuid(orderId)) throw new AppError("not_found");
  const [order] = await db
    .select({
      id: creditOrder.id,
      status: creditOrder.status,
      paymentIntentId: creditOrder.paymentIntentId,
      amount: creditOrder.amount,
      refundedAmount: creditOrder.refundedAmount,
      currency: creditOrder.currency,
      email: user.email,
    })
    .from(creditOrder)
    .leftJoin(user, eq(user.id, creditOrder.userId))
    .where(eq(creditOrder.id, orderId));
  if (!order) throw new AppError("not_found");
  if (order.status !== "paid" || !order.paymentIntentId || order.refundedAmount >= order.amount)
    throw new AppError("conflict", "only a paid order that is not refunded yet can be refunded");
  const money = (minor: number) => `${decimalAmount(minor, order.currency)} ${order.currency.toUpperCase()}`;
  const refund = await stripe.refunds.create(
    { payment_intent: order.paymentIntentId, reason: "requested_by_customer", metadata: { order_id: order.id } },
    { idempotencyKey: `atelier-refund-${order.id}` },
  );
  await recordAdminAction(db, actor, {
    action: "orders.refund",
    targetType: "order",
    targetId: order.id,
    targetLabel: order.email ?? order.id,
    before: { status: order.status, refunded: money(order.refundedAmount) },
    after: { refunded: money(order.refundedAmount + refund.amount), refund: refund.id },
    reason,
  });
  return { amount: refund.amount, currency: order.currency };
}
