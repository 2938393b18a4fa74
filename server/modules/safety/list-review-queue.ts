import { and, asc, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { asset, contentReport, generation, user } from "#server/db/schema/index.ts";
import type { ReportReason, SafetyRecord } from "#common/safety.ts";

/** Open reports per generation: how many, and the latest. */
const openReports = (db: Db) =>
  db
    .select({
      generationId: contentReport.generationId,
      count: sql<number>`count(*)::int`.as("open_count"),
      latest: sql<string>`max(${contentReport.createdAt})`.as("open_latest"),
    })
    .from(contentReport)
    .where(isNull(contentReport.resolvedAt))
    .groupBy(contentReport.generationId)
    .as("open_reports");

/** What waits for an administrator: not hidden, and flagged by a check or reported by someone. */
const waiting = (open: ReturnType<typeof openReports>) =>
  and(isNull(generation.hiddenAt), or(eq(generation.review, "flagged"), sql`${open.count} > 0`));

export interface ReviewItem {
  id: string;
  kind: "image" | "video";
  tool: string;
  prompt: string;
  modelId: string;
  visibility: string;
  review: "flagged" | "cleared" | null;
  safety: SafetyRecord | null;
  createdAt: string;
  userId: string;
  email: string;
  banned: boolean;
  /** The first output's thumbnail (a poster frame for a video), by its asset id. */
  thumbAssetId: string | null;
  reports: Array<{ id: string; reason: ReportReason; note: string | null; createdAt: string; signedIn: boolean }>;
}

/**
 * One page of the review queue: generations a check flagged or someone reported and nobody has decided about yet,
 * the most recently flagged or reported first, each with its checks' findings, its open reports and its owner.
 */
export async function listReviewQueue({
  db,
  page,
  pageSize,
}: {
  db: Db;
  page: number;
  pageSize: number;
}): Promise<{ rows: ReviewItem[]; total: number }> {
  const open = openReports(db);
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        id: generation.id,
        kind: generation.kind,
        tool: generation.tool,
        prompt: generation.prompt,
        modelId: generation.modelId,
        visibility: generation.visibility,
        review: generation.review,
        safety: generation.safety,
        createdAt: sql<string>`${generation.createdAt}`,
        userId: generation.userId,
        email: user.email,
        banned: user.banned,
      })
      .from(generation)
      .innerJoin(user, eq(user.id, generation.userId))
      .leftJoin(open, eq(open.generationId, generation.id))
      .where(waiting(open))
      .orderBy(desc(sql`coalesce(${open.latest}, ${generation.createdAt})`), desc(generation.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ total: sql<number>`count(*)::int` })
      .from(generation)
      .leftJoin(open, eq(open.generationId, generation.id))
      .where(waiting(open)),
  ]);
  const ids = rows.map((r) => r.id);
  const [reports, thumbs] = ids.length
    ? await Promise.all([
        db
          .select({
            id: contentReport.id,
            generationId: contentReport.generationId,
            reason: contentReport.reason,
            note: contentReport.note,
            reporterId: contentReport.reporterId,
            createdAt: sql<string>`${contentReport.createdAt}`,
          })
          .from(contentReport)
          .where(and(inArray(contentReport.generationId, ids), isNull(contentReport.resolvedAt)))
          .orderBy(desc(contentReport.createdAt)),
        db
          .selectDistinctOn([asset.generationId], { generationId: asset.generationId, id: asset.id })
          .from(asset)
          .where(and(inArray(asset.generationId, ids), eq(asset.role, "output")))
          .orderBy(asset.generationId, asc(asset.position)),
      ])
    : [[], []];
  return {
    total: counted?.total ?? 0,
    rows: rows.map((r) => ({
      ...r,
      createdAt: new Date(r.createdAt).toISOString(),
      banned: Boolean(r.banned),
      thumbAssetId: thumbs.find((t) => t.generationId === r.id)?.id ?? null,
      reports: reports
        .filter((report) => report.generationId === r.id)
        .map((report) => ({
          id: report.id,
          reason: report.reason,
          note: report.note,
          createdAt: new Date(report.createdAt).toISOString(),
          signedIn: Boolean(report.reporterId),
        })),
    })),
  };
}

/** How many generations wait in the review queue (the console's navigation shows it). */
export async function countReviewQueue({ db }: { db: Db }): Promise<number> {
  const open = openReports(db);
  const [row] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(generation)
    .leftJoin(open, eq(open.generationId, generation.id))
    .where(waiting(open));
  return row?.total ?? 0;
}
