import { and, asc, count, desc, eq, ilike, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { containing, dayParam, withinDays } from "#server/db/search.ts";
import { generation, generationAttempt, user } from "#server/db/schema/index.ts";
import { GENERATION_STATUSES } from "#common/generation.ts";
import { isUuid } from "#common/ids.ts";

/** The console's generation list query; a value it does not know is no filter. */
export const generationSearchSchema = z.object({
  status: z.enum(GENERATION_STATUSES).optional().catch(undefined),
  model: z
    .string()
    .regex(/^[\w.-]{1,100}$/)
    .optional()
    .catch(undefined),
  /** Part of the owner's e-mail address. */
  user: z.string().trim().max(200).optional().catch(undefined),
  from: dayParam,
  to: dayParam,
});
export type GenerationSearch = z.infer<typeof generationSearchSchema>;

const columns = {
  id: generation.id,
  userId: generation.userId,
  email: user.email,
  kind: generation.kind,
  tool: generation.tool,
  modelId: generation.modelId,
  prompt: generation.prompt,
  status: generation.status,
  creditsHeld: generation.creditsHeld,
  creditsCharged: generation.creditsCharged,
  provider: generation.provider,
  providerModel: generation.providerModel,
  errorCode: generation.errorCode,
  errorMessage: generation.errorMessage,
  visibility: generation.visibility,
  source: generation.source,
  hiddenAt: generation.hiddenAt,
  refundedAt: generation.refundedAt,
  createdAt: generation.createdAt,
  finishedAt: generation.finishedAt,
  durationMs: generation.durationMs,
};

export type AdminGenerationRow = {
  [K in keyof typeof columns]: (typeof columns)[K]["_"]["notNull"] extends true
    ? (typeof columns)[K]["_"]["data"]
    : (typeof columns)[K]["_"]["data"] | null;
};

/** One page of every account's generations, the newest first, by status, model, owner and days (UTC). */
export async function searchGenerations({
  db,
  search,
  page,
  pageSize,
}: {
  db: Db;
  search: GenerationSearch;
  page: number;
  pageSize: number;
}): Promise<{ rows: AdminGenerationRow[]; total: number }> {
  const where: SQL[] = [];
  if (search.status) where.push(eq(generation.status, search.status));
  if (search.model) where.push(eq(generation.modelId, search.model));
  if (search.user) where.push(ilike(user.email, containing(search.user)));
  where.push(...withinDays(generation.createdAt, search));
  const [rows, [total]] = await Promise.all([
    db
      .select(columns)
      .from(generation)
      .innerJoin(user, eq(user.id, generation.userId))
      .where(and(...where))
      .orderBy(desc(generation.createdAt), desc(generation.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ n: count() })
      .from(generation)
      .innerJoin(user, eq(user.id, generation.userId))
      .where(and(...where)),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** One generation as the console shows it, with each provider call its runs made; null when unknown. */
export async function getGenerationRecord({ db, id }: { db: Db; id: string }) {
  if (!isUuid(id)) return null;
  const [found] = await db
    .select({
      ...columns,
      params: generation.params,
      negativePrompt: generation.negativePrompt,
      snapshot: generation.modelSnapshot,
      parentId: generation.parentId,
      featuredAt: generation.featuredAt,
      review: generation.review,
    })
    .from(generation)
    .innerJoin(user, eq(user.id, generation.userId))
    .where(eq(generation.id, id));
  if (!found) return null;
  const { snapshot, ...row } = found;
  const rows = await db
    .select()
    .from(generationAttempt)
    .where(eq(generationAttempt.generationId, id))
    .orderBy(asc(generationAttempt.id));
  // Which connection each call went to: its binding in the job's snapshot (several connections of one provider
  // are each a binding). Jobs from before connections have none.
  const attempts = rows.map((a) => ({
    ...a,
    connection: (snapshot?.bindings[a.binding] as { connection?: string } | undefined)?.connection ?? null,
  }));
  // The connection of the call that succeeded, beside the provider the generation records.
  const served = attempts.findLast((a) => a.outcome === "succeeded")?.connection ?? null;
  return { generation: { ...row, connection: served }, attempts };
}
