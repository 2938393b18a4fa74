import { and, asc, count, desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { containing } from "#server/db/search.ts";
import { creditBalance, user } from "#server/db/schema/index.ts";
import { USER_SORTS } from "#common/admin.ts";

const yesNo = z.enum(["yes", "no"]).optional().catch(undefined);

/** The console's user list query; a value it does not know falls back to no filter, never an error page. */
export const userSearchSchema = z.object({
  q: z.string().trim().max(200).optional().catch(undefined),
  role: z.enum(["user", "admin"]).optional().catch(undefined),
  banned: yesNo,
  verified: yesNo,
  paid: yesNo,
  sort: z.enum(USER_SORTS).optional().catch(undefined),
});
export type UserSearch = z.infer<typeof userSearchSchema>;

export interface UserRow {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  role: string;
  banned: boolean;
  balance: number;
  paid: boolean;
  createdAt: Date;
}

// Spelled out: in a query on one table the builder leaves column names unqualified, and inside this subquery an
// unqualified "id" would be the order's.
const hasPaid = sql<boolean>`exists (select 1 from "credit_order" o where o."user_id" = "user"."id" and o."paid_at" is not null)`;

/**
 * One page of accounts for the console: searched by e-mail or name, filtered by role, suspension, confirmed
 * address and whether they ever paid, in the chosen order (the newest first by default).
 */
export async function searchUsers({
  db,
  search,
  page,
  pageSize,
}: {
  db: Db;
  search: UserSearch;
  page: number;
  pageSize: number;
}): Promise<{ rows: UserRow[]; total: number }> {
  const where: SQL[] = [];
  if (search.q) where.push(or(ilike(user.email, containing(search.q)), ilike(user.name, containing(search.q)))!);
  if (search.role) where.push(eq(user.role, search.role));
  if (search.banned) where.push(eq(user.banned, search.banned === "yes"));
  if (search.verified) where.push(eq(user.emailVerified, search.verified === "yes"));
  if (search.paid) where.push(search.paid === "yes" ? hasPaid : sql`not ${hasPaid}`);
  const balance = sql<number>`coalesce(${creditBalance.balance}, 0)`.mapWith(Number);
  const order = {
    newest: [desc(user.createdAt), desc(user.id)],
    oldest: [asc(user.createdAt), asc(user.id)],
    email: [asc(user.email)],
    balance: [desc(balance), desc(user.createdAt)],
  }[search.sort ?? "newest"];
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: user.id,
        name: user.name,
        email: user.email,
        emailVerified: user.emailVerified,
        role: user.role,
        banned: user.banned,
        balance,
        paid: hasPaid,
        createdAt: user.createdAt,
      })
      .from(user)
      .leftJoin(creditBalance, eq(creditBalance.userId, user.id))
      .where(and(...where))
      .orderBy(...order)
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ n: count() })
      .from(user)
      .where(and(...where)),
  ]);
  return { rows, total: total?.n ?? 0 };
}
