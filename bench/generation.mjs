// The generation engine under load, with the offline image model: submit latency, queue pick-up (submit →
// processing, from the database's own timestamps) and jobs completed per second, on PGlite with the embedded
// worker, and on PostgreSQL with one and then two standalone worker processes (`npm run worker`).
// Needs the build (bench/run.mjs makes it). Prints one JSON object on stdout.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { eq, inArray, sql } from "drizzle-orm";
import { parseEnv } from "../server/env.ts";
import { openPglite, openPostgres } from "../server/db/client.ts";
import { applyMigrations } from "../server/db/migrate.ts";
import { createBoss } from "../server/jobs/boss.ts";
import { createLocalStorage } from "../server/storage/local.ts";
import { generation, user } from "../server/db/schema/index.ts";
import { grantCredits } from "../server/modules/credits/ledger.ts";
import { GENERATION_QUEUE, HEARTBEAT_SECONDS, MAX_RUNS } from "../server/modules/generation/queue.ts";
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_QUEUE } from "../server/modules/webhooks/queue-webhook.ts";
import { benchDatabase } from "./postgres.mjs";
import { throughVite } from "./through-vite.mjs";
import { startWorker, stopWorker } from "./web.mjs";

// The job's modules reach the offline models, whose prompt helper reads its translations through Vite.
const vite = await throughVite();
const { submitGeneration } = await vite.load("/server/modules/generation/submit-generation.ts");
const { runGeneration } = await vite.load("/server/modules/generation/run-generation.ts");
const { ModelRegistry } = await vite.load("/server/modules/catalog/model-registry.ts");

const JOBS = Number(process.env.BENCH_JOBS ?? 120);
const CLIENTS = 8;
const logger = pino({ level: "silent" });

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
const round = (n, d = 1) => (n === null ? null : Math.round(n * 10 ** d) / 10 ** d);

/**
 * What the app's processes hold, for this benchmark: the database, the queue (with the generation queue as the
 * app defines it, and, for the embedded case, a worker on it) and local storage.
 */
async function openEngine(handle, env, { work }) {
  const boss = createBoss(handle, logger, 4);
  await boss.start();
  await boss.createQueue(GENERATION_QUEUE, {
    retryLimit: MAX_RUNS - 1,
    expireInSeconds: 1800,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    notify: true,
  });
  // Ending a generation looks this queue up too (for the webhook it sends when asked for one)
  await boss.createQueue(WEBHOOK_QUEUE, { retryLimit: WEBHOOK_MAX_ATTEMPTS - 1, expireInSeconds: 60 });
  const storage = createLocalStorage(env.DATA_DIR);
  // The built-in catalog (the offline demo models), as the runtime's registry offers it with nothing added.
  const models = ModelRegistry.builtIn(env);
  if (work) {
    // As server/jobs/worker.ts does: two workers, each fetching again at once after a job.
    for (let i = 0; i < 2; i++) {
      const worker = { id: "" };
      worker.id = await boss.work(GENERATION_QUEUE, { pollingIntervalSeconds: 2 }, async (jobs) => {
        try {
          for (const job of jobs) {
            await runGeneration(
              { db: handle.db, boss, env, storage, logger, models },
              { generationId: job.data.generationId, signal: job.signal },
            );
          }
        } finally {
          if (worker.id) boss.notifyWorker(worker.id);
        }
      });
    }
  }
  return {
    db: handle.db,
    boss,
    env,
    storage,
    models,
    async close() {
      await boss.stop({ graceful: true, close: true, timeout: 10_000 });
      await handle.close();
    },
  };
}

async function benchUser(db) {
  const userId = randomUUID();
  await db.insert(user).values({ id: userId, name: "Bench", email: `${userId}@bench.invalid`, emailVerified: true });
  await grantCredits({ db, userId, amount: 1_000_000, kind: "admin_adjustment", idempotencyKey: randomUUID() });
  return userId;
}

/** Pick-up on an idle queue: one job at a time, each submitted after the previous one finished. */
async function idlePickup(runtime, count = 15) {
  const db = runtime.db;
  const userId = await benchUser(db);
  const deps = { db, boss: runtime.boss, env: runtime.env, storage: runtime.storage, models: runtime.models };
  const pickup = [];
  for (let i = 0; i < count; i++) {
    const { id } = await submitGeneration(deps, {
      user: { id: userId },
      input: { tool: "text-to-image", model: "demo-image", prompt: `idle ${i}`, seed: i },
    });
    const deadline = Date.now() + 120_000;
    for (;;) {
      const [row] = await db
        .select({
          status: generation.status,
          pickupMs: sql`extract(epoch from (${generation.startedAt} - ${generation.createdAt})) * 1000`,
        })
        .from(generation)
        .where(eq(generation.id, id));
      if (row.status !== "queued" && row.status !== "processing") {
        pickup.push(Number(row.pickupMs));
        break;
      }
      if (Date.now() > deadline) throw new Error("a job was not finished within 2 minutes");
      await sleep(20);
    }
  }
  await db.delete(generation).where(eq(generation.userId, userId));
  pickup.sort((a, b) => a - b);
  return { jobs: count, p50: round(percentile(pickup, 0.5)), max: round(pickup.at(-1)) };
}

