import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { follow, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";

/**
 * Follows a creator (an account with a handle) or stops following them; the same request twice changes nothing.
 * Following oneself is refused (`bad_request`); an unknown creator is `not_found`. Returns their follower count.
 */
export async function setFollow(options: {
  db: Db;
  creatorId: string;
  followerId: string;
  followed: boolean;
}): Promise<{ followed: boolean; followers: number }> {
  const { db, creatorId, followerId } = options;
  if (creatorId === followerId) throw new AppError("bad_request", "one does not follow oneself");
  const [creator] = await db
    .select({ id: user.id })
    .from(user)
    .where(and(eq(user.id, creatorId), isNotNull(user.handle)));
  if (!creator) throw new AppError("not_found", "no such creator");
  if (options.followed) await db.insert(follow).values({ followerId, creatorId }).onConflictDoNothing();
  else await db.delete(follow).where(and(eq(follow.followerId, followerId), eq(follow.creatorId, creatorId)));
  const [counted] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(follow)
    .where(eq(follow.creatorId, creatorId));
  return { followed: options.followed, followers: Number(counted?.n ?? 0) };
}
