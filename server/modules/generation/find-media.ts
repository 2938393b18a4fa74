import { and, asc, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { asset, generation } from "#server/db/schema/index.ts";

/**
 * A media file the viewer may read: their own (outputs and input images), an output of someone's public, finished
 * generation, or one a valid signed link names. Anything else is reported missing.
 */
export async function findMedia(options: {
  db: Db;
  assetId: string;
  viewerId: string | null;
  /** A signed link named the file: whoever holds it may read it. */
  anyone?: boolean;
}) {
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
  if (row.userId !== options.viewerId && !isPublic && !options.anyone) return null;
  return {
    storageKey: row.storageKey,
    thumbKey: row.thumbKey,
    checksum: row.checksum,
    public: isPublic,
    output: row.role === "output",
  };
}

/** The stored files of a generation of the user's, in order: outputs, or the thumbnail beside each. */
export async function filesOfGeneration(options: { db: Db; userId: string; generationId: string }) {
  return options.db
    .select({ id: asset.id, storageKey: asset.storageKey, thumbKey: asset.thumbKey, mimeType: asset.mimeType })
    .from(asset)
    .where(
      and(eq(asset.generationId, options.generationId), eq(asset.userId, options.userId), eq(asset.role, "output")),
    )
    .orderBy(asc(asset.position));
}
