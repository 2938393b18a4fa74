import { and, eq, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import type { Visibility } from "#common/generation.ts";
import type { Locale } from "#common/locales.ts";
import { requirePrivateAllowed } from "#server/modules/billing/entitlements.ts";

/**
 * Makes a generation of the user public (anyone with the link sees it and its media) or private again; one an
 * administrator hid cannot be made public (`moderated`), nor one a check flagged until it is cleared (`under_review`).
 * Made private only when the account's plan keeps results private, if the operator made the others public.
 */
export async function setVisibility(options: {
  db: Db;
  userId: string;
  id: string;
  visibility: Visibility;
  /** The console's settings (whether results of plans without private results are public). */
  settings?: { billing: { publicResults: boolean } };
  locale?: Locale;
  /** The account's role when the caller knows it (an administrator's results may always be private). */
  role?: string | null;
}): Promise<void> {
  if (options.visibility !== "public" && options.visibility !== "private")
    throw new AppError("invalid_options", "visibility: public or private", {
      key: "generation.errors.invalidField",
      values: { field: "visibility" },
    });
  if (!isUuid(options.id)) throw new AppError("not_found", `no generation ${options.id}`);
  if (options.visibility === "private")
    await requirePrivateAllowed(
      options.db,
      { id: options.userId, role: options.role },
      options.settings,
      options.locale,
    );
  const rows = await options.db
    .update(generation)
    .set({ visibility: options.visibility, updatedAt: sql`now()` })
    .where(
      and(
        eq(generation.id, options.id),
        eq(generation.userId, options.userId),
        // One an administrator hid stays private, and one a check flagged until an administrator clears it.
        options.visibility === "public"
          ? and(isNull(generation.hiddenAt), or(isNull(generation.review), ne(generation.review, "flagged")))
          : undefined,
      ),
    )
    .returning({ id: generation.id });
  if (rows.length === 0) {
    const [held] = await options.db
      .select({ hiddenAt: generation.hiddenAt, review: generation.review })
      .from(generation)
      .where(and(eq(generation.id, options.id), eq(generation.userId, options.userId)));
    if (held?.hiddenAt) throw new AppError("moderated", "an administrator hid this generation");
    if (held?.review === "flagged") throw new AppError("under_review", "a check flagged this generation");
    throw new AppError("not_found", `no generation ${options.id}`);
  }
}
