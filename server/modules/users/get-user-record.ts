import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";

/** What the console shows of an account: everything but its secrets; null when there is no such account. */
export async function getUserRecord({ db, userId }: { db: Db; userId: string }) {
  const [row] = await db
    .select({
      id: user.id,
      name: user.name,
      email: user.email,
      emailVerified: user.emailVerified,
      role: user.role,
      banned: user.banned,
      banReason: user.banReason,
      locale: user.locale,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    })
    .from(user)
    .where(eq(user.id, userId));
  return row ?? null;
}
