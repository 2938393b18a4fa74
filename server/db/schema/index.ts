export * from "./auth.ts";
export * from "./settings.ts";
export * from "./rate-limit.ts";
export * from "./credits.ts";
export * from "./redemption.ts";
export * from "./orders.ts";
export * from "./generations.ts";
export * from "./api.ts";
