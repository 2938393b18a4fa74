import { and, desc, eq, gt } from "drizzle-orm";
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
