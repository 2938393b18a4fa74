import { and, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditOrder, plan } from "#server/db/schema/index.ts";
import { isUuid } from "#common/ids.ts";
import type { Locale } from "#common/locales.ts";
import { orderColumns, type OrderView } from "./list-orders.ts";

/** One of the user's orders (a subscription's invoice with its plan's name); another user's order is not found. */
export async function getOrder({
  db,
  userId,
  orderId,
}: {
  db: Db;
  userId: string;
  orderId: string;
}): Promise<(OrderView & { planNames?: Partial<Record<Locale, string>> | null }) | undefined> {
  if (!isUuid(orderId)) return undefined;
  const [row] = await db
    .select({ ...orderColumns, planName: plan.name, planNames: plan.names })
    .from(creditOrder)
    .leftJoin(plan, eq(plan.id, creditOrder.planId))
    .where(and(eq(creditOrder.id, orderId), eq(creditOrder.userId, userId)));
  return row;
}