/** Submits JOBS one-image jobs from CLIENTS concurrent clients, waits for all, and reads the timings back. */
async function load(runtime) {
  const db = runtime.db;
  const userId = await benchUser(db);
  const deps = { db, boss: runtime.boss, env: runtime.env, storage: runtime.storage, models: runtime.models };
  const submitMs = [];
  const ids = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < JOBS) {
        const i = next++;
        const t0 = performance.now();
        const { id } = await submitGeneration(deps, {
          user: { id: userId },
          input: { tool: "text-to-image", model: "demo-image", prompt: `bench ${i}`, seed: i },
        });
        submitMs.push(performance.now() - t0);
        ids.push(id);
      }
    }),
  );
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const [open] = await db
      .select({ n: sql`count(*)::int` })
      .from(generation)
      .where(sql`${generation.userId} = ${userId} and ${generation.status} in ('queued', 'processing')`);
    if (open.n === 0) break;
    if (Date.now() > deadline) throw new Error(`${open.n} jobs still open after 10 minutes`);
    if (process.env.BENCH_DEBUG) process.stderr.write(`open ${open.n}\n`);
    await sleep(200);
  }
  const rows = await db
    .select({
      status: generation.status,
      pickupMs: sql`extract(epoch from (${generation.startedAt} - ${generation.createdAt})) * 1000`,
      created: sql`extract(epoch from ${generation.createdAt}) * 1000`,
      finished: sql`extract(epoch from ${generation.finishedAt}) * 1000`,
    })
    .from(generation)
    .where(inArray(generation.id, ids));
  const pickup = rows.map((r) => Number(r.pickupMs)).sort((a, b) => a - b);
  const first = Math.min(...rows.map((r) => Number(r.created)));
  const last = Math.max(...rows.map((r) => Number(r.finished)));
  submitMs.sort((a, b) => a - b);
  await db.delete(generation).where(eq(generation.userId, userId));
  return {
    jobs: JOBS,
    succeeded: rows.filter((r) => r.status === "succeeded").length,
    submitMs: { p50: round(percentile(submitMs, 0.5)), p99: round(percentile(submitMs, 0.99)) },
    // Under load, pick-up includes the wait behind the backlog.
    backlogPickupMs: { p50: round(percentile(pickup, 0.5)), p99: round(percentile(pickup, 0.99)) },
    jobsPerSecond: round(JOBS / ((last - first) / 1000), 2),
  };
}

const report = { jobs: JOBS, clients: CLIENTS, model: "demo-image", pglite: null, postgres: null };

const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-gen-"));
try {
  const env = parseEnv({ DATA_DIR: dataDir });
  const handle = await openPglite(dataDir, logger);
  await applyMigrations(handle);
  const runtime = await openEngine(handle, env, { work: true });
  try {
    report.pglite = { idlePickupMs: await idlePickup(runtime), embeddedWorker: await load(runtime) };
  } finally {
    await runtime.close();
  }
} catch (error) {
  report.pglite = { error: String(error.message ?? error) };
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

let database = null;
const pgDataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-gen-pg-"));
const workers = [];
try {
  database = await benchDatabase();
  if (!database) {
    report.postgres = { skipped: "no PostgreSQL server binaries and no BENCH_DATABASE_URL" };
  } else {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: database.url, DATA_DIR: pgDataDir };
    // The first worker migrates the database and creates the queues.
    const first = startWorker(env);
    workers.push(first);
    await first.started;
    const handle = await openPostgres({ url: env.DATABASE_URL, poolMax: CLIENTS, connectTimeoutSeconds: 10, logger });
    const runtime = await openEngine(handle, parseEnv(env), { work: false });
    try {
      report.postgres = { idlePickupMs: await idlePickup(runtime) };
      for (const count of [1, 2]) {
        while (workers.length < count) {
          const worker = startWorker(env);
          workers.push(worker);
          await worker.started;
        }
        report.postgres[count === 1 ? "oneWorker" : "twoWorkers"] = await load(runtime);
      }
    } finally {
      for (const w of workers) await stopWorker(w);
      await runtime.close();
    }
  }
} catch (error) {
  report.postgres = { error: String(error.message ?? error) };
} finally {
  for (const w of workers) w.child.kill("SIGKILL");
  await database?.dispose().catch(() => {});
  rmSync(pgDataDir, { recursive: true, force: true });
}

process.stdout.write(`${JSON.stringify(report)}\n`);
await vite.close();
process.exit(0);
