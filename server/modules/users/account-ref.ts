import { eq, sql } from "drizzle-orm";
import { user } from "#server/db/schema/index.ts";

/** An account named by its id (the console) or by its e-mail address, in any case (the command line). */
export type AccountRef = { id: string } | { email: string };

export const accountWhere = (ref: AccountRef) =>
  "id" in ref ? eq(user.id, ref.id) : eq(sql`lower(${user.email})`, ref.email.trim().toLowerCase());
