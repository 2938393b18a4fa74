// The generation path's own overhead, on PostgreSQL, with a provider that answers at once: what Atelier adds between
// a developer's POST /api/v1/images and the finished image, and how finished images per second grow with worker
// processes (the scale-out story, measured).
//
// One web process (WORKER=off) and 1, 2 and then 4 worker processes (`npm run worker`), all from the build, on one
// PostgreSQL database and one data folder. The provider is the fal fake of the tests (tests/fakes/fal.ts, fal's
// published contract), in this process, reached over HTTP through FAL_BASE_URL; the model is the built-in
// `flux-schnell`. Each image goes the whole way a real one goes: the provider's answer, the download, the checks,
// the provenance marks, storage, the ledger.
//
// 1. Idle: images one after the other with one worker: submit → running (the row's own timestamps), the POST's
//    latency, and submit → succeeded as the public API's poll shows it (polled every 5 ms).
// 2. Throughput: JOBS images sent by CLIENTS clients at once, with 1, 2 and 4 workers: finished images per second
//    (first submitted to last finished), and submit → running behind the backlog.
//
// Needs the build (bench/run.mjs makes it) and PostgreSQL (a throwaway server or BENCH_DATABASE_URL). Prints one JSON
// object on stdout.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { startFakeFal } from "../tests/fakes/fal.ts";
import { samePage, signUp } from "./account.mjs";
import { benchDatabase, sparePort } from "./postgres.mjs";
import { startWeb, startWorker, stopWorker, waitReady } from "./web.mjs";

const HOST = "127.0.0.1";
const IDLE_IMAGES = Number(process.env.BENCH_IDLE_IMAGES ?? 40);
const JOBS = Number(process.env.BENCH_JOBS ?? 160);
const CLIENTS = 16;
const WORKER_COUNTS = [1, 2, 4];
const MODEL = "flux-schnell";

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const round = (n, d = 1) => (typeof n === "number" ? Math.round(n * 10 ** d) / 10 ** d : null);
function spread(list) {
  const sorted = list.toSorted((a, b) => a - b);
  const at = (p) => round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
  return sorted.length ? { p50: at(0.5), p99: at(0.99), max: round(sorted.at(-1)) } : null;
}

async function api(base, key, method, path, body) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** The generations' own timestamps, in milliseconds: created (submitted), started (running), finished. */
async function timings(client, ids) {
  const { rows } = await client.query(
    `select status,
            extract(epoch from created_at) * 1000 as created,
            extract(epoch from started_at) * 1000 as started,
            extract(epoch from finished_at) * 1000 as finished
       from generation where id = any($1::uuid[])`,
    [ids],
  );
  return rows.map((r) => ({
    status: r.status,
    created: Number(r.created),
    started: r.started === null ? null : Number(r.started),
    finished: r.finished === null ? null : Number(r.finished),
  }));
}

/** Images one after the other: each submitted once the previous one is visible as succeeded to the poll. */
async function idle(base, key, client) {
  const postMs = [];
  const visibleMs = [];
  const ids = [];
  for (let i = 0; i < IDLE_IMAGES; i++) {
    const started = performance.now();
    const made = await api(base, key, "POST", "/images", { model: MODEL, prompt: `A quiet harbour, study ${i}` });
    postMs.push(performance.now() - started);
    if (made.status !== 201) throw new Error(`an image answered ${made.status}: ${JSON.stringify(made.body)}`);
    ids.push(made.body.id);
    for (;;) {
      const polled = await api(base, key, "GET", `/generations/${made.body.id}`);
      if (polled.body?.status === "succeeded") break;
      if (polled.body?.status !== "queued" && polled.body?.status !== "processing")
        throw new Error(`an image ended ${polled.body?.status}: ${JSON.stringify(polled.body?.error ?? null)}`);
      if (performance.now() - started > 60_000) throw new Error("an image was not finished within a minute");
      await sleep(5);
    }
    visibleMs.push(performance.now() - started);
  }
  const rows = await timings(client, ids);
  return {
    images: IDLE_IMAGES,
    submitToRunningMs: spread(rows.map((r) => r.started - r.created)),
    submitToFinishedMs: spread(rows.map((r) => r.finished - r.created)),
    postMs: spread(postMs),
    submitToSucceededPolledMs: spread(visibleMs),
  };
}

