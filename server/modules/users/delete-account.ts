import { eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import type { Storage } from "#server/storage/storage.ts";
import { avatarKey } from "#server/modules/users/set-avatar.ts";
import { userMediaKeys } from "#server/modules/generation/delete-generation.ts";

/**
 * Deletes the account and everything personal hanging off it (sessions, sign-in accounts and, through the
 * database's cascades, generations, media and credits). Files go after the rows are gone, so a
 * crash in between leaves an orphaned file, never a user pointing at a missing one.
 */
export async function deleteAccount({
  db,
  storage,
  userId,
  logger,
}: {
  db: Db;
  storage: Storage;
  userId: string;
  logger: Logger;
}) {
  const removed = await db.transaction(async (tx) => {
    const [row] = await tx.select({ image: user.image }).from(user).where(eq(user.id, userId)).for("update");
    if (!row) return null;
    const media = await userMediaKeys({ db: tx, userId });
    await tx.delete(user).where(eq(user.id, userId));
    return { ...row, media };
  });
  if (!removed) return false;
  const keys = [avatarKey(removed.image), ...removed.media].filter((k): k is string => Boolean(k));
  await Promise.all(
    keys.map((key) =>
      storage.delete(key).catch((error: Error) => logger.warn({ err: error.message, key }, "file not removed")),
    ),
  );
  logger.info({ userId }, "account deleted");
  return true;
}
