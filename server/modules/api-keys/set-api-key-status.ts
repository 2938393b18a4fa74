import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { apiKey } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import { apiKeyStatusSchema } from "./schema.ts";
import { apiKeyColumns, presentApiKey, type ApiKeyView } from "./list-api-keys.ts";

/** Activates or deactivates one of the user's keys; the next request with it sees the change. */
export async function setApiKeyStatus(options: {
  db: Db;
  userId: string;
  id: string;
  input: unknown;
}): Promise<ApiKeyView> {
  const parsed = apiKeyStatusSchema.safeParse(options.input);
  if (!parsed.success) {
    throw new AppError("invalid_options", "status: active or inactive", {
      key: "generation.errors.invalidField",
      values: { field: "status" },
    });
  }
  if (!isUuid(options.id)) throw new AppError("not_found", "no such key");
  const [row] = await options.db
    .update(apiKey)
    .set({ status: parsed.data.status, updatedAt: sql`now()` })
    .where(and(eq(apiKey.id, options.id), eq(apiKey.userId, options.userId)))
    .returning(apiKeyColumns);
  if (!row) throw new AppError("not_found", "no such key");
  return presentApiKey(row);
}
