import { and, count, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import type { CatalogModel } from "#config/models.ts";
import { isProviderId, providerDefinition } from "#server/providers/registry.ts";

type Generation = typeof generation.$inferSelect;

/** Recent successes the estimate learns from, and how long a learned figure is reused. */
const SAMPLE = 20;
const TTL_MS = 60_000;
/** A video's length when a request did not say (the shortest offered). */
const DEFAULT_VIDEO_SECONDS = 5;
/** A recent successful run: how long it took, and the length of its video (for a video). */
interface Run {
  seconds: number;
  videoSeconds: number;
}
const learned = new Map<string, { at: number; runs: Run[] }>();

/**
 * Seconds a job of this model usually takes: the median of its recent successful runs, or the catalog's figure
 * until there are some. A video takes longer the longer it is: for a video of `videoSeconds`, the median of the
 * recent runs of that length when there are some (a model's fixed start-up time makes a time per second of video
 * overestimate the long ones), otherwise the median time per second of video times that length (a 5-second clip is
 * not promised the time of the 10-second ones). Kept for a minute per process, so a status read stays one query.
 */
export async function typicalSeconds({
  db,
  model,
  videoSeconds,
}: {
  db: Db;
  model: Pick<CatalogModel, "id" | "kind" | "expectedSeconds">;
  videoSeconds?: number;
}): Promise<number> {
  let figures = learned.get(model.id);
  if (!figures || Date.now() - figures.at >= TTL_MS) {
    const rows = await db
      .select({ ms: generation.durationMs, params: generation.params })
      .from(generation)
      .where(
        and(eq(generation.modelId, model.id), eq(generation.status, "succeeded"), isNotNull(generation.durationMs)),
      )
      .orderBy(desc(generation.finishedAt))
      .limit(SAMPLE);
    figures = {
      at: Date.now(),
      runs: rows.map((r) => ({
        seconds: (r.ms ?? 0) / 1000,
        videoSeconds: r.params.duration ?? DEFAULT_VIDEO_SECONDS,
      })),
    };
    learned.set(model.id, figures);
  }
  const { runs } = figures;
  if (model.kind === "video" && videoSeconds) {
    const sameLength = median(runs.filter((r) => r.videoSeconds === videoSeconds).map((r) => r.seconds));
    if (sameLength !== null) return sameLength;
    const perSecond =
      median(runs.map((r) => r.seconds / r.videoSeconds)) ?? model.expectedSeconds / DEFAULT_VIDEO_SECONDS;
    return perSecond * videoSeconds;
  }
  return median(runs.map((r) => r.seconds)) ?? model.expectedSeconds;
}

/** Where a queued job stands and what runs before it, for its estimate. */
export interface QueueStanding {
  /** 1 when it is next. */
  position: number;
  /** Jobs run at once before it: the workers' concurrency, or the pool's jobs running now. */
  concurrency: number;
  /**
   * On a pool of the operator's machines: the seconds the jobs ahead of it take together, each at its own model's
   * recent durations (a pool runs several workflows, of very different lengths).
   */
  aheadSeconds?: number;
}

/**
 * Where a queued job stands: 1 when it is next, counting the queued jobs created before it — on the same pool of the
 * operator's machines when it runs on one (those jobs wait for that pool only, and the pool's recent durations of
 * each one's model and the jobs it runs now say how long they take), on every model otherwise.
 */
export async function queueStanding(
  db: Db,
  job: { id: string; createdAt: Date; modelSnapshot?: Generation["modelSnapshot"] },
  workerConcurrency: number,
): Promise<QueueStanding> {
  const before = sql`(${generation.createdAt}, ${generation.id}) < (${job.createdAt.toISOString()}::timestamptz, ${job.id}::uuid)`;
  const binding = job.modelSnapshot?.bindings[0];
  const pool = binding && isProviderId(binding.provider) && providerDefinition(binding.provider).pool;
  if (!pool) {
    const [row] = await db
      .select({ ahead: count() })
      .from(generation)
      .where(and(eq(generation.status, "queued"), before));
    return { position: (row?.ahead ?? 0) + 1, concurrency: workerConcurrency };
  }
  const rows = await db
    .select({
      modelId: generation.modelId,
      kind: generation.kind,
      expected: sql<number>`max((${generation.modelSnapshot} ->> 'expectedSeconds')::float)`,
      ahead: sql<number>`(count(*) filter (where ${generation.status} = 'queued' and ${before}))::int`,
      running: sql<number>`(count(*) filter (where ${generation.status} = 'processing'))::int`,
    })
    .from(generation)
    .where(
      and(
        inArray(generation.status, ["queued", "processing"]),
        sql`${generation.modelSnapshot} -> 'bindings' -> 0 ->> 'connection' = ${binding.connection}`,
      ),
    )
    .groupBy(generation.modelId, generation.kind);
  let ahead = 0;
  let running = 0;
  let aheadSeconds = 0;
  for (const row of rows) {
    ahead += row.ahead;
    running += row.running;
    if (row.ahead > 0)
      aheadSeconds +=
        row.ahead *
        (await typicalSeconds({ db, model: { id: row.modelId, kind: row.kind, expectedSeconds: row.expected ?? 0 } }));
  }
  return { position: ahead + 1, concurrency: Math.max(1, running), aheadSeconds };
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
 * projected over what is left, whichever is larger; for a queued job, its run after those ahead of it (`queue`).
 * Null once the job has ended.
 */
export function remainingSeconds(
  job: { status: string; progress: number; startedAt: Date | null },
  typical: number,
  now = Date.now(),
  queue: QueueStanding | null = null,
): number | null {
  // Queued: its own run, after the runs of the jobs ahead of it, `concurrency` at a time.
  if (job.status === "queued") {
    const concurrency = Math.max(1, queue?.concurrency ?? 1);
    if (queue?.aheadSeconds !== undefined) return Math.ceil(typical + queue.aheadSeconds / concurrency);
    const rounds = queue ? Math.floor((queue.position - 1) / concurrency) : 0;
    return Math.ceil(typical * (1 + rounds));
  }
  if (job.status !== "processing" || !job.startedAt) return null;
  const elapsed = Math.max(0, (now - job.startedAt.getTime()) / 1000);
  const byTypical = typical - elapsed;
  const byPace = job.progress >= 5 ? (elapsed / job.progress) * (100 - job.progress) : 0;
  return Math.max(1, Math.ceil(Math.max(byTypical, byPace)));
}
