/** An order's states, shared by the database's check and the console's filter. */
export const ORDER_STATUSES = ["pending", "paid", "canceled", "refunded", "failed"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
