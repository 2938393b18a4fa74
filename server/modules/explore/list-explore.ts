import { eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { follow, generation } from "#server/db/schema/index.ts";
import { EXPLORE_PAGE_SIZE, type ExploreQuery } from "#common/explore.ts";
import type { Locale } from "#common/locales.ts";
import { ORDERS, listingRows, toExploreItem, type ExploreItem } from "./listing.ts";

/**
 * One page of explore: public results by kind, tool, model and words of their prompts (searched in the visitor's
 * language and word for word, CJK text by its characters), in the order asked. `hasMore` says whether a next page
 * has anything (one row more is read to know).
 */
export async function listExplore(options: {
  db: Db;
  query: ExploreQuery;
  locale: Locale;
  viewerId: string | null;
}): Promise<{ items: ExploreItem[]; hasMore: boolean }> {
  const { query } = options;
  const where: SQL[] = [];
  if (query.kind) where.push(eq(generation.kind, query.kind));
  if (query.tool) where.push(eq(generation.tool, query.tool));
  if (query.model) where.push(eq(generation.modelId, query.model));
  if (query.feed === "following") {
    if (!options.viewerId) return { items: [], hasMore: false };
    where.push(
      sql`${generation.userId} in (select ${follow.creatorId} from ${follow} where ${follow.followerId} = ${options.viewerId})`,
    );
  }
  if (query.q) where.push(sql`${generation.search} @@ atelier_search_query(${options.locale}, ${query.q})`);
  const rows = await listingRows(options.db, {
    viewerId: options.viewerId,
    where,
    order: ORDERS[query.sort],
    limit: EXPLORE_PAGE_SIZE + 1,
    offset: (query.page - 1) * EXPLORE_PAGE_SIZE,
  });
  const items = rows.slice(0, EXPLORE_PAGE_SIZE).flatMap((row) => toExploreItem(row) ?? []);
  return { items, hasMore: rows.length > EXPLORE_PAGE_SIZE };
}
