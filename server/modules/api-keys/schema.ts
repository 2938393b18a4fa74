import { z } from "zod";
import { MAX_API_KEY_NAME } from "./keys.ts";

export const createApiKeySchema = z.strictObject({
  name: z
    .string()
    .trim()
    .max(MAX_API_KEY_NAME)
    .optional()
    .transform((v) => (v ? v : null)),
});

export const apiKeyStatusSchema = z.strictObject({ status: z.enum(["active", "inactive"]) });
