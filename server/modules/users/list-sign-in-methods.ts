import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { account } from "#server/db/schema/index.ts";

/** How the user can sign in: "credential" (a password) and/or OAuth provider ids. */
export async function listSignInMethods({ db, userId }: { db: Db; userId: string }) {
  const rows = await db.select({ providerId: account.providerId }).from(account).where(eq(account.userId, userId));
  return [...new Set(rows.map((r) => r.providerId))];
}
