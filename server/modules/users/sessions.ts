import { and, desc, eq, gt, ne } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { session } from "#server/db/schema/index.ts";

/** The user's live sessions, most recently active first; never their tokens. */
export async function listSessions({ db, userId }: { db: Db; userId: string }) {
  return db
    .select({
      id: session.id,
      userAgent: session.userAgent,
      ipAddress: session.ipAddress,
      createdAt: session.createdAt,
      lastActiveAt: session.updatedAt,
    })
    .from(session)
    .where(and(eq(session.userId, userId), gt(session.expiresAt, new Date())))
    .orderBy(desc(session.updatedAt));
}

/** Ends one of the user's sessions (someone else's id does nothing). */
export async function revokeSession({ db, userId, sessionId }: { db: Db; userId: string; sessionId: string }) {
  const rows = await db
    .delete(session)
    .where(and(eq(session.userId, userId), eq(session.id, sessionId)))
    .returning({ id: session.id });
  return rows.length > 0;
}

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
