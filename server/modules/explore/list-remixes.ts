import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { ORDERS, listingRows, toExploreItem, type ExploreItem } from "./listing.ts";

/** The public remixes of a result, the trending first. */
export async function listRemixes(options: {
  db: Db;
  id: string;
  viewerId: string | null;
  limit: number;
}): Promise<ExploreItem[]> {
  const rows = await listingRows(options.db, {
    viewerId: options.viewerId,
    where: [eq(generation.remixOfId, options.id)],
    order: ORDERS.trending,
    limit: options.limit,
  });
  return rows.flatMap((row) => toExploreItem(row) ?? []);
}
