import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { follow, generation } from "#server/db/schema/index.ts";
import { EXPLORE_PAGE_SIZE, type ExploreQuery } from "#common/explore.ts";
import type { Locale } from "#common/locales.ts";
import { ORDERS, listingRows, toExploreItem, type ExploreItem } from "./listing.ts";
import { shownPublicly } from "./shown-publicly.ts";
import { rowsOf } from "#server/db/rows-of.ts";

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
  /** A search matching at most this many results is ordered from their keys (`FEW_MATCHES`). */
  fewMatches?: number;
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
  const offset = (query.page - 1) * EXPLORE_PAGE_SIZE;
  let page = { where, offset };
  if (query.q) {
    where.push(sql`${generation.search} @@ atelier_search_query(${options.locale}, ${query.q})`);
    const few = await fewMatches(options.db, where, query.sort, options.fewMatches ?? FEW_MATCHES);
    // Few matches: the page is read by id, in the order found from their keys.
    if (few) page = { where: [inArray(generation.id, few.slice(offset, offset + EXPLORE_PAGE_SIZE + 1))], offset: 0 };
  }
  const rows = await listingRows(options.db, {
    viewerId: options.viewerId,
    where: page.where,
    order: ORDERS[query.sort],
    limit: EXPLORE_PAGE_SIZE + 1,
    offset: page.offset,
  });
  const items = rows.slice(0, EXPLORE_PAGE_SIZE).flatMap((row) => toExploreItem(row) ?? []);
  return { items, hasMore: rows.length > EXPLORE_PAGE_SIZE };
}

/**
 * A search matching at most this many results is ordered from the matches' keys; one matching more is read along
 * its order's index, where matches come often enough that a page is found soon.
 */
const FEW_MATCHES = 1000;

/**
 * A search the planner expects to match this many times `FEW_MATCHES` or more is read along its order's index at
 * once: its estimate of a frequent word is sound (the word is in its statistics), and counting a thousand matches
 * first would only add time.
 */
const MANY_TIMES = 20;

/** How many results the planner expects `where` to match, from its statistics (`explain`, nothing is read). */
async function estimatedMatches(db: Db, where: SQL[]): Promise<number> {
  const explained = await db.execute(
    sql`explain (format json) select 1 from ${generation} where ${and(shownPublicly, ...where)}`,
  );
  const plan = rowsOf<{ "QUERY PLAN": unknown }>(explained)[0]?.["QUERY PLAN"];
  const parsed = (typeof plan === "string" ? JSON.parse(plan) : plan) as [{ Plan: { "Plan Rows": number } }];
  return parsed[0].Plan["Plan Rows"];
}

type Keys = { id: string; hot: number | null; createdAt: Date; remixCount: number };
const byKey = (a: Keys, b: Keys, key: (k: Keys) => number) => key(b) - key(a);
const byId = (a: Keys, b: Keys) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const COMPARE: Record<ExploreQuery["sort"], (a: Keys, b: Keys) => number> = {
  trending: (a, b) => byKey(a, b, (k) => k.hot ?? 0) || byId(a, b),
  newest: (a, b) => byKey(a, b, (k) => k.createdAt.getTime()) || byId(a, b),
  remixed: (a, b) => byKey(a, b, (k) => k.remixCount) || byKey(a, b, (k) => k.createdAt.getTime()) || byId(a, b),
};

/**
 * The ids of all the results a search matches, in `ORDERS[sort]`'s order, when there are at most `few`;
 * null when there are more. Reading the matches through the text index first keeps a search for a rare word (or
 * one found nowhere) from walking a whole order's index in search of a page that is not there, which the planner
 * cannot foresee: it guesses a word missing from its statistics to be in about one result in a thousand.
 */
async function fewMatches(db: Db, where: SQL[], sort: ExploreQuery["sort"], few: number): Promise<string[] | null> {
  if ((await estimatedMatches(db, where)) > few * MANY_TIMES) return null;
  const matches = await db
    .select({
      id: generation.id,
      hot: generation.hot,
      createdAt: generation.createdAt,
      remixCount: generation.remixCount,
    })
    .from(generation)
    .where(and(shownPublicly, ...where))
    .limit(few + 1);
  if (matches.length > few) return null;
  return matches.sort(COMPARE[sort]).map((m) => m.id);
}
