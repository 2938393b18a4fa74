import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

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
  help: "Jobs handled by this process by queue and outcome",
  labelNames: ["queue", "outcome"] as const,
  registers: [registry],
});

const jobDuration = new Histogram({
  name: "job_duration_seconds",
  help: "Job handler duration by queue",
  labelNames: ["queue"] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
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

export interface QueueDepthSource {
  (): Promise<{ name: string; queued: number; active: number }[]>;
}

/** The queue depth is read from the database when /metrics is scraped. */
export function registerQueueDepth(source: QueueDepthSource): void {
  registry.removeSingleMetric("job_queue_depth");
  new Gauge({
    name: "job_queue_depth",
    help: "Jobs waiting (queued) and running (active) by queue",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const q of await source()) {
          this.set({ queue: q.name, state: "queued" }, q.queued);
          this.set({ queue: q.name, state: "active" }, q.active);
        }
      } catch {
        // database unreachable: the gauge is left empty rather than failing the whole scrape
      }
    },
  });
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
