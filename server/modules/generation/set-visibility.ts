import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import type { Visibility } from "#common/generation.ts";

/**
 * Makes a generation of the user public (anyone with the link sees it and its media) or private again; one an
 * administrator hid cannot be made public (`moderated`).
 */
export async function setVisibility(options: {
  db: Db;
  userId: string;
  id: string;
  visibility: Visibility;
}): Promise<void> {
  if (options.visibility !== "public" && options.visibility !== "private")
    throw new AppError("invalid_options", "visibility: public or private", {
      key: "generation.errors.invalidField",
      values: { field: "visibility" },
    });
  if (!isUuid(options.id)) throw new AppError("not_found", `no generation ${options.id}`);
  const rows = await options.db
    .update(generation)
    .set({ visibility: options.visibility, updatedAt: sql`now()` })
    .where(
      and(
        eq(generation.id, options.id),
        eq(generation.userId, options.userId),
        // One an administrator hid stays private.
        options.visibility === "public" ? isNull(generation.hiddenAt) : undefined,
      ),
    )
    .returning({ id: generation.id });
  if (rows.length === 0) {
    const [hidden] = await options.db
      .select({ id: generation.id })
      .from(generation)
      .where(and(eq(generation.id, options.id), eq(generation.userId, options.userId), isNotNull(generation.hiddenAt)));
    if (hidden) throw new AppError("moderated", "an administrator hid this generation");
    throw new AppError("not_found", `no generation ${options.id}`);
  }
}
