import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";

/** The profile fields a user sees of themselves. */
export async function getAccount({ db, userId }: { db: Db; userId: string }) {
  const [row] = await db
    .select({
      id: user.id,
      name: user.name,
      email: user.email,
      emailVerified: user.emailVerified,
      image: user.image,
      role: user.role,
      locale: user.locale,
      handle: user.handle,
      bio: user.bio,
      publishByDefault: user.publishByDefault,
      createdAt: user.createdAt,
    })
    .from(user)
    .where(eq(user.id, userId));
  if (!row) throw new AppError("not_found");
  return row;
}
