/** The colour of an order's status tag in the console. */
export const ORDER_STATUS_COLORS: Record<string, string | undefined> = {
  pending: "processing",
  paid: "success",
  canceled: undefined,
  refunded: "warning",
  failed: "error",
};
