import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerJobMetrics } from "#server/metrics.ts";
import type { JobMetricsSnapshot } from "#server/modules/job-metrics/schema.ts";

const snapshot: JobMetricsSnapshot = {
  queues: ["generation.run", "mail.send", "webhook.deliver"],
  depth: [
    { queue: "generation.run", state: "queued", jobs: 4 },
    { queue: "generation.run", state: "retry", jobs: 1 },
    { queue: "generation.run", state: "active", jobs: 2 },
  ],
  tally: [
    { queue: "generation.run", outcome: "completed", le: 1, jobs: 3, seconds: 2.25 },
    { queue: "generation.run", outcome: "completed", le: 60, jobs: 2, seconds: 70 },
    { queue: "generation.run", outcome: "retried", le: 0.05, jobs: 1, seconds: 0.02 },
    { queue: "generation.run", outcome: "retried", le: -1, jobs: 2, seconds: 0 },
    { queue: "generation.run", outcome: "failed", le: Infinity, jobs: 1, seconds: 4000 },
    { queue: "mail.send", outcome: "completed", le: 0.1, jobs: 5, seconds: 0.3 },
    // A bound no longer in use counts in the next one up (60 here).
    { queue: "mail.send", outcome: "failed", le: 30, jobs: 1, seconds: 30 },
  ],
};

async function scrape(source: () => Promise<JobMetricsSnapshot>, ttlMs = 0) {
  const registry = new Registry();
  registerJobMetrics(source, { registry, ttlMs });
  return { registry, text: () => registry.metrics() };
}

function lines(text: string, prefix: string) {
  return text.split("\n").filter((line) => line.startsWith(prefix));
}

describe("the installation's job metrics", () => {
  it("prints queue depth by state and finished jobs by outcome (summed over duration buckets), 0 where none", async () => {
    const { text } = await scrape(async () => snapshot);
    const out = await text();
    expect(out).toContain("# TYPE job_queue_depth gauge");
    expect(lines(out, "job_queue_depth{")).toEqual([
      'job_queue_depth{queue="generation.run",state="queued"} 4',
      'job_queue_depth{queue="generation.run",state="retry"} 1',
      'job_queue_depth{queue="generation.run",state="active"} 2',
      'job_queue_depth{queue="mail.send",state="queued"} 0',
      'job_queue_depth{queue="mail.send",state="retry"} 0',
      'job_queue_depth{queue="mail.send",state="active"} 0',
      'job_queue_depth{queue="webhook.deliver",state="queued"} 0',
      'job_queue_depth{queue="webhook.deliver",state="retry"} 0',
      'job_queue_depth{queue="webhook.deliver",state="active"} 0',
    ]);
    expect(out).toContain("# TYPE atelier_jobs_finished_total counter");
    expect(lines(out, "atelier_jobs_finished_total{")).toEqual([
      'atelier_jobs_finished_total{queue="generation.run",outcome="completed"} 5',
      'atelier_jobs_finished_total{queue="generation.run",outcome="retried"} 3',
      'atelier_jobs_finished_total{queue="generation.run",outcome="failed"} 1',
      'atelier_jobs_finished_total{queue="mail.send",outcome="completed"} 5',
      'atelier_jobs_finished_total{queue="mail.send",outcome="retried"} 0',
      'atelier_jobs_finished_total{queue="mail.send",outcome="failed"} 1',
      'atelier_jobs_finished_total{queue="webhook.deliver",outcome="completed"} 0',
      'atelier_jobs_finished_total{queue="webhook.deliver",outcome="retried"} 0',
      'atelier_jobs_finished_total{queue="webhook.deliver",outcome="failed"} 0',
    ]);
  });

  it("prints durations as a histogram: cumulative buckets up to +Inf, the sum and the count of measured runs", async () => {
    const { text } = await scrape(async () => snapshot);
    const out = await text();
    expect(out).toContain("# TYPE atelier_job_duration_seconds histogram");
    const series = lines(out, "atelier_job_duration_seconds").filter((l) => l.includes('queue="generation.run"'));
    expect(series).toEqual([
      'atelier_job_duration_seconds_bucket{le="0.01",queue="generation.run"} 0',
      'atelier_job_duration_seconds_bucket{le="0.05",queue="generation.run"} 1',
      'atelier_job_duration_seconds_bucket{le="0.1",queue="generation.run"} 1',
      'atelier_job_duration_seconds_bucket{le="0.5",queue="generation.run"} 1',
      'atelier_job_duration_seconds_bucket{le="1",queue="generation.run"} 4',
      'atelier_job_duration_seconds_bucket{le="5",queue="generation.run"} 4',
      'atelier_job_duration_seconds_bucket{le="15",queue="generation.run"} 4',
      'atelier_job_duration_seconds_bucket{le="60",queue="generation.run"} 6',
      'atelier_job_duration_seconds_bucket{le="300",queue="generation.run"} 6',
      'atelier_job_duration_seconds_bucket{le="900",queue="generation.run"} 6',
      'atelier_job_duration_seconds_bucket{le="1800",queue="generation.run"} 6',
      'atelier_job_duration_seconds_bucket{le="+Inf",queue="generation.run"} 7',
      'atelier_job_duration_seconds_sum{queue="generation.run"} 4072.27',
      'atelier_job_duration_seconds_count{queue="generation.run"} 7',
    ]);
    const mail = lines(out, "atelier_job_duration_seconds").filter((l) => l.includes('queue="mail.send"'));
    expect(mail).toContain('atelier_job_duration_seconds_bucket{le="15",queue="mail.send"} 5');
    expect(mail).toContain('atelier_job_duration_seconds_bucket{le="60",queue="mail.send"} 6');
    expect(mail).toContain('atelier_job_duration_seconds_count{queue="mail.send"} 6');
    const idle = lines(out, "atelier_job_duration_seconds").filter((l) => l.includes('queue="webhook.deliver"'));
    expect(idle).toHaveLength(14);
    expect(idle.every((l) => l.endsWith(" 0"))).toBe(true);
  });

  it("leaves the job series out when the database cannot be read, and prints them again once it can", async () => {
    let down = true;
    const errors: string[] = [];
    const registry = new Registry();
    registerJobMetrics(
      async () => {
        if (down) throw new Error("connection refused");
        return snapshot;
      },
      { registry, ttlMs: 0, onError: (e) => errors.push(e.message) },
    );
    const failing = await registry.metrics();
    expect(failing).toContain("# TYPE atelier_jobs_finished_total counter");
    expect(failing).not.toMatch(/^atelier_jobs_finished_total\{/m);
    expect(failing).not.toMatch(/^job_queue_depth\{/m);
    expect(errors).toEqual(["connection refused"]);
    down = false;
    expect(await registry.metrics()).toMatch(/^atelier_jobs_finished_total\{queue="mail.send",outcome="failed"\} 1$/m);
  });

  it("reads the database once for any number of scrapes within its window", async () => {
    let reads = 0;
    const { text } = await scrape(async () => {
      reads++;
      return snapshot;
    }, 60_000);
    await Promise.all([text(), text(), text()]);
    await text();
    expect(reads).toBe(1);
  });
});
