import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation, generationLike } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { rowsOf } from "#server/db/rows-of.ts";
import { likedBy, shownPublicly } from "./shown-publicly.ts";

/**
 * Likes a public result or takes the like back, for one account. Each is one statement: the like row and the count
 * change together, so any number of likes at once count exactly (the count's row lock orders them), and the same
 * like sent twice counts once. A result no longer public can be unliked, not liked; unknown: `not_found`.
 */
export async function setLike(options: {
  db: Db;
  generationId: string;
  userId: string;
  liked: boolean;
}): Promise<{ liked: boolean; likes: number }> {
  const { db, generationId, userId } = options;
  const changed = options.liked
    ? await db.execute(sql`
        with added as (
          insert into ${generationLike} (generation_id, user_id)
          select ${generation.id}, ${userId} from ${generation} where ${generation.id} = ${generationId} and ${shownPublicly}
          on conflict do nothing
          returning generation_id
        )
        update ${generation} set like_count = like_count + 1
        where id = (select generation_id from added)
        returning like_count as likes`)
    : await db.execute(sql`
        with removed as (
          delete from ${generationLike} where generation_id = ${generationId} and user_id = ${userId}
          returning generation_id
        )
        update ${generation} set like_count = like_count - 1
        where id = (select generation_id from removed)
        returning like_count as likes`);
  const row = rowsOf<{ likes: number }>(changed)[0];
  if (row) return { liked: options.liked, likes: Number(row.likes) };
  // Nothing changed: liked already, not liked, or not a result one may like.
  const [current] = await db
    .select({
      likes: generation.likeCount,
      shown: sql<boolean>`${shownPublicly}`,
      liked: likedBy(userId),
    })
    .from(generation)
    .where(eq(generation.id, generationId));
  if (!current || (options.liked && !current.shown)) throw new AppError("not_found", "no such public result");
  return { liked: Boolean(current.liked), likes: current.likes };
}
