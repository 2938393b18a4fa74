import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation, user } from "#server/db/schema/index.ts";
import { likedBy, likeCount, shownPublicly } from "./shown-publicly.ts";

/** What a result's public page adds to the result itself: its place among the public ones. */
export interface PublicResult {
  promptLang: string | null;
  likes: number;
  /** Whether the visitor liked it. */
  liked: boolean;
  remixes: number;
  /** Its creator when they have a public page (a handle); nothing else about them otherwise. */
  creator: { handle: string; name: string } | null;
  /** The public result it remixes; null when it remixes none, or one no longer shown publicly. */
  remixOf: { id: string; prompt: string } | null;
  createdAt: Date;
}

/**
 * A result as the public may see it (public, finished, neither hidden nor flagged), with its likes, remixes, creator
 * and source; null for any other (the page then does not exist).
 */
export async function getPublicResult(options: {
  db: Db;
  id: string;
  viewerId: string | null;
}): Promise<PublicResult | null> {
  const source = sql`(select json_build_object('id', s.id, 'prompt', s.prompt) from ${generation} s
    where s.id = ${generation.remixOfId} and s.visibility = 'public' and s.status = 'succeeded'
      and s.hidden_at is null and (s.review is null or s.review <> 'flagged'))`;
  const [row] = await options.db
    .select({
      promptLang: generation.promptLang,
      likes: likeCount,
      remixes: generation.remixCount,
      createdAt: generation.createdAt,
      handle: user.handle,
      name: user.name,
      remixOf: sql<{ id: string; prompt: string } | null>`${source}`,
      liked: likedBy(options.viewerId),
    })
    .from(generation)
    .innerJoin(user, eq(user.id, generation.userId))
    .where(and(eq(generation.id, options.id), shownPublicly));
  if (!row) return null;
  return {
    promptLang: row.promptLang,
    likes: row.likes,
    liked: Boolean(row.liked),
    remixes: row.remixes,
    creator: row.handle ? { handle: row.handle, name: row.name } : null,
    remixOf: row.remixOf,
    createdAt: row.createdAt,
  };
}
