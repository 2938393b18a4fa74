import { and, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import type { Storage } from "#server/storage/storage.ts";
import { asset, generation } from "#server/db/schema/index.ts";
import { settleHoldInTx, type Tx } from "#server/modules/credits/ledger.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import { removeFiles } from "./store-outputs.ts";

/**
 * Deletes a generation of the user with its outputs: a job still open is stopped and its credits released in the
 * same transaction. The files go once the rows are gone (an input image other jobs still use stays).
 */
export async function deleteGeneration(options: {
  db: Db;
  storage: Storage;
  userId: string;
  id: string;
}): Promise<void> {
  if (!isUuid(options.id)) throw new AppError("not_found", `no generation ${options.id}`);
  const keys = await options.db.transaction((tx) => deleteGenerationRows(tx, options));
  await removeFiles(options.storage, keys);
}

/**
 * Deletes a generation's rows in the caller's transaction (its job stopped and its credits released when still
 * open) and returns the storage keys of its files, to remove once the transaction has committed.
 */
export async function deleteGenerationRows(tx: Tx, options: { userId: string; id: string }): Promise<string[]> {
  const [job] = await tx
    .select({ status: generation.status, holdId: generation.holdId, inputAssetId: generation.inputAssetId })
    .from(generation)
    .where(and(eq(generation.id, options.id), eq(generation.userId, options.userId)))
    .for("update");
  if (!job) throw new AppError("not_found", `no generation ${options.id}`);
  if ((job.status === "queued" || job.status === "processing") && job.holdId) {
    await settleHoldInTx(tx, { holdId: job.holdId, as: "release" });
  }
  const files = await tx
    .select({ key: asset.storageKey, thumb: asset.thumbKey })
    .from(asset)
    .where(eq(asset.generationId, options.id));
  await tx.delete(generation).where(eq(generation.id, options.id));
  // The input image goes too when it was an upload no other job uses.
  if (job.inputAssetId) {
    const [input] = await tx
      .select({ key: asset.storageKey, thumb: asset.thumbKey, role: asset.role })
      .from(asset)
      .where(eq(asset.id, job.inputAssetId));
    const [shared] = await tx
      .select({ id: generation.id })
      .from(generation)
      .where(eq(generation.inputAssetId, job.inputAssetId))
      .limit(1);
    if (input?.role === "input" && !shared) {
      await tx.delete(asset).where(eq(asset.id, job.inputAssetId));
      files.push({ key: input.key, thumb: input.thumb });
    }
  }
  return files.flatMap((f) => [f.key, f.thumb]).filter((k): k is string => Boolean(k));
}

/** Every file of a user's media (outputs and inputs), for removing an account. */
export async function userMediaKeys({ db, userId }: { db: Db | Tx; userId: string }): Promise<string[]> {
  const rows = await db
    .select({ key: asset.storageKey, thumb: asset.thumbKey })
    .from(asset)
    .where(eq(asset.userId, userId));
  return rows.flatMap((r) => [r.key, r.thumb].filter((k): k is string => Boolean(k)));
}
