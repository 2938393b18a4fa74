import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { apiKey } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import { apiKeyStatusSchema } from "./schema.ts";
import { apiKeyColumns, presentApiKey, type ApiKeyView } from "./list-api-keys.ts";

/** Activates or deactivates one of the user's keys; the next request with it sees the change. */
export async function setApiKeyStatus(o: { db: Db; userId: string; id: string; input: unknown }): Promise<ApiKeyView> {
  const parsed = apiKeyStatusSchema.safeParse(o.input);
  if (!parsed.success) throw new AppError("invalid_options", "status: active or inactive");
  if (!isUuid(o.id)) throw new AppError("not_found", "no such key");
  const [row] = await o.db
    .update(apiKey)
    .set({ status: parsed.data.status, updatedAt: sql`now()` })
    .where(and(eq(apiKey.id, o.id), eq(apiKey.userId, o.userId)))
    .returning(apiKeyColumns);
  if (!row) throw new AppError("not_found", "no such key");
  return presentApiKey(row);
}
