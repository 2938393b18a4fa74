import { and, eq, ne, sql, type Subquery } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "#server/db/client.ts";
import { preparedPerDatabase } from "#server/db/prepared.ts";
import { generation, generationLike, likeTally } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { likedBy, likeCount, shownPublicly } from "./shown-publicly.ts";

/**
 * The result's rank follows its new count (`generation.like_rank`), written only when it changes: when the likes
 * cross a power of two.
 */
function followRank(db: Db, tallied: Subquery & { generationId: AnyPgColumn; likes: AnyPgColumn }) {
  const rank = sql`atelier_like_rank(${tallied.likes})`;
  return db.$with("ranked").as(
    db
      .update(generation)
      .set({ likeRank: sql`${rank}` })
      .from(tallied)
      .where(and(eq(generation.id, tallied.generationId), ne(generation.likeRank, rank)))
      .returning({ id: generation.id }),
  );
}

/** A like added and counted in one statement: nothing when the account liked it already or it is not public. */
const like = preparedPerDatabase((db) => {
  const added = db.$with("added").as(
    db
      .insert(generationLike)
      .select(
        db
          .select({
            generationId: generation.id,
            userId: sql<string>`${sql.placeholder("userId")}::text`.as("user_id"),
            createdAt: sql<Date>`now()`.as("created_at"),
          })
          .from(generation)
          .where(and(eq(generation.id, sql.placeholder("id")), shownPublicly))
          .for("key share"),
      )
      .onConflictDoNothing()
      .returning({ generationId: generationLike.generationId }),
  );
  const tallied = db.$with("tallied").as(
    db
      .insert(likeTally)
      .select(db.select({ generationId: added.generationId, likes: sql<number>`1`.as("likes") }).from(added))
      .onConflictDoUpdate({ target: likeTally.generationId, set: { likes: sql`${likeTally.likes} + 1` } })
      .returning({ generationId: likeTally.generationId, likes: likeTally.likes }),
  );
  const ranked = followRank(db, tallied);
  return db.with(added, tallied, ranked).select({ likes: tallied.likes }).from(tallied).prepare("atelier_like");
});

/** A like taken back and uncounted in one statement: nothing when the account had not liked it. */
const unlike = preparedPerDatabase((db) => {
  const target = db.$with("target").as(
    db
      .select({ id: generation.id })
      .from(generation)
      .where(eq(generation.id, sql.placeholder("id")))
      .for("key share"),
  );
  const removed = db.$with("removed").as(
    db
      .delete(generationLike)
      .where(
        and(
          eq(generationLike.generationId, sql`(select ${target.id} from ${target})`),
          eq(generationLike.userId, sql.placeholder("userId")),
        ),
      )
      .returning({ generationId: generationLike.generationId }),
  );
  const tallied = db.$with("tallied").as(
    db
      .update(likeTally)
      .set({ likes: sql`${likeTally.likes} - 1` })
      .from(removed)
      .where(eq(likeTally.generationId, removed.generationId))
      .returning({ generationId: likeTally.generationId, likes: likeTally.likes }),
  );
  const ranked = followRank(db, tallied);
  return db
    .with(target, removed, tallied, ranked)
    .select({ likes: tallied.likes })
    .from(tallied)
    .prepare("atelier_unlike");
});

/**
 * Likes a public result or takes the like back, for one account. Each is one prepared statement: the like row, its
 * count (`like_tally`, whose row lock orders concurrent likes, so any number at once count exactly) and, when the
 * count crosses a power of two, the result's trending rank; the same like sent twice counts once. Each first takes
 * the result's row with `for key share` (which no update of the result waits for, only its deletion), so the locks
 * come in one order (result, tally, result) and a like cannot deadlock with the result's deletion, which takes the
 * result before its likes and tally. A result no longer public can be unliked, not liked; unknown: `not_found`.
 */
export async function setLike(options: {
  db: Db;
  generationId: string;
  userId: string;
  liked: boolean;
}): Promise<{ liked: boolean; likes: number }> {
  const { db, generationId, userId } = options;
  const [row] = await (options.liked ? like(db) : unlike(db)).execute({ id: generationId, userId });
  if (row) return { liked: options.liked, likes: Number(row.likes) };
  // Nothing changed: liked already, not liked, or not a result one may like.
  const [current] = await db
    .select({
      likes: likeCount,
      shown: sql<boolean>`${shownPublicly}`,
      liked: likedBy(userId),
    })
    .from(generation)
    .where(eq(generation.id, generationId));
  if (!current || (options.liked && !current.shown)) throw new AppError("not_found", "no such public result");
  return { liked: Boolean(current.liked), likes: Number(current.likes) };
}
