import { and, count, desc, eq, gte, ilike, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { containing } from "#server/db/search.ts";
import { adminAction, type AdminAction } from "#server/db/schema/index.ts";
import { ACTION_AREAS } from "#common/admin.ts";

const day = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d$/)
  .refine((value) => !Number.isNaN(Date.parse(value)))
  .optional()
  .catch(undefined);

/** The audit log's filters; a value it does not know falls back to no filter. */
export const auditSearchSchema = z.object({
  area: z.enum(ACTION_AREAS).optional().catch(undefined),
  /** Who acted: part of an e-mail address, or `cli`. */
  actor: z.string().trim().max(200).optional().catch(undefined),
  /** What was acted on: its id, or part of how it is shown. */
  target: z.string().trim().max(200).optional().catch(undefined),
  from: day,
  to: day,
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
  if (search.from) where.push(gte(adminAction.createdAt, new Date(`${search.from}T00:00:00Z`)));
  if (search.to) where.push(lt(adminAction.createdAt, new Date(Date.parse(`${search.to}T00:00:00Z`) + 86_400_000)));
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
