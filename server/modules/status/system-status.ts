import { sql } from "drizzle-orm";
import type { Runtime } from "#server/runtime.ts";
import { modelCatalog, offeredModels, type CatalogModel } from "#config/models.ts";
import { typicalSeconds } from "#server/modules/generation/estimate.ts";
import { withTimeout } from "#server/net/with-timeout.ts";

/** How long one reading of the system's state is reused: the page and its JSON cost one check per interval. */
export const STATUS_TTL_MS = 15_000;
/** How long a check may take before its component counts as down. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * A component's or model's state. `not_configured`: this deployment does not use it; `unknown`: it could not be
 * read (the database is down and nothing was read before).
 */
export type State = "operational" | "degraded" | "down" | "not_configured" | "unknown";

export const COMPONENTS = ["web", "database", "queue", "storage", "email", "payments"] as const;
export type ComponentId = (typeof COMPONENTS)[number];

/** Outcomes of a model's finished jobs over a period (canceled ones are not the model's doing, so not counted). */
export interface Outcomes {
  finished: number;
  succeeded: number;
  failed: number;
  /** Succeeded over finished, 0 to 1; null without finished jobs. */
  successRate: number | null;
  /** Run time of the successful jobs, in seconds. */
  p50Seconds: number | null;
  p95Seconds: number | null;
}

export interface ModelStatus {
  id: string;
  name: string;
  kind: CatalogModel["kind"];
  state: State;
  lastHour: Outcomes;
  lastDay: Outcomes;
}

export interface SystemStatus {
  /** When this reading was taken (ISO 8601). */
  checkedAt: string;
  overall: "operational" | "degraded" | "down";
  components: { id: ComponentId; state: State; kind?: string }[];
  models: ModelStatus[];
  /** Jobs waiting and running now, and how long a video asked for now would take to be ready; null when unknown. */
  queue: { queued: number; processing: number; videoWaitSeconds: number | null } | null;
}

const NONE: Outcomes = { finished: 0, succeeded: 0, failed: 0, successRate: null, p50Seconds: null, p95Seconds: null };

/**
 * A model's state from its real outcomes: down when the last hour has at least three finished jobs and none
 * succeeded; degraded when fewer than nine in ten succeeded in the last hour (of at least two) or the last day (of
 * at least five); operational otherwise, including when nothing ran.
 */
export function modelState(lastHour: Outcomes, lastDay: Outcomes): State {
  if (lastHour.finished >= 3 && lastHour.succeeded === 0) return "down";
  const poor = (o: Outcomes, atLeast: number) => o.finished >= atLeast && (o.successRate ?? 1) < 0.9;
  if (poor(lastHour, 2) || poor(lastDay, 5)) return "degraded";
  return "operational";
}

/** The whole system: down without its database, degraded when a part or an offered model is not operational. */
export function overallState(components: SystemStatus["components"], models: ModelStatus[]): SystemStatus["overall"] {
  const state = (id: ComponentId) => components.find((c) => c.id === id)?.state;
  if (state("database") === "down" || state("web") === "down") return "down";
  const troubled = (s: State) => s === "down" || s === "degraded";
  if (components.some((c) => troubled(c.state)) || models.some((m) => troubled(m.state))) return "degraded";
  return "operational";
}

type Row = Record<string, unknown>;
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function outcomes(row: Row | undefined, period: "hour" | "day"): Outcomes {
  if (!row) return NONE;
  const finished = Number(row[`${period}_finished`] ?? 0);
  const succeeded = Number(row[`${period}_succeeded`] ?? 0);
  const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);
  return {
    finished,
    succeeded,
    failed: finished - succeeded,
    successRate: finished > 0 ? Math.round((succeeded / finished) * 1000) / 1000 : null,
    p50Seconds: seconds(num(row[`${period}_p50`])),
    p95Seconds: seconds(num(row[`${period}_p95`])),
  };
}

const rowsOf = (result: unknown): Row[] =>
  Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] }).rows ?? []);

/** Each model's outcomes over the last hour and day, in one query over the jobs finished in the last day. */
async function readOutcomes(runtime: Runtime): Promise<Map<string, Row>> {
  const result = await runtime.database.db.execute(sql`
    select model_id,
      count(*) filter (where finished_at >= now() - interval '1 hour') as hour_finished,
      count(*) filter (where finished_at >= now() - interval '1 hour' and status = 'succeeded') as hour_succeeded,
      percentile_cont(0.5) within group (order by duration_ms)
        filter (where finished_at >= now() - interval '1 hour' and status = 'succeeded') as hour_p50,
      percentile_cont(0.95) within group (order by duration_ms)
        filter (where finished_at >= now() - interval '1 hour' and status = 'succeeded') as hour_p95,
      count(*) as day_finished,
      count(*) filter (where status = 'succeeded') as day_succeeded,
      percentile_cont(0.5) within group (order by duration_ms) filter (where status = 'succeeded') as day_p50,
      percentile_cont(0.95) within group (order by duration_ms) filter (where status = 'succeeded') as day_p95
    from generation
    where finished_at >= now() - interval '24 hours' and status in ('succeeded', 'failed')
    group by model_id`);
  return new Map(rowsOf(result).map((row) => [String(row.model_id), row]));
}

