import { eq, sql } from "drizzle-orm";
import { creditOrder } from "#server/db/schema/index.ts";
import { applyMovement, expiryAfter, type Tx } from "#server/modules/credits/ledger.ts";

export interface PackPayment {
  /** The Checkout session that was paid (a pack bought there), kept on the order. */
  sessionId?: string;
  paymentIntentId: string | null;
  receiptUrl: string | null;
  /** Days the pack's credits last; 0: they never expire. */
  expiryDays: number;
}

/**
 * Marks a pack's order paid and grants its credits, in the caller's transaction with the order locked (by Checkout's
 * events or an automatic top-up's payment). The ledger key makes a second grant of one order impossible.
 */
export async function grantPack(
  tx: Tx,
  order: { id: string; userId: string | null; credits: number },
  payment: PackPayment,
): Promise<void> {
  await tx
    .update(creditOrder)
    .set({
      status: "paid",
      paidAt: new Date(),
      updatedAt: new Date(),
      ...(payment.sessionId ? { providerSessionId: payment.sessionId } : {}),
      paymentIntentId: payment.paymentIntentId,
      receiptUrl: sql`coalesce(${payment.receiptUrl}, ${creditOrder.receiptUrl})`,
    })
    .where(eq(creditOrder.id, order.id));
  if (!order.userId) return;
  await applyMovement(tx, {
    userId: order.userId,
    kind: "purchase",
    amount: order.credits,
    heldChange: 0,
    reference: `order:${order.id}`,
    idempotencyKey: `purchase:order:${order.id}`,
    lot: { expiresAt: expiryAfter(payment.expiryDays) },
  });
}
