import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { lockGeneration } from "#server/modules/generation/moderate-generation.ts";
import { shownPublicly } from "./shown-publicly.ts";

/**
 * Features a result on the home page and at the top of explore, or stops featuring it, with its audit log entry.
 * Only a result shown publicly can be featured (`conflict` otherwise); featuring one already featured, or
 * unfeaturing one that is not, changes nothing and logs nothing.
 */
export async function setFeatured(options: {
  db: Db;
  id: string;
  featured: boolean;
  actor: AdminActor;
}): Promise<{ changed: boolean }> {
  return options.db.transaction(async (tx) => {
    const row = await lockGeneration(tx, options.id);
    const [current] = await tx
      .select({ featuredAt: generation.featuredAt, shown: sql<boolean>`${shownPublicly}` })
      .from(generation)
      .where(eq(generation.id, row.id));
    if (options.featured && !current?.shown) throw new AppError("conflict", "only a public result can be featured");
    if ((current?.featuredAt !== null) === options.featured) return { changed: false };
    await tx
      .update(generation)
      .set({ featuredAt: options.featured ? sql`now()` : null })
      .where(eq(generation.id, row.id));
    await recordAdminAction(tx, options.actor, {
      action: options.featured ? "generations.feature" : "generations.unfeature",
      targetType: "generation",
      targetId: row.id,
      targetLabel: row.email,
      before: { featured: !options.featured },
      after: { featured: options.featured },
    });
    return { changed: true };
  });
}
