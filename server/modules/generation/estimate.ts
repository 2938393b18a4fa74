import { and, desc, eq, isNotNull } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import type { CatalogModel } from "#config/models.ts";

/** Recent successes the estimate learns from, and how long a learned figure is reused. */
const SAMPLE = 20;
const TTL_MS = 60_000;
const learned = new Map<string, { at: number; seconds: number | null }>();

/**
 * Seconds a job of this model usually takes: the median of its recent successful runs, or the catalog's figure
 * until there are some. Kept for a minute per process, so a status read stays one query.
 */
export async function typicalSeconds({ db, model }: { db: Db; model: CatalogModel }): Promise<number> {
  const cached = learned.get(model.id);
  if (cached && Date.now() - cached.at < TTL_MS) return cached.seconds ?? model.expectedSeconds;
  const rows = await db
    .select({ ms: generation.durationMs })
    .from(generation)
    .where(and(eq(generation.modelId, model.id), eq(generation.status, "succeeded"), isNotNull(generation.durationMs)))
    .orderBy(desc(generation.finishedAt))
    .limit(SAMPLE);
  const seconds = median(rows.map((r) => (r.ms ?? 0) / 1000));
  learned.set(model.id, { at: Date.now(), seconds });
  return seconds ?? model.expectedSeconds;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A finished run makes the next estimate relearn. */
export function recordDuration(modelId: string, _ms: number): void {
  learned.delete(modelId);
}

/**
 * Seconds left: the typical duration minus the time spent, or, once the job reports progress, the pace so far
 * projected over what is left, whichever is larger. Null once the job has ended.
 */
export function remainingSeconds(
  job: { status: string; progress: number; startedAt: Date | null },
  typical: number,
  now = Date.now(),
): number | null {
  if (job.status === "queued") return Math.ceil(typical);
  if (job.status !== "processing" || !job.startedAt) return null;
  const elapsed = Math.max(0, (now - job.startedAt.getTime()) / 1000);
  const byTypical = typical - elapsed;
  const byPace = job.progress >= 5 ? (elapsed / job.progress) * (100 - job.progress) : 0;
  return Math.max(1, Math.ceil(Math.max(byTypical, byPace)));
}
