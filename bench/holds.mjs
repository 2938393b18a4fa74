// Credit holds per second with 20 concurrent clients, and their latency, on PGlite and (when a PostgreSQL
// server can be had) on PostgreSQL: a throwaway cluster from Debian's postgresql package, or BENCH_DATABASE_URL.
// Prints one JSON object on stdout; `bench/run.mjs` runs it and puts it in the report.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import pino from "pino";
import { openPglite, openPostgres } from "../server/db/client.ts";
import { applyMigrations } from "../server/db/migrate.ts";
import { user } from "../server/db/schema/index.ts";
import { grantCredits, holdCredits } from "../server/modules/credits/ledger.ts";

const CLIENTS = 20;
const DURATION_MS = 5_000;
const WARMUP_MS = 1_000;
const logger = pino({ level: "silent" });

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
const round = (n, d = 2) => (n === null ? null : Math.round(n * 10 ** d) / 10 ** d);

/** Each client holds 1 credit at a time, as fast as it can, from its own account or all from one. */
async function run(db, { sharedAccount }) {
  const users = [];
  for (let i = 0; i < (sharedAccount ? 1 : CLIENTS); i++) {
    const id = randomUUID();
    await db.insert(user).values({ id, name: "Bench", email: `${id}@bench.invalid`, emailVerified: true });
    await grantCredits(db, {
      userId: id,
      amount: 1_000_000_000,
      kind: "admin_adjustment",
      idempotencyKey: randomUUID(),
    });
    users.push(id);
  }
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const measureFrom = started + WARMUP_MS;
  const end = measureFrom + DURATION_MS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const userId = users[sharedAccount ? 0 : i];
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await holdCredits(db, { userId, amount: 1, idempotencyKey: randomUUID() });
          if (t0 >= measureFrom) latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    holdsPerSecond: round(latencies.length / (DURATION_MS / 1000), 1),
    latencyMs: { p50: round(percentile(latencies, 0.5)), p99: round(percentile(latencies, 0.99)) },
    errors,
  };
}

async function measure(handle) {
  await applyMigrations(handle);
  return {
    separateAccounts: await run(handle.db, { sharedAccount: false }),
    oneAccount: await run(handle.db, { sharedAccount: true }),
  };
}

function sparePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A throwaway PostgreSQL cluster, when Debian's server binaries are installed; null otherwise. */
async function throwawayPostgres() {
  const base = "/usr/lib/postgresql";
  const version = existsSync(base) ? readdirSync(base).sort().at(-1) : undefined;
  const bin = version ? join(base, version, "bin") : undefined;
  if (!bin || !existsSync(join(bin, "initdb"))) return null;
  const dir = mkdtempSync(join(os.tmpdir(), "atelier-bench-pg-"));
  const asRoot = process.getuid?.() === 0;
  const run = (tool, args) => {
    const command = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
    const result = spawnSync(command[0], command[1], { stdio: "pipe" });
    if (result.status !== 0) throw new Error(`${tool}: ${result.stderr}`);
  };
  if (asRoot) chownSync(dir, Number(spawnSync("id", ["-u", "postgres"]).stdout.toString().trim()), 0);
  const port = await sparePort();
  run("initdb", ["-D", join(dir, "data"), "-U", "atelier", "-A", "trust", "-E", "UTF8"]);
  run("pg_ctl", [
    "-D",
    join(dir, "data"),
    "-l",
    join(dir, "log"),
    "-w",
    "start",
    "-o",
    `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${dir} -c max_connections=100`,
  ]);
  return {
    url: `postgres://atelier@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", join(dir, "data"), "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

const report = { clients: CLIENTS, durationSeconds: DURATION_MS / 1000, pglite: null, postgres: null };

const dir = mkdtempSync(join(os.tmpdir(), "atelier-bench-pglite-"));
try {
  const handle = await openPglite(dir, logger);
  try {
    report.pglite = await measure(handle);
  } finally {
    await handle.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

let cluster = null;
try {
  cluster = process.env.BENCH_DATABASE_URL ? null : await throwawayPostgres();
  const url = process.env.BENCH_DATABASE_URL ?? cluster?.url;
  if (url) {
    const name = `atelier_bench_${randomUUID().slice(0, 8)}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const handle = await openPostgres({ url: target.toString(), poolMax: CLIENTS, connectTimeoutSeconds: 10, logger });
    try {
      report.postgres = await measure(handle);
    } finally {
      await handle.close();
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    }
  } else {
    report.postgres = { skipped: "no PostgreSQL server binaries and no BENCH_DATABASE_URL" };
  }
} catch (error) {
  report.postgres = { error: String(error.message ?? error) };
} finally {
  cluster?.stop();
}

process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
