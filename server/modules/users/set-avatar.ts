import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import { FILES_PREFIX, type Storage } from "#server/storage/storage.ts";
import { AppError } from "#server/errors.ts";

import { AVATAR_MAX_BYTES, AVATAR_SIZE } from "#common/uploads.ts";

export { AVATAR_MAX_BYTES };
const ACCEPTED = new Set(["png", "jpeg", "webp"]);

export type AvatarProblem = "avatarInvalid" | "avatarTooLarge";

export class AvatarError extends AppError {
  readonly problem: AvatarProblem;
  constructor(problem: AvatarProblem) {
    super("bad_request", problem);
    this.problem = problem;
  }
}

/** The storage key of an avatar URL we issued, or null for anything else (an OAuth provider's picture). */
export function avatarKey(image: string | null): string | null {
  return image?.startsWith(`${FILES_PREFIX}avatars/`) ? image.slice(FILES_PREFIX.length) : null;
}

/**
 * Replaces the user's avatar: the bytes must decode as PNG, JPEG or WebP (the name and the declared type do not
 * count), at most 2 MB; the picture is re-encoded as a 256 px square WebP, which also drops any metadata.
 */
export async function setAvatar({
  db,
  storage,
  userId,
  bytes,
}: {
  db: Db;
  storage: Storage;
  userId: string;
  bytes: Uint8Array;
}) {
  if (bytes.byteLength > AVATAR_MAX_BYTES) throw new AvatarError("avatarTooLarge");
  let format: string | undefined;
  try {
    format = (await sharp(bytes, { limitInputPixels: 50_000_000 }).metadata()).format;
  } catch {
    throw new AvatarError("avatarInvalid");
  }
  if (!format || !ACCEPTED.has(format)) throw new AvatarError("avatarInvalid");
  let encoded: Buffer;
  try {
    encoded = await sharp(bytes, { limitInputPixels: 50_000_000 })
      .rotate()
      .resize(AVATAR_SIZE, AVATAR_SIZE, { fit: "cover" })
      .webp({ quality: 85 })
      .toBuffer();
  } catch {
    throw new AvatarError("avatarInvalid");
  }
  const key = `avatars/${userId}-${randomBytes(6).toString("hex")}.webp`;
  await storage.put(key, encoded, "image/webp");
  const [previous] = await db.select({ image: user.image }).from(user).where(eq(user.id, userId));
  await db
    .update(user)
    .set({ image: storage.url(key), updatedAt: new Date() })
    .where(eq(user.id, userId));
  const old = avatarKey(previous?.image ?? null);
  if (old) await storage.delete(old);
  return storage.url(key);
}

export async function removeAvatar({ db, storage, userId }: { db: Db; storage: Storage; userId: string }) {
  const [previous] = await db.select({ image: user.image }).from(user).where(eq(user.id, userId));
  await db.update(user).set({ image: null, updatedAt: new Date() }).where(eq(user.id, userId));
  const old = avatarKey(previous?.image ?? null);
  if (old) await storage.delete(old);
}
