import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";

export type Role = "user" | "admin";

/** Gives the account with this e-mail a role; false when there is no such account. */
export async function setRoleByEmail({ db, email, role }: { db: Db; email: string; role: Role }) {
  const rows = await db
    .update(user)
    .set({ role, updatedAt: new Date() })
    .where(eq(sql`lower(${user.email})`, email.trim().toLowerCase()))
    .returning({ id: user.id });
  return rows.length > 0;
}
