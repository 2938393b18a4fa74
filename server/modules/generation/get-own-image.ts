import { and, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { asset, generation } from "#server/db/schema/index.ts";
import { isUuid } from "#common/ids.ts";
import { mediaColumns, mediaView, type MediaView } from "./get-generation.ts";

/**
 * One of the user's own images, to start a tool with ("Animate", "Upscale"… from a result, `?input=`): an output
 * of one of their generations or an image they uploaded, with the prompt of the generation it came out of. Anyone
 * else's, a video, or anything unknown is null.
 */
export async function getOwnImage(options: {
  db: Db;
  userId: string;
  assetId: string;
}): Promise<(MediaView & { prompt: string | null }) | null> {
  if (!isUuid(options.assetId)) return null;
  const [row] = await options.db
    .select({ ...mediaColumns, prompt: generation.prompt })
    .from(asset)
    .leftJoin(generation, eq(generation.id, asset.generationId))
    .where(and(eq(asset.id, options.assetId), eq(asset.userId, options.userId), eq(asset.kind, "image")));
  if (!row) return null;
  return { ...mediaView({ ...row, sizeBytes: Number(row.sizeBytes) }), prompt: row.prompt ?? null };
}
