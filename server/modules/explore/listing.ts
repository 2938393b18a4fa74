import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { asset, generation, user } from "#server/db/schema/index.ts";
import { mediaColumns, mediaView } from "#server/modules/generation/get-generation.ts";
import type { GenerationKind, GenerationTool } from "#common/generation.ts";
import { firstOutput, likedBy, likeCount, shownPublicly } from "./shown-publicly.ts";

/** A public result as explore's grid shows it. */
export interface ExploreItem {
  id: string;
  kind: GenerationKind;
  tool: GenerationTool;
  prompt: string;
  /** The prompt's language, for its `lang` attribute; null when it was not recognised. */
  promptLang: string | null;
  modelId: string;
  /** A still: the image's thumbnail (or the image), the video's poster frame. */
  still: string;
  /** The video itself, played muted in the grid; null for an image. */
  video: string | null;
  width: number | null;
  height: number | null;
  likes: number;
  remixes: number;
  /** Whether the visitor liked it (false for a signed-out visitor). */
  liked: boolean;
  /** Its creator when they have a public page (a handle); null otherwise: nothing else about them is shown. */
  creator: { handle: string; name: string } | null;
  featured: boolean;
  createdAt: string;
}

/** Explore's orders, each read along its partial index. */
export const ORDERS = {
  trending: sql`${generation.hot} desc nulls last, ${generation.id}`,
  newest: sql`${generation.createdAt} desc nulls last, ${generation.id}`,
  remixed: sql`${generation.remixCount} desc nulls last, ${generation.createdAt} desc nulls last, ${generation.id}`,
} as const;

/** Columns of a listing's row: the result, its first output and its creator's public name. */
export function listingColumns(viewerId: string | null) {
  return {
    id: generation.id,
    kind: generation.kind,
    tool: generation.tool,
    prompt: generation.prompt,
    promptLang: generation.promptLang,
    modelId: generation.modelId,
    likes: likeCount,
    remixes: generation.remixCount,
    featuredAt: generation.featuredAt,
    createdAt: generation.createdAt,
    handle: user.handle,
    name: user.name,
    liked: likedBy(viewerId),
    asset: mediaColumns,
  };
}

type ListingRow = Awaited<ReturnType<typeof listingRows>>[number];

/** Public results with their first output and creator, where `where` says, in `order`. */
export function listingRows(
  db: Db,
  options: { viewerId: string | null; where: SQL[]; order: SQL; limit: number; offset?: number },
) {
  return db
    .select(listingColumns(options.viewerId))
    .from(generation)
    .innerJoin(asset, firstOutput)
    .innerJoin(user, eq(user.id, generation.userId))
    .where(and(shownPublicly, ...options.where))
    .orderBy(options.order)
    .limit(options.limit)
    .offset(options.offset ?? 0);
}

/** A listing's row as the pages show it; a video without a poster frame is left out (there is no still to show). */
export function toExploreItem(row: ListingRow): ExploreItem | null {
  const media = mediaView({ ...row.asset, sizeBytes: Number(row.asset.sizeBytes) });
  const still = media.thumbUrl ?? (row.kind === "image" ? media.url : null);
  if (!still) return null;
  return {
    id: row.id,
    kind: row.kind,
    tool: row.tool,
    prompt: row.prompt,
    promptLang: row.promptLang,
    modelId: row.modelId,
    still,
    video: row.kind === "video" ? media.url : null,
    width: media.width,
    height: media.height,
    likes: row.likes,
    remixes: row.remixes,
    liked: Boolean(row.liked),
    creator: row.handle ? { handle: row.handle, name: row.name } : null,
    featured: row.featuredAt !== null,
    createdAt: row.createdAt.toISOString(),
  };
}
