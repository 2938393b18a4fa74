import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { asset, generation } from "#server/db/schema/index.ts";

/**
 * A media file the viewer may read: their own (outputs and input images), or an output of someone's public,
 * finished generation. Anything else is reported missing.
 */
export async function findMedia(options: { db: Db; assetId: string; viewerId: string | null }) {
  const [row] = await options.db
    .select({
      storageKey: asset.storageKey,
      thumbKey: asset.thumbKey,
      checksum: asset.checksum,
      userId: asset.userId,
      role: asset.role,
      visibility: generation.visibility,
      status: generation.status,
    })
    .from(asset)
    .leftJoin(generation, eq(generation.id, asset.generationId))
    .where(eq(asset.id, options.assetId));
  if (!row) return null;
  const isPublic = row.role === "output" && row.visibility === "public" && row.status === "succeeded";
  if (row.userId !== options.viewerId && !isPublic) return null;
  return { storageKey: row.storageKey, thumbKey: row.thumbKey, checksum: row.checksum, public: isPublic };
}
