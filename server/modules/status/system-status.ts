import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import type { Runtime } from "#server/runtime.ts";
import { modelCatalog, type CatalogModel } from "#config/models.ts";
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

// Filters of the outcome query: jobs finished in the last hour, and those of them that succeeded
const inLastHour = sql`${generation.finishedAt} >= now() - interval '1 hour'`;
const isSucceeded = sql`${generation.status} = 'succeeded'`;
const count = (filter?: SQL) => (filter ? sql`count(*) filter (where ${filter})` : sql`count(*)`).mapWith(Number);
/** A percentile of the successful jobs' run time, in seconds to a tenth; null without any. */
const percentile = (fraction: number, filter: SQL) =>
  sql`round((percentile_cont(${sql.raw(String(fraction))}) within group (order by ${generation.durationMs}) filter (where ${filter}))::numeric / 1000, 1)`.mapWith(
    (value) => (value === null ? null : Number(value)),
  );

type OutcomeRow = { finished: number; succeeded: number; p50: number | null; p95: number | null };

function outcomes(row: OutcomeRow | undefined): Outcomes {
  if (!row) return NONE;
  return {
    finished: row.finished,
    succeeded: row.succeeded,
    failed: row.finished - row.succeeded,
    successRate: row.finished > 0 ? Math.round((row.succeeded / row.finished) * 1000) / 1000 : null,
    p50Seconds: row.p50,
    p95Seconds: row.p95,
  };
}

/** Each model's outcomes over the last hour and day, in one query over the jobs finished in the last day. */
async function readOutcomes(db: Db) {
  const rows = await db
    .select({
      modelId: generation.modelId,
      hour: {
        finished: count(inLastHour),
        succeeded: count(and(inLastHour, isSucceeded)),
        p50: percentile(0.5, and(inLastHour, isSucceeded)!),
        p95: percentile(0.95, and(inLastHour, isSucceeded)!),
      },
      day: {
        finished: count(),
        succeeded: count(isSucceeded),
        p50: percentile(0.5, isSucceeded),
        p95: percentile(0.95, isSucceeded),
      },
    })
    .from(generation)
    .where(
      and(
        sql`${generation.finishedAt} >= now() - interval '24 hours'`,
        inArray(generation.status, ["succeeded", "failed"]),
      ),
    )
    .groupBy(generation.modelId);
  return new Map(rows.map((row) => [row.modelId, row]));
}

/**
 * Jobs waiting and running, and a video's wait: how long videos recently waited for a worker (the median over the
 * last hour) plus how long the first offered video model typically runs.
 */
async function readQueue(db: Db, video: CatalogModel | undefined): Promise<SystemStatus["queue"]> {
  const [[open], [waits]] = await Promise.all([
    db
      .select({
        queued: count(eq(generation.status, "queued")),
        processing: count(eq(generation.status, "processing")),
      })
      .from(generation)
      .where(inArray(generation.status, ["queued", "processing"])),
    db
      .select({
        seconds:
          sql`percentile_cont(0.5) within group (order by extract(epoch from ${generation.startedAt} - ${generation.createdAt}))`.mapWith(
            Number,
          ),
      })
      .from(generation)
      .where(and(eq(generation.kind, "video"), sql`${generation.startedAt} >= now() - interval '1 hour'`)),
  ]);
  const run = video ? await typicalSeconds({ db, model: video }) : null;
  return {
    queued: open?.queued ?? 0,
    processing: open?.processing ?? 0,
    videoWaitSeconds: run === null ? null : Math.ceil((waits?.seconds ?? 0) + run),
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
  // The public status lists the models offered to everyone, and the built-in ones not offered here.
  const offered = runtime.models.media();
  const [database, queue, storage] = await Promise.all([
    settle(() => runtime.database.ping()),
    settle(() => runtime.boss.isInstalled()),
    settle(() => runtime.storage.check()),
  ]);
  let read: { outcomes: Awaited<ReturnType<typeof readOutcomes>>; queue: SystemStatus["queue"] } | null = null;
  if (database === "operational") {
    try {
      const video = offered.find((m) => m.kind === "video");
      const db = runtime.database.db;
      const [rows, waiting] = await withTimeout(
        Promise.all([readOutcomes(db), readQueue(db, video)]),
        CHECK_TIMEOUT_MS,
      );
      read = { outcomes: rows, queue: waiting };
    } catch {
      read = null;
    }
  }
  const catalog = [
    ...offered,
    ...modelCatalog.filter((c) => !offered.some((m) => m.id === c.id)).map((c) => runtime.models.anyMedia(c.id) ?? c),
  ];
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
    const hour = outcomes(row?.hour);
    const day = outcomes(row?.day);
    return { ...base, state: modelState(hour, day), lastHour: hour, lastDay: day };
  });
  const components: SystemStatus["components"] = [
    { id: "web", state: "operational" },
    { id: "database", state: database, kind: runtime.database.kind === "pglite" ? "embedded" : "postgresql" },
    { id: "queue", state: queue },
    { id: "storage", state: storage, kind: runtime.storage.kind },
    { id: "email", state: runtime.mailer.kind === "smtp" ? "operational" : "not_configured" },
    { id: "payments", state: runtime.stripe ? "operational" : "not_configured" },
  ];
  // Offered models first (in the catalog's order), then the others.
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
 * so the status page and its JSON cost nothing under load. A change of the catalog (a model added, enabled or
 * disabled, here or by another process) is read at once: the models offered are never older than the catalog.
 */
export function getSystemStatus(runtime: Runtime): Promise<SystemStatus> {
  let reader = readers.get(runtime);
  if (!reader) {
    let last: { at: number; status: SystemStatus; catalog: number } | null = null;
    let reading: Promise<SystemStatus> | null = null;
    let catalog = 0;
    runtime.models.onChange(() => {
      catalog++;
      reading = null;
    });
    reader = async () => {
      if (last && last.catalog === catalog && Date.now() - last.at < STATUS_TTL_MS) return last.status;
      if (reading) return reading;
      const readFor = catalog;
      const current: Promise<SystemStatus> = readSystemStatus(runtime, last?.status ?? null)
        .then((status) => {
          if (readFor === catalog) last = { at: Date.now(), status, catalog: readFor };
          return status;
        })
        .finally(() => {
          if (reading === current) reading = null;
        });
      reading = current;
      return current;
    };
    readers.set(runtime, reader);
  }
  return reader();
}
