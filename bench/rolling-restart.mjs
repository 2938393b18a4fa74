// A rolling restart under load: two web processes on one PostgreSQL database (and one data folder) behind a small
// load balancer that asks each one's /readyz every 200 ms and routes only to the ready ones, with no retry. A steady
// load of GET requests runs through it while each process in turn is stopped with SIGTERM, waited for, started again
// and waited for until the balancer routes to it. Counts every answer, every request cut (the connection failed) and
// every 5xx. Needs the build (bench/run.mjs makes it). Prints one JSON object on stdout.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { startBalancer, steadyLoad } from "../tests/support/balancer.ts";
import { benchDatabase, sparePort } from "./postgres.mjs";
import { startWeb } from "./web.mjs";

const HOST = "127.0.0.1";
const SETTINGS = {
  processes: 2,
  concurrency: 8,
  shutdownDelaySeconds: 2,
  healthCheckIntervalMs: 200,
  // Load before and after the restarts, so that the figures cover a steady state on both sides.
  steadySeconds: 3,
  paths: ["/pricing", "/api/v1/openapi.json", "/healthz", "/docs"],
};
const READY_MS = 120_000;
const EXIT_MS = 60_000;

const cleanup = [];
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

async function until(what, check, timeoutMs, web) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${web ? `\n${web.output()}` : ""}`);
}

const ready = (url) => async () => (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) })).ok;

async function rollingRestart(databaseUrl) {
  const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-rolling-"));
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const ports = [await sparePort(), await sparePort()];
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SITE_URL: `http://${HOST}:8080`,
    AUTH_SECRET: randomBytes(32).toString("hex"),
    SHUTDOWN_DELAY_SECONDS: String(SETTINGS.shutdownDelaySeconds),
    PAGE_RATE_LIMIT_PER_MINUTE: "0",
  };
  const webs = [];
  // One after the other: the first start migrates the new database.
  for (const port of ports) {
    const web = startWeb(env, { port, host: HOST });
    await until("a web process to be ready", ready(web.url), READY_MS, web);
    webs.push(web);
  }
  const balancer = await startBalancer(
    webs.map((w) => w.url),
    { checkIntervalMs: SETTINGS.healthCheckIntervalMs },
  );
  cleanup.push(() => balancer.close());
  const load = steadyLoad(balancer.url, SETTINGS.paths, SETTINGS.concurrency);
  const loadStarted = performance.now();
  await sleep(SETTINGS.steadySeconds * 1000);
  const restartStarted = performance.now();
  const processes = [];
  for (const i of [0, 1]) {
    const old = webs[i];
    const signalled = performance.now();
    old.child.kill("SIGTERM");
    const code = await Promise.race([old.exited, sleep(EXIT_MS).then(() => "did not exit")]);
    const stopMs = performance.now() - signalled;
    const started = performance.now();
    const web = startWeb(env, { port: ports[i], host: HOST });
    webs[i] = web;
    await until("the restarted process to be ready", ready(web.url), READY_MS, web);
    const startToReadyMs = Math.round(performance.now() - started);
    await until("the restarted process to be routed to", async () => balancer.ready().includes(web.url), READY_MS, web);
    processes.push({
      exitCode: code,
      stopMs: Math.round(stopMs),
      startToReadyMs,
      startToRoutedMs: Math.round(performance.now() - started),
    });
  }
  const restartMs = performance.now() - restartStarted;
  await sleep(SETTINGS.steadySeconds * 1000);
  const result = await load.stop();
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  for (const web of webs) {
    web.child.kill("SIGTERM");
    await Promise.race([web.exited, sleep(EXIT_MS)]);
  }
  const answered = Object.values(result.byStatus).reduce((a, b) => a + b, 0);
  // The backends' own answers (the balancer's 502 and 503 for what it could not forward are counted as cut).
  const serverErrors = Object.entries(balancer.stats.byStatus)
    .filter(([status]) => Number(status) >= 500)
    .reduce((a, [, n]) => a + n, 0);
  return {
    requests: result.requests,
    answered,
    // Cut: the connection to the backend failed (the balancer answered 502); no backend: none was ready (503).
    cut: balancer.stats.cut,
    noBackend: balancer.stats.noBackend,
    serverErrors,
    failed: result.failed,
    byStatus: result.byStatus,
    byBackendPort: Object.fromEntries(
      Object.entries(balancer.stats.byBackend).map(([url, n]) => [new URL(url).port, n]),
    ),
    errors: balancer.stats.errors,
    restartMs: Math.round(restartMs),
    loadSeconds: round(loadSeconds),
    requestsPerSecond: round(result.requests / loadSeconds),
    processes,
  };
}

const report = { settings: SETTINGS };
let database = null;
try {
  database = await benchDatabase();
  if (!database) report.skipped = "no PostgreSQL server binaries and no BENCH_DATABASE_URL";
  else Object.assign(report, await rollingRestart(database.url));
} catch (error) {
  report.error = String(error.message ?? error);
} finally {
  for (const step of cleanup.reverse()) await step();
  await database?.dispose().catch(() => undefined);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
