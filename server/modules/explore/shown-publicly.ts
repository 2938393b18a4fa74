import { and, eq, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import { asset, generation, generationLike, likeTally } from "#server/db/schema/index.ts";

/**
 * What the public may see: a result its owner made public, that succeeded, that no administrator hid and that no
 * check flagged. Every public listing (explore, search, creator pages, sitemaps, the share page) asks this; the first
 * two terms are the predicate of the partial indexes it reads.
 */
export const shownPublicly: SQL = and(
  eq(generation.visibility, "public"),
  eq(generation.status, "succeeded"),
  isNull(generation.hiddenAt),
  or(isNull(generation.review), ne(generation.review, "flagged")),
)!;

/** Joins a result's first output (the still or video a listing shows). */
export const firstOutput = sql`${asset.id} = (select a.id from ${asset} a where a.generation_id = ${generation.id} and a.role = 'output' order by a.position limit 1)`;

/** Whether the account liked the result of the row being read (false for a signed-out visitor). */
export const likedBy = (userId: string | null): SQL<boolean> =>
  userId
    ? sql<boolean>`exists (select 1 from ${generationLike} l where l.generation_id = ${generation.id} and l.user_id = ${userId})`
    : sql<boolean>`false`;

/** The likes of the result of the row being read (`like_tally`; 0 when it has none). */
export const likeCount: SQL<number> = sql<number>`coalesce((select t.likes from ${likeTally} t where t.generation_id = ${generation.id}), 0)`;
