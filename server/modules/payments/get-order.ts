import { and, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditOrder } from "#server/db/schema/index.ts";
import { isUuid } from "#common/ids.ts";
import { orderColumns } from "./list-orders.ts";

/** One of the user's orders; another user's order is not found. */
export async function getOrder({ db, userId, orderId }: { db: Db; userId: string; orderId: string }) {
  if (!isUuid(orderId)) return undefined;
  const [row] = await db
    .select(orderColumns)
    .from(creditOrder)
    .where(and(eq(creditOrder.id, orderId), eq(creditOrder.userId, userId)));
  return row;
}
