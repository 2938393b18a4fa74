import { and, count, desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { containing, dayParam, withinDays } from "#server/db/search.ts";
import { adminAction, type AdminAction } from "#server/db/schema/index.ts";
import { ACTION_AREAS } from "#common/admin.ts";

/** The audit log's filters; a value it does not know falls back to no filter. */
export const auditSearchSchema = z.object({
  area: z.enum(ACTION_AREAS).optional().catch(undefined),
  /** Who acted: part of an e-mail address, or `cli`. */
  actor: z.string().trim().max(200).optional().catch(undefined),
  /** What was acted on: its id, or part of how it is shown. */
  target: z.string().trim().max(200).optional().catch(undefined),
  from: dayParam,
  to: dayParam,
});
export type AuditSearch = z.infer<typeof auditSearchSchema>;

/** One page of the audit log, the newest first, filtered by area, actor, target and days (UTC, both included). */
export async function listAdminActions({
  db,
  search,
  page,
  pageSize,
}: {
  db: Db;
  search: AuditSearch;
  page: number;
  pageSize: number;
}): Promise<{ rows: AdminAction[]; total: number }> {
  const where: SQL[] = [];
  if (search.area) where.push(sql`${adminAction.action} like ${`${search.area}.%`}`);
  if (search.actor) where.push(ilike(adminAction.actor, containing(search.actor)));
  if (search.target)
    where.push(or(eq(adminAction.targetId, search.target), ilike(adminAction.targetLabel, containing(search.target)))!);
  where.push(...withinDays(adminAction.createdAt, search));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(adminAction)
      .where(and(...where))
      .orderBy(desc(adminAction.createdAt), desc(adminAction.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ n: count() })
      .from(adminAction)
      .where(and(...where)),
  ]);
  return { rows, total: total?.n ?? 0 };
}
