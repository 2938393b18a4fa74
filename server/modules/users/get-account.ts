import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { account, user } from "#server/db/schema/index.ts";
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
      createdAt: user.createdAt,
    })
    .from(user)
    .where(eq(user.id, userId));
  if (!row) throw new AppError("not_found");
  return row;
}

/** How the user can sign in: "credential" (a password) and/or OAuth provider ids. */
export async function listSignInMethods({ db, userId }: { db: Db; userId: string }) {
  const rows = await db.select({ providerId: account.providerId }).from(account).where(eq(account.userId, userId));
  return [...new Set(rows.map((r) => r.providerId))];
}
