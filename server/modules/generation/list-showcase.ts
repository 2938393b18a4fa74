import { and, isNotNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { asset, generation } from "#server/db/schema/index.ts";
import { modelCatalog } from "#config/models.ts";
import { mediaView } from "./get-generation.ts";
import { firstOutput, shownPublicly } from "#server/modules/explore/shown-publicly.ts";

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
  const read = (where: SQL | undefined, order: SQL) =>
    options.db
      .select({
        id: generation.id,
        kind: generation.kind,
        prompt: generation.prompt,
        modelId: generation.modelId,
        asset: {
          id: asset.id,
          mimeType: asset.mimeType,
          width: asset.width,
          height: asset.height,
          durationMs: asset.durationMs,
          sizeBytes: asset.sizeBytes,
          thumbKey: asset.thumbKey,
        },
      })
      .from(generation)
      .innerJoin(asset, firstOutput)
      .where(and(shownPublicly, where))
      .orderBy(order)
      .limit(options.limit);
  const [featured, newest] = await Promise.all([
    read(isNotNull(generation.featuredAt), sql`${generation.featuredAt} desc nulls last`),
    read(undefined, sql`${generation.createdAt} desc nulls last`),
  ]);
  const seen = new Set<string>();
  return [...featured, ...newest]
    .filter((row) => !seen.has(row.id) && seen.add(row.id))
    .slice(0, options.limit)
    .flatMap((row) => {
      const media = mediaView({ ...row.asset, sizeBytes: Number(row.asset.sizeBytes) });
      const still = media.thumbUrl ?? (row.kind === "image" ? media.url : null);
      if (!still) return [];
      return [
        {
          id: row.id,
          kind: row.kind,
          prompt: row.prompt,
          model: modelCatalog.find((m) => m.id === row.modelId)?.name ?? row.modelId,
          imageUrl: still,
          width: media.width,
          height: media.height,
        },
      ];
    });
}
