import { and, asc, countDistinct, eq, isNotNull, max } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation, user } from "#server/db/schema/index.ts";
import { shownPublicly } from "./shown-publicly.ts";
import { RESULTS_PER_SITEMAP } from "./list-sitemap-results.ts";

/** Creators with a page worth listing: a handle (where) and at least one work shown publicly (joined). */
const hasHandle = isNotNull(user.handle);
const publicWorks = and(eq(generation.userId, user.id), shownPublicly);

/**
 * One sitemap file's creator pages (`file` from 1, as many a file as results), the earliest accounts first; each
 * page changed when its newest public work last did.
 */
export async function listSitemapCreators(options: {
  db: Db;
  file: number;
  perFile?: number;
}): Promise<{ handle: string; updatedAt: Date }[]> {
  const perFile = options.perFile ?? RESULTS_PER_SITEMAP;
  const rows = await options.db
    .select({ handle: user.handle, updatedAt: max(generation.updatedAt) })
    .from(user)
    .innerJoin(generation, publicWorks)
    .where(hasHandle)
    .groupBy(user.id)
    .orderBy(asc(user.createdAt), asc(user.id))
    .limit(perFile)
    .offset((options.file - 1) * perFile);
  return rows.flatMap((r) => (r.handle && r.updatedAt ? [{ handle: r.handle, updatedAt: r.updatedAt }] : []));
}

/** How many sitemap files the creator pages take (none when no creator has a public work). */
export async function countCreatorSitemaps(options: { db: Db; perFile?: number }): Promise<number> {
  const [row] = await options.db
    .select({ n: countDistinct(user.id) })
    .from(user)
    .innerJoin(generation, publicWorks)
    .where(hasHandle);
  return Math.ceil((row?.n ?? 0) / (options.perFile ?? RESULTS_PER_SITEMAP));
}
