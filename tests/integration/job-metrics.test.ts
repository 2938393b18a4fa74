import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { PgBoss } from "pg-boss";
import {
  freePort,
  runRole,
  startServer,
  tempDir,
  TEST_DATABASE_URL,
  waitFor,
  type RunningProcess,
  type TestServer,
} from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";

const PURGE = "maintenance.purge-expired-sessions";
const MAIL = "mail.send";
const TOKEN = "metrics-token-for-the-whole-test";

/** The value of one series in a /metrics text, or undefined when it is not there. */
function series(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    const match = /^([\w:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2]!.split(",");
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(match[3]);
  }
  return undefined;
}

describe.skipIf(!TEST_DATABASE_URL)("job metrics of an installation scaled out on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let web: TestServer;
  let worker: RunningProcess;
  let workerUrl: string;
  let metricsPort: number;
  const dataDir = tempDir("atelier-shared-");

  beforeAll(async () => {
    db = await createTestDatabase();
    const port = await freePort();
    const shared = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      SITE_URL: `http://127.0.0.1:${port}`,
      AUTH_SECRET: randomBytes(32).toString("hex"),
      METRICS_TOKEN: TOKEN,
    };
    web = await startServer({ ...shared, PORT: String(port), WORKER: "off" });
    metricsPort = await freePort();
    // Its mail server refuses connections: every e-mail job fails.
    const closedSmtp = await freePort();
    worker = runRole("worker", {
      ...shared,
      HOST: "127.0.0.1",
      WORKER_METRICS_PORT: String(metricsPort),
      SMTP_URL: `smtp://127.0.0.1:${closedSmtp}`,
    });
    workerUrl = `http://127.0.0.1:${metricsPort}`;
    await waitFor("the worker to be ready", async () => (await fetch(`${workerUrl}/readyz`)).status === 200, {
      output: worker.output,
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await web?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const scrape = async (base: string) => {
    const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  it("answers the worker's health and readiness probes, and nothing else", async () => {
    const health = await fetch(`${workerUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${workerUrl}/readyz`);
    expect(await ready.json()).toEqual({ status: "ok", checks: { database: "ok", queue: "ok" } });
    expect((await fetch(`${workerUrl}/`)).status).toBe(404);
    expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401);
  });

  it("shows every job the worker ran, with its outcome and duration, on the web process that ran none", async () => {
    const boss = new PgBoss({ connectionString: db.url, schema: "pgboss", supervise: false, schedule: false });
    boss.on("error", () => undefined);
    await boss.start();
    try {
      await boss.send(PURGE, {});
      // Fails (the mail server is down), is retried once at once, fails again and is given up.
      await boss.send(
        MAIL,
        { to: "ada@example.com", kind: "verifyEmail", locale: "en", name: "Ada", url: "http://127.0.0.1/x" },
        { retryLimit: 1, retryDelay: 0 },
      );
    } finally {
      await boss.stop({ graceful: false });
    }

    let text = "";
    await waitFor(
      "the web process's metrics to show the jobs",
      async () => {
        text = await scrape(web.url);
        return (
          (series(text, "atelier_jobs_finished_total", { queue: PURGE, outcome: "completed" }) ?? 0) >= 1 &&
          series(text, "atelier_jobs_finished_total", { queue: MAIL, outcome: "failed" }) === 1
        );
      },
      { output: () => `${worker.output()}\n--- web /metrics ---\n${text}` },
    );
    expect(series(text, "atelier_jobs_finished_total", { queue: MAIL, outcome: "retried" })).toBe(1);
    expect(series(text, "atelier_jobs_finished_total", { queue: MAIL, outcome: "completed" })).toBe(0);
    // Both runs of the e-mail were measured: every bucket up to +Inf holds what the smaller ones hold.
    expect(series(text, "atelier_job_duration_seconds_count", { queue: MAIL })).toBe(2);
    expect(series(text, "atelier_job_duration_seconds_bucket", { queue: MAIL, le: "+Inf" })).toBe(2);
    const buckets = text
      .split("\n")
      .filter((l) => l.startsWith("atelier_job_duration_seconds_bucket{") && l.includes(`queue="${MAIL}"`))
      .map((l) => Number(l.split(" ")[1]));
    expect(buckets.length).toBeGreaterThan(2);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(series(text, "atelier_job_duration_seconds_sum", { queue: MAIL })).toBeGreaterThan(0);
    expect(series(text, "job_queue_depth", { queue: MAIL, state: "active" }) ?? 0).toBe(0);
    // This process ran no job: it has no counts of its own.
    expect(text).not.toMatch(/^jobs_processed_total\{/m);

    const fromWorker = await scrape(workerUrl);
    expect(series(fromWorker, "atelier_jobs_finished_total", { queue: MAIL, outcome: "failed" })).toBe(1);
    expect(series(fromWorker, "atelier_jobs_finished_total", { queue: MAIL, outcome: "retried" })).toBe(1);
    expect(series(fromWorker, "jobs_processed_total", { queue: MAIL, outcome: "failed" })).toBe(2);
  });

  it("refuses to start a second worker on a metrics port in use, with one plain line", async () => {
    const second = runRole("worker", {
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      WORKER_METRICS_PORT: String(metricsPort),
    });
    expect(await second.exited).toBe(1);
    expect(second.output().trim()).toBe(
      `Port ${metricsPort} on 127.0.0.1 is already in use; stop the other server or set WORKER_METRICS_PORT.`,
    );
  });
});
