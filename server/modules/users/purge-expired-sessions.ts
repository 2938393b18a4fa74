import { lt } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { session, verification } from "#server/db/schema/index.ts";

export interface PurgeExpiredSessionsOptions {
  db: Db;
  now?: Date;
}

/** Deletes sessions and one-time verification tokens past their expiry. Safe to run twice. */
export async function purgeExpiredSessions({ db, now = new Date() }: PurgeExpiredSessionsOptions) {
  return db.transaction(async (tx) => {
    const sessions = await tx.delete(session).where(lt(session.expiresAt, now)).returning({ id: session.id });
    const verifications = await tx
      .delete(verification)
      .where(lt(verification.expiresAt, now))
      .returning({ id: verification.id });
    return { sessions: sessions.length, verifications: verifications.length };
  });
}
