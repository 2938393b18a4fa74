import { and, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { session } from "#server/db/schema/index.ts";

/** Ends one of the user's sessions (someone else's id does nothing). */
export async function revokeSession({ db, userId, sessionId }: { db: Db; userId: string; sessionId: string }) {
  const rows = await db
    .delete(session)
    .where(and(eq(session.userId, userId), eq(session.id, sessionId)))
    .returning({ id: session.id });
  return rows.length > 0;
}
