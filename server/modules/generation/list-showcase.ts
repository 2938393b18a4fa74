import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { asset, generation } from "#server/db/schema/index.ts";
import { modelCatalog } from "#config/models.ts";
import { mediaView } from "./get-generation.ts";

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
 * The newest generations their owners made public and that succeeded, with their first output: nothing about who
 * made them. A video without a poster frame is left out (there is nothing to show as a still).
 */
export async function listShowcase(options: { db: Db; limit: number }): Promise<ShowcaseItem[]> {
  const rows = await options.db
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
    .innerJoin(
      asset,
      sql`${asset.id} = (select a.id from ${asset} a where a.generation_id = ${generation.id} and a.role = 'output' order by a.position limit 1)`,
    )
    .where(and(eq(generation.visibility, "public"), eq(generation.status, "succeeded")))
    .orderBy(desc(generation.createdAt))
    .limit(options.limit);
  return rows.flatMap((row) => {
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
