import { isNotNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { modelCatalog } from "#config/models.ts";
import { ORDERS, listingRows, toExploreItem } from "#server/modules/explore/listing.ts";

/** A generation its owner made public, as the home page shows it: its first picture, its prompt, its model. */
export interface ShowcaseItem {
  id: string;
  kind: "image" | "video";
  prompt: string;
  model: string;
  /** A still of the result: the image's thumbnail (or the image), the video's poster frame. */
  imageUrl: string;
  width: number | null;
  height: number | null;
}

/**
 * What the home page shows: the results an administrator featured, the latest first, then the newest others shown
 * publicly (public, finished, not hidden, not flagged), with their first output: nothing about who made them. A
 * video without a poster frame is left out (there is nothing to show as a still). Two reads along their indexes.
 */
export async function listShowcase(options: { db: Db; limit: number }): Promise<ShowcaseItem[]> {
  if (options.limit <= 0) return [];
  const read = (where: SQL[], order: SQL) =>
    listingRows(options.db, { viewerId: null, where, order, limit: options.limit });
  const [featured, newest] = await Promise.all([
    read([isNotNull(generation.featuredAt)], sql`${generation.featuredAt} desc nulls last`),
    read([], ORDERS.newest),
  ]);
  const seen = new Set<string>();
  return [...featured, ...newest]
    .filter((row) => !seen.has(row.id) && seen.add(row.id))
    .slice(0, options.limit)
    .flatMap((row) => {
      const item = toExploreItem(row);
      if (!item) return [];
      return [
        {
          id: item.id,
          kind: item.kind,
          prompt: item.prompt,
          model: modelCatalog.find((m) => m.id === item.modelId)?.name ?? item.modelId,
          imageUrl: item.still,
          width: item.width,
          height: item.height,
        },
      ];
    });
}
