import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import {
  JOB_DURATION_BUCKETS,
  JOB_OUTCOMES,
  JOB_STATES,
  NO_DURATION,
  type JobMetricsSnapshot,
} from "#server/modules/job-metrics/schema.ts";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const httpRequests = new Counter({
  name: "http_requests_total",
  help: "HTTP requests by method, route and status",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
});

const httpDuration = new Histogram({
  name: "http_request_duration_seconds",
  help: "HTTP request latency by method, route and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const jobsProcessed = new Counter({
  name: "jobs_processed_total",
  help: "Jobs this process ran, by queue and outcome (completed or failed); see atelier_jobs_finished_total for the installation",
  labelNames: ["queue", "outcome"] as const,
  registers: [registry],
});

const jobDuration = new Histogram({
  name: "job_duration_seconds",
  help: "Run time of the jobs this process ran, by queue; see atelier_job_duration_seconds for the installation",
  labelNames: ["queue"] as const,
  buckets: [...JOB_DURATION_BUCKETS],
  registers: [registry],
});

// Label children by method, route and status: the set is small (routes are patterns), and a child skips the
// label hashing every request would otherwise pay.
type Labels = "method" | "route" | "status";
const requestSeries = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<Labels> }>();

export function recordRequest(method: string, route: string, status: number, started: bigint): void {
  const key = `${method} ${route} ${status}`;
  let series = requestSeries.get(key);
  if (!series) {
    const labels = { method, route, status: String(status) };
    series = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
    requestSeries.set(key, series);
  }
  series.count.inc();
  series.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
}

export function recordJob(queue: string, outcome: "completed" | "failed", started: bigint): void {
  jobsProcessed.inc({ queue, outcome });
  jobDuration.observe({ queue }, Number(process.hrtime.bigint() - started) / 1e9);
}

type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric whose values come from the installation's job snapshot, for a registry to print. */
function snapshotMetric(
  target: Registry,
  name: string,
  type: "gauge" | "counter" | "histogram",
  help: string,
  values: (snapshot: JobMetricsSnapshot) => MetricValue[],
  read: () => Promise<JobMetricsSnapshot | null>,
): void {
  target.removeSingleMetric(name);
  target.registerMetric({
    name,
    help,
    type,
    // prom-client's own metrics carry these; the registry calls get() and reset() only.
    aggregator: "first",
    async get() {
      const snapshot = await read();
      return { name, help, type, aggregator: "first", values: snapshot ? values(snapshot) : [] };
    },
    reset() {},
  } as unknown as Parameters<Registry["registerMetric"]>[0]);
}

/** Waiting and running jobs by queue and state. */
export function depthValues(snapshot: JobMetricsSnapshot): MetricValue[] {
  const values = new Map<string, MetricValue>();
  for (const queue of snapshot.queues)
    for (const state of JOB_STATES) values.set(`${queue}\u0000${state}`, { labels: { queue, state }, value: 0 });
  for (const d of snapshot.depth)
    values.set(`${d.queue}\u0000${d.state}`, { labels: { queue: d.queue, state: d.state }, value: d.jobs });
  return [...values.values()];
}

/** Finished jobs by queue and outcome, whatever their duration. */
export function finishedValues(snapshot: JobMetricsSnapshot): MetricValue[] {
  const totals = new Map<string, MetricValue>();
  for (const queue of snapshot.queues)
    for (const outcome of JOB_OUTCOMES)
      totals.set(`${queue}\u0000${outcome}`, { labels: { queue, outcome }, value: 0 });
  for (const row of snapshot.tally) {
    const key = `${row.queue}\u0000${row.outcome}`;
    const total = totals.get(key) ?? { labels: { queue: row.queue, outcome: row.outcome }, value: 0 };
    total.value += row.jobs;
    totals.set(key, total);
  }
  return [...totals.values()];
}

/**
 * The duration histogram by queue from the stored buckets: each stored row is counted in the smallest current bound
 * at or above its own, and each bucket printed holds every run up to its bound (cumulative), +Inf all of them.
 */
export function durationValues(snapshot: JobMetricsSnapshot, name = "atelier_job_duration_seconds"): MetricValue[] {
  const bounds = [...JOB_DURATION_BUCKETS, Infinity];
  const queues = new Map<string, { counts: number[]; sum: number }>();
  for (const queue of snapshot.queues) queues.set(queue, { counts: bounds.map(() => 0), sum: 0 });
  for (const row of snapshot.tally) {
    if (row.le === NO_DURATION) continue;
    let queue = queues.get(row.queue);
    if (!queue) {
      queue = { counts: bounds.map(() => 0), sum: 0 };
      queues.set(row.queue, queue);
    }
    const index = bounds.findIndex((bound) => row.le <= bound);
    queue.counts[index === -1 ? bounds.length - 1 : index]! += row.jobs;
    queue.sum += row.seconds;
  }
  const values: MetricValue[] = [];
  for (const [queue, { counts, sum }] of queues) {
    let cumulative = 0;
    bounds.forEach((bound, i) => {
      cumulative += counts[i]!;
      values.push({
        metricName: `${name}_bucket`,
        labels: { le: bound === Infinity ? "+Inf" : bound, queue },
        value: cumulative,
      });
    });
    values.push({ metricName: `${name}_sum`, labels: { queue }, value: sum });
    values.push({ metricName: `${name}_count`, labels: { queue }, value: cumulative });
  }
  return values;
}

