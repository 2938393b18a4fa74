import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import type { Visibility } from "#common/generation.ts";

/** Makes a generation of the user public (anyone with the link sees it and its media) or private again. */
export async function setVisibility(options: {
  db: Db;
  userId: string;
  id: string;
  visibility: Visibility;
}): Promise<void> {
  if (options.visibility !== "public" && options.visibility !== "private")
    throw new AppError("invalid_options", "visibility");
  if (!isUuid(options.id)) throw new AppError("not_found", `no generation ${options.id}`);
  const rows = await options.db
    .update(generation)
    .set({ visibility: options.visibility, updatedAt: sql`now()` })
    .where(and(eq(generation.id, options.id), eq(generation.userId, options.userId)))
    .returning({ id: generation.id });
  if (rows.length === 0) throw new AppError("not_found", `no generation ${options.id}`);
}
