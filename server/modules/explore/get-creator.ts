import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { follow, generation, user } from "#server/db/schema/index.ts";
import { normalizeHandle } from "#common/explore.ts";
import { likeCount, shownPublicly } from "./shown-publicly.ts";

/** A creator as their page shows them. */
export interface Creator {
  id: string;
  handle: string;
  name: string;
  bio: string | null;
  image: string | null;
  /** Results shown publicly, and the likes they received. */
  works: number;
  likes: number;
  followers: number;
  /** Whether the visitor follows them (false signed out), and whether it is the visitor's own page. */
  followed: boolean;
  own: boolean;
}

/** The creator with this handle (any case, with or without `@`); null when no account has it. */
export async function getCreator(options: {
  db: Db;
  handle: string;
  viewerId: string | null;
}): Promise<Creator | null> {
  const handle = normalizeHandle(options.handle);
  const [account] = await options.db
    .select({ id: user.id, handle: user.handle, name: user.name, bio: user.bio, image: user.image })
    .from(user)
    .where(eq(user.handle, handle));
  if (!account?.handle) return null;
  const [figures] = await options.db
    .select({
      works: sql<number>`count(*)::int`,
      likes: sql<number>`coalesce(sum(${likeCount}), 0)::int`,
      followers: sql<number>`(select count(*)::int from ${follow} f where f.creator_id = ${account.id})`,
      followed: options.viewerId
        ? sql<boolean>`exists (select 1 from ${follow} f where f.creator_id = ${account.id} and f.follower_id = ${options.viewerId})`
        : sql<boolean>`false`,
    })
    .from(generation)
    .where(and(eq(generation.userId, account.id), shownPublicly));
  const row = { ...account, handle: account.handle, ...figures };
  return {
    id: row.id,
    handle: row.handle,
    name: row.name,
    bio: row.bio,
    image: row.image,
    works: Number(row.works ?? 0),
    likes: Number(row.likes ?? 0),
    followers: Number(row.followers ?? 0),
    followed: Boolean(row.followed),
    own: row.id === options.viewerId,
  };
}