/** The machine's processor time, busy and in all, in clock ticks (/proc/stat's first line). */
function machineTicks() {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** A process's processor time (user and system) in clock ticks; 0 once it is gone. */
function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * Where the processor time went while `work` ran: the machine's busy share (1 = every core busy all along) and the
 * milliseconds of processor time per image of the web process, the workers together, and this process (the fake
 * provider and the clients). Clock ticks are 10 ms (USER_HZ 100).
 */
async function accounted(pids, images, work) {
  const ticks = () => ({
    machine: machineTicks(),
    web: processTicks(pids.web),
    workers: pids.workers().reduce((sum, pid) => sum + processTicks(pid), 0),
    bench: process.cpuUsage(),
  });
  const before = ticks();
  const result = await work();
  const after = ticks();
  const perImage = (t) => round((t * 10) / images, 1);
  const benchMs = (after.bench.user + after.bench.system - before.bench.user - before.bench.system) / 1000;
  return {
    ...result,
    machineBusyShare: round(
      (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total),
      2,
    ),
    processorMsPerImage: {
      web: perImage(after.web - before.web),
      workers: perImage(after.workers - before.workers),
      providerFakeAndClients: round(benchMs / images, 1),
    },
  };
}

/** JOBS images from CLIENTS clients at once; waits for every one to end. */
async function throughput(base, key, client) {
  const ids = [];
  const refused = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < JOBS) {
        const i = next++;
        const made = await api(base, key, "POST", "/images", { model: MODEL, prompt: `A busy harbour, study ${i}` });
        if (made.status === 201) ids.push(made.body.id);
        else refused.push(made.status);
      }
    }),
  );
  if (refused.length) throw new Error(`${refused.length} images refused (${[...new Set(refused)].join(", ")})`);
  const deadline = performance.now() + 10 * 60_000;
  for (;;) {
    const { rows } = await client.query(
      "select count(*)::int as open from generation where id = any($1::uuid[]) and status in ('queued', 'processing')",
      [ids],
    );
    if (rows[0].open === 0) break;
    if (performance.now() > deadline) throw new Error(`${rows[0].open} images still open after 10 minutes`);
    await sleep(100);
  }
  const rows = await timings(client, ids);
  const first = Math.min(...rows.map((r) => r.created));
  const last = Math.max(...rows.map((r) => r.finished));
  return {
    images: JOBS,
    succeeded: rows.filter((r) => r.status === "succeeded").length,
    finishedPerSecond: round(JOBS / ((last - first) / 1000), 2),
    submitToRunningMs: spread(rows.map((r) => r.started - r.created)),
  };
}

const report = { model: MODEL, provider: "fal fake, answering at once", clients: CLIENTS, jobs: JOBS };
const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-path-"));
let database = null;
let fal = null;
let web = null;
let client = null;
try {
  database = await benchDatabase();
  if (!database) {
    report.skipped = "no PostgreSQL server binaries and no BENCH_DATABASE_URL";
  } else {
    fal = await startFakeFal();
    const port = await sparePort();
    const base = `http://${HOST}:${port}`;
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      SITE_URL: base,
      LOG_LEVEL: "warn",
      FAL_KEY: "bench-fal-key",
      FAL_BASE_URL: fal.url,
      WORKER: "off",
      SIGNUP_BONUS_CREDITS: "1000000",
      // One address and one key play every developer: their bounds are not what is measured.
      PAGE_RATE_LIMIT_PER_MINUTE: "0",
      MAX_CONNECTIONS_PER_ADDRESS: "0",
      API_RATE_LIMIT_PER_MINUTE: "1000000",
      API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "1000000",
      SHUTDOWN_DELAY_SECONDS: "0",
      // The clients' requests are all taken at once: refusing the excess is the overload scenario's measure.
      MAX_CONCURRENT_REQUESTS: String(CLIENTS * 2),
    };
    web = startWeb({ ...env, PORT: String(port), HOST });
    await waitReady(base, web);
    // The first worker also sends the confirmation e-mail.
    const running = [];
    const scale = async (count) => {
      while (running.length < count) {
        const worker = startWorker(env);
        running.push(worker);
        await worker.started;
      }
    };
    await scale(1);
    const cookie = await signUp(base, dataDir);
    const created = await fetch(`${base}/api/keys`, {
      method: "POST",
      headers: { ...samePage(base), Cookie: cookie, "Content-Type": "application/json" },
      body: "{}",
    });
    if (created.status !== 201) throw new Error(`creating a key answered ${created.status}`);
    const { secret: key } = await created.json();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();

    // One image first: the worker's modules, the provider's connection and the checks' models are loaded.
    const warm = await api(base, key, "POST", "/images", { model: MODEL, prompt: "A first harbour" });
    if (warm.status !== 201) throw new Error(`the first image answered ${warm.status}: ${JSON.stringify(warm.body)}`);
    for (let polled = null; polled?.status !== "succeeded"; await sleep(50)) {
      polled = (await api(base, key, "GET", `/generations/${warm.body.id}`)).body;
      if (polled?.status === "failed" || polled?.status === "canceled")
        throw new Error(`the first image ${polled.status}`);
    }
    report.idle = await idle(base, key, client);
    report.workers = {};
    for (const count of WORKER_COUNTS) {
      await scale(count);
      const pids = { web: web.child.pid, workers: () => running.map((w) => w.child.pid) };
      report.workers[count] = await accounted(pids, JOBS, () => throughput(base, key, client));
    }
    const one = report.workers[1]?.finishedPerSecond;
    const two = report.workers[2]?.finishedPerSecond;
    const four = report.workers[4]?.finishedPerSecond;
    report.scaling = { twoOverOne: round(two / one, 2), fourOverOne: round(four / one, 2) };
    report.providerRequests = fal.requests.length;
    for (const worker of running) await stopWorker(worker);
  }
} catch (error) {
  report.error = String(error.stack ?? error.message ?? error).slice(0, 3000);
} finally {
  await client?.end().catch(() => {});
  if (web) {
    web.child.kill("SIGTERM");
    await Promise.race([web.exited, sleep(30_000)]);
  }
  await fal?.close().catch(() => {});
  await database?.dispose().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}

process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
