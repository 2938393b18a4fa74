import { sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { listingRows, toExploreItem } from "./listing.ts";

/** The results an administrator featured, the latest first: the top of explore and the home page's showcase. */
export async function listFeatured(options: { db: Db; viewerId: string | null; limit: number }) {
  const rows = await listingRows(options.db, {
    viewerId: options.viewerId,
    where: [sql`${generation.featuredAt} is not null`],
    order: sql`${generation.featuredAt} desc nulls last`,
    limit: options.limit,
  });
  return rows.flatMap((row) => toExploreItem(row) ?? []);
}
