import { and, eq, ne } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { session } from "#server/db/schema/index.ts";

/** Ends every session of the user but the one given (signing out everywhere else); how many it ended. */
export async function revokeOtherSessions({
  db,
  userId,
  keepSessionId,
}: {
  db: Db;
  userId: string;
  keepSessionId: string;
}) {
  const rows = await db
    .delete(session)
    .where(and(eq(session.userId, userId), ne(session.id, keepSessionId)))
    .returning({ id: session.id });
  return rows.length;
}
