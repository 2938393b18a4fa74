import { and, eq, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { contentReport, generation } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { consumeRateLimits } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { isUuid } from "#common/ids.ts";
import type { ReportInput } from "./schema.ts";

/** How many reports one address may send: a person reporting a few results passes, a flood is slowed down. */
export const REPORT_LIMITS = {
  perMinute: { window: 60, max: 10 },
  perDay: { window: 24 * 60 * 60, max: 50 },
};

export type ReportOutcome =
  /** Taken: `counted` is false when this reporter already had an open report of the result (kept once). */
  | { ok: true; counted: boolean }
  /** Too many reports from this address: try again in `retryAfter` seconds. */
  | { ok: false; retryAfter: number };

/**
 * Records a report of a result anyone can see (public, finished, neither hidden nor flagged); any other is
 * `not_found`, as its share page is. Anyone may report, signed in or not: the reporter is known by a keyed hash of
 * their address (and their account when signed in), which limits how many they send and counts one reporter's open
 * report of a result once.
 */
export async function reportGeneration(options: {
  db: Db;
  generationId: string;
  report: ReportInput;
  /** `addressHasher`'s hash of the reporter's address. */
  reporterHash: string;
  reporterId: string | null;
}): Promise<ReportOutcome> {
  const { db, generationId, report, reporterHash, reporterId } = options;
  const limited = await consumeRateLimits(db, [
    { key: `report:minute:${reporterHash}`, rule: REPORT_LIMITS.perMinute },
    { key: `report:day:${reporterHash}`, rule: REPORT_LIMITS.perDay },
  ]);
  if (!limited.allowed) return { ok: false, retryAfter: Math.max(1, limited.retryAfter) };
  if (!isUuid(generationId)) throw new AppError("not_found", `no generation ${generationId}`);
  return db.transaction(async (tx) => {
    // Locked, so that one reporter's two reports sent at once are counted once.
    const [target] = await tx
      .select({ id: generation.id })
      .from(generation)
      .where(
        and(
          eq(generation.id, generationId),
          eq(generation.visibility, "public"),
          eq(generation.status, "succeeded"),
          isNull(generation.hiddenAt),
          or(isNull(generation.review), ne(generation.review, "flagged")),
        ),
      )
      .for("update");
    if (!target) throw new AppError("not_found", `no generation ${generationId}`);
    const [open] = await tx
      .select({ id: contentReport.id })
      .from(contentReport)
      .where(
        and(
          eq(contentReport.generationId, target.id),
          isNull(contentReport.resolvedAt),
          reporterId
            ? or(eq(contentReport.reporterHash, reporterHash), eq(contentReport.reporterId, reporterId))
            : eq(contentReport.reporterHash, reporterHash),
        ),
      )
      .limit(1);
    if (open) return { ok: true, counted: false };
    await tx.insert(contentReport).values({
      generationId: target.id,
      reason: report.reason,
      note: report.note ?? null,
      reporterId,
      reporterHash,
      createdAt: sql`now()`,
    });
    return { ok: true, counted: true };
  });
}
