/** The colour of an order's status tag in the console. */
export const ORDER_STATUS_COLORS: Record<string, string | undefined> = {
  pending: "processing",
  paid: "success",
  canceled: undefined,
  refunded: "warning",
  failed: "error",
};

/** The colour of a generation's status tag in the console. */
export const GENERATION_STATUS_COLORS: Record<string, string | undefined> = {
  queued: "default",
  processing: "processing",
  succeeded: "success",
  failed: "error",
  canceled: undefined,
};
