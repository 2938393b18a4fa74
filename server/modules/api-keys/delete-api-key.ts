import { and, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { apiKey } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";

/** Deletes one of the user's keys for good: requests with it are refused from now on. */
export async function deleteApiKey(options: { db: Db; userId: string; id: string }): Promise<void> {
  if (!isUuid(options.id)) throw new AppError("not_found", "no such key");
  const rows = await options.db
    .delete(apiKey)
    .where(and(eq(apiKey.id, options.id), eq(apiKey.userId, options.userId)))
    .returning({ id: apiKey.id });
  if (rows.length === 0) throw new AppError("not_found", "no such key");
}
