import { count } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { shownPublicly } from "./shown-publicly.ts";
import { RESULTS_PER_SITEMAP } from "./list-sitemap-results.ts";

/** How many sitemap files the results shown publicly take (none when there are none). */
export async function countResultSitemaps(options: { db: Db; perFile?: number }): Promise<number> {
  const [row] = await options.db.select({ n: count() }).from(generation).where(shownPublicly);
  return Math.ceil((row?.n ?? 0) / (options.perFile ?? RESULTS_PER_SITEMAP));
}
