import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { EXPLORE_PAGE_SIZE } from "#common/explore.ts";
import { ORDERS, listingRows, toExploreItem, type ExploreItem } from "./listing.ts";

/** One page of a creator's results shown publicly, the newest first; `hasMore` when a next page has any. */
export async function listCreatorWorks(options: {
  db: Db;
  creatorId: string;
  viewerId: string | null;
  page: number;
}): Promise<{ items: ExploreItem[]; hasMore: boolean }> {
  const rows = await listingRows(options.db, {
    viewerId: options.viewerId,
    where: [eq(generation.userId, options.creatorId)],
    order: ORDERS.newest,
    limit: EXPLORE_PAGE_SIZE + 1,
    offset: (options.page - 1) * EXPLORE_PAGE_SIZE,
  });
  return {
    items: rows.slice(0, EXPLORE_PAGE_SIZE).flatMap((row) => toExploreItem(row) ?? []),
    hasMore: rows.length > EXPLORE_PAGE_SIZE,
  };
}