/**
 * Jobs waiting and running, and a video's wait: how long videos recently waited for a worker (the median over the
 * last hour) plus how long the first offered video model typically runs.
 */
async function readQueue(runtime: Runtime, video: CatalogModel | undefined): Promise<SystemStatus["queue"]> {
  const [counts, waits] = await Promise.all([
    runtime.database.db.execute(sql`
      select count(*) filter (where status = 'queued') as queued,
             count(*) filter (where status = 'processing') as processing
      from generation where status in ('queued', 'processing')`),
    runtime.database.db.execute(sql`
      select percentile_cont(0.5) within group (order by extract(epoch from started_at - created_at)) as wait
      from generation
      where kind = 'video' and started_at >= now() - interval '1 hour'`),
  ]);
  const row = rowsOf(counts)[0] ?? {};
  const queueWait = num(rowsOf(waits)[0]?.wait) ?? 0;
  const run = video ? await typicalSeconds({ db: runtime.database.db, model: video }) : null;
  return {
    queued: Number(row.queued ?? 0),
    processing: Number(row.processing ?? 0),
    videoWaitSeconds: run === null ? null : Math.ceil(queueWait + run),
  };
}

const settle = async (check: () => Promise<unknown>): Promise<State> => {
  try {
    const ok = await withTimeout(check(), CHECK_TIMEOUT_MS);
    return ok === false ? "down" : "operational";
  } catch {
    return "down";
  }
};

/** Reads the system's state now: each component checked, each model's outcomes read, the queue measured. */
export async function readSystemStatus(runtime: Runtime, previous: SystemStatus | null): Promise<SystemStatus> {
  const { env } = runtime;
  const offered = offeredModels(env);
  const [database, queue, storage] = await Promise.all([
    settle(() => runtime.database.ping()),
    settle(() => runtime.boss.isInstalled()),
    settle(() => runtime.storage.check()),
  ]);
  let read: { outcomes: Map<string, Row>; queue: SystemStatus["queue"] } | null = null;
  if (database === "operational") {
    try {
      const video = offered.find((m) => m.kind === "video");
      const [rows, waiting] = await withTimeout(
        Promise.all([readOutcomes(runtime), readQueue(runtime, video)]),
        CHECK_TIMEOUT_MS,
      );
      read = { outcomes: rows, queue: waiting };
    } catch {
      read = null;
    }
  }
  const catalog = [...modelCatalog, ...offered.filter((m) => !modelCatalog.some((c) => c.id === m.id))];
  const models: ModelStatus[] = catalog.map((model) => {
    const base = { id: model.id, name: model.name, kind: model.kind };
    if (!offered.some((m) => m.id === model.id)) {
      return { ...base, state: "not_configured", lastHour: NONE, lastDay: NONE };
    }
    if (!read) {
      // Without the database, the last reading is the best there is; before any, nothing is known.
      const known = previous?.models.find((m) => m.id === model.id);
      return known ? { ...known, ...base } : { ...base, state: "unknown", lastHour: NONE, lastDay: NONE };
    }
    const row = read.outcomes.get(model.id);
    const lastHour = outcomes(row, "hour");
    const lastDay = outcomes(row, "day");
    return { ...base, state: modelState(lastHour, lastDay), lastHour, lastDay };
  });
  const components: SystemStatus["components"] = [
    { id: "web", state: "operational" },
    { id: "database", state: database, kind: runtime.database.kind === "pglite" ? "embedded" : "postgresql" },
    { id: "queue", state: queue },
    { id: "storage", state: storage, kind: runtime.storage.kind },
    { id: "email", state: runtime.mailer.kind === "smtp" ? "operational" : "not_configured" },
    { id: "payments", state: runtime.stripe ? "operational" : "not_configured" },
  ];
  // Offered models first, then the others, each group in the catalog's order
  models.sort((a, b) => Number(a.state === "not_configured") - Number(b.state === "not_configured"));
  return {
    checkedAt: new Date().toISOString(),
    overall: overallState(components, models),
    components,
    models,
    queue: read?.queue ?? previous?.queue ?? null,
  };
}

const readers = new WeakMap<Runtime, () => Promise<SystemStatus>>();

/**
 * The system's state, read at most once per `STATUS_TTL_MS` however many ask (concurrent askers share one reading),
 * so the status page and its JSON cost nothing under load.
 */
export function getSystemStatus(runtime: Runtime): Promise<SystemStatus> {
  let reader = readers.get(runtime);
  if (!reader) {
    let last: { at: number; status: SystemStatus } | null = null;
    let reading: Promise<SystemStatus> | null = null;
    reader = async () => {
      if (last && Date.now() - last.at < STATUS_TTL_MS) return last.status;
      reading ??= readSystemStatus(runtime, last?.status ?? null)
        .then((status) => {
          last = { at: Date.now(), status };
          return status;
        })
        .finally(() => {
          reading = null;
        });
      return reading;
    };
    readers.set(runtime, reader);
  }
  return reader();
}
