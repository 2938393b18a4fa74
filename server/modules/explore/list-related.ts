import { eq, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { ORDERS, listingRows, toExploreItem, type ExploreItem } from "./listing.ts";

/** The words of a prompt worth matching others on: the longest distinct ones. */
function keyWords(prompt: string, max: number): string[] {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? [];
  return [...new Set(words)].sort((a, b) => b.length - a.length).slice(0, max);
}

/**
 * Public results like this one, for its page: those whose prompts share its longest words (any of them, word for
 * word), the trending first; then, to fill the row, others made with the same model.
 */
export async function listRelated(options: {
  db: Db;
  id: string;
  prompt: string;
  modelId: string;
  viewerId: string | null;
  limit: number;
}): Promise<ExploreItem[]> {
  const words = keyWords(options.prompt, 6);
  const others: SQL = ne(generation.id, options.id);
  const bySearch = words.length
    ? await listingRows(options.db, {
        viewerId: options.viewerId,
        where: [
          others,
          sql`${generation.search} @@ (${sql.join(
            words.map((w) => sql`plainto_tsquery('simple', ${w})`),
            sql` || `,
          )})`,
        ],
        order: ORDERS.trending,
        limit: options.limit,
      })
    : [];
  const found = bySearch.flatMap((row) => toExploreItem(row) ?? []);
  if (found.length >= options.limit) return found;
  const byModel = await listingRows(options.db, {
    viewerId: options.viewerId,
    where: [others, eq(generation.modelId, options.modelId)],
    order: ORDERS.trending,
    limit: options.limit,
  });
  const seen = new Set(found.map((item) => item.id));
  const more = byModel.flatMap((row) => (seen.has(row.id) ? [] : (toExploreItem(row) ?? [])));
  return [...found, ...more].slice(0, options.limit);
}