/** How long one read of the job figures serves scrapes, so any number of scrapers costs one query per window. */
export const JOB_METRICS_TTL_MS = 5000;

/**
 * Exports the installation's job figures, read from the database when /metrics is scraped and kept for a few seconds:
 * queue depth, finished jobs by outcome and job durations. Every process reports the same values. A database that
 * cannot be read leaves these series out rather than failing the whole scrape.
 */
export function registerJobMetrics(
  source: () => Promise<JobMetricsSnapshot>,
  options: { registry?: Registry; ttlMs?: number; onError?: (error: Error) => void } = {},
): void {
  const target = options.registry ?? registry;
  const ttl = options.ttlMs ?? JOB_METRICS_TTL_MS;
  // The three metrics of one scrape share a read in flight; later scrapes share it for the window after it ends.
  let cached: { at: number; snapshot: Promise<JobMetricsSnapshot | null> } | undefined;
  const read = () => {
    if (!cached || (cached.at !== 0 && Date.now() - cached.at >= ttl)) {
      const entry = { at: 0, snapshot: Promise.resolve<JobMetricsSnapshot | null>(null) };
      entry.snapshot = source()
        .catch((error: Error) => {
          options.onError?.(error);
          return null;
        })
        .finally(() => {
          entry.at = Date.now();
        });
      cached = entry;
    }
    return cached.snapshot;
  };
  snapshotMetric(
    target,
    "job_queue_depth",
    "gauge",
    "Jobs of the installation by queue and state: queued (waiting to run), retry (waiting to be retried), active (running)",
    depthValues,
    read,
  );
  snapshotMetric(
    target,
    "atelier_jobs_finished_total",
    "counter",
    "Jobs of the installation that finished a run, by queue and outcome: completed, retried (failed, will run again), failed (given up)",
    finishedValues,
    read,
  );
  snapshotMetric(
    target,
    "atelier_job_duration_seconds",
    "histogram",
    "Run time of the installation's jobs by queue (runs ended by pg-boss's timeout not included)",
    (snapshot) => durationValues(snapshot),
    read,
  );
}

const pageCacheRequests = new Counter({
  name: "page_cache_requests_total",
  help: "Requests that could be answered from the page cache, by result (hit or miss)",
  labelNames: ["result"] as const,
  registers: [registry],
});
const pageCacheHit = pageCacheRequests.labels({ result: "hit" });
const pageCacheMiss = pageCacheRequests.labels({ result: "miss" });

export function recordPageCache(result: "hit" | "miss"): void {
  (result === "hit" ? pageCacheHit : pageCacheMiss).inc();
}

/** The page cache's size, read when /metrics is scraped. */
export function registerPageCacheSize(source: () => { pages: number; bytes: number }): void {
  registry.removeSingleMetric("page_cache_bytes");
  registry.removeSingleMetric("page_cache_pages");
  new Gauge({
    name: "page_cache_bytes",
    help: "Bytes held by the page cache (pages with their compressed copies)",
    registers: [registry],
    collect() {
      this.set(source().bytes);
    },
  });
  new Gauge({
    name: "page_cache_pages",
    help: "Pages held by the page cache",
    registers: [registry],
    collect() {
      this.set(source().pages);
    },
  });
}

const requestsShed = new Counter({
  name: "http_requests_shed_total",
  help: "Requests refused with 503 because the process was working as many as it may and their turn would come too late",
  registers: [registry],
});

export function recordShed(): void {
  requestsShed.inc();
}

/** How many requests the admission bound is working and holding back, read when /metrics is scraped. */
export function registerAdmission(source: () => { inProgress: number; waiting: number }): void {
  registry.removeSingleMetric("http_requests_in_progress");
  registry.removeSingleMetric("http_requests_waiting");
  new Gauge({
    name: "http_requests_in_progress",
    help: "Requests under the admission bound being worked now (pages rendered, API calls)",
    registers: [registry],
    collect() {
      this.set(source().inProgress);
    },
  });
  new Gauge({
    name: "http_requests_waiting",
    help: "Requests waiting for their turn under the admission bound",
    registers: [registry],
    collect() {
      this.set(source().waiting);
    },
  });
}
