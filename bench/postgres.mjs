// PostgreSQL for the benchmarks: a throwaway cluster from Debian's postgresql server binaries, or BENCH_DATABASE_URL.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import pg from "pg";

export function sparePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A throwaway PostgreSQL cluster, when Debian's server binaries are installed; null otherwise. */
export async function throwawayPostgres() {
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

/**
 * A fresh database for one benchmark: on BENCH_DATABASE_URL's server when set, else on a throwaway cluster.
 * Null when neither can be had. `dispose()` drops the database and stops the cluster.
 */
export async function benchDatabase() {
  const cluster = process.env.BENCH_DATABASE_URL ? null : await throwawayPostgres();
  const url = process.env.BENCH_DATABASE_URL ?? cluster?.url;
  if (!url) return null;
  const name = `atelier_bench_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
    await admin.query(`create database ${name}`);
  } catch (error) {
    await admin.end().catch(() => {});
    cluster?.stop();
    throw error;
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    async dispose() {
      try {
        await admin.query(`drop database ${name} with (force)`);
        await admin.end();
      } finally {
        cluster?.stop();
      }
    },
  };
}

/**
 * Runs `measure(handle)` on a migrated PGlite database in a temporary folder, then on PostgreSQL (see
 * benchDatabase) when one can be had, and returns both results; a PostgreSQL that cannot be had is reported as
 * skipped, one that fails as an error.
 */
export async function onBothDatabases(measure, { poolMax, logger, prefix = "atelier-bench-" }) {
  const { openPglite, openPostgres } = await import("../server/db/client.ts");
  const { applyMigrations } = await import("../server/db/migrate.ts");
  const result = { pglite: null, postgres: null };
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  try {
    const handle = await openPglite(dir, logger);
    try {
      await applyMigrations(handle);
      result.pglite = await measure(handle);
    } finally {
      await handle.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  let database = null;
  try {
    database = await benchDatabase();
    if (database) {
      const handle = await openPostgres({ url: database.url, poolMax, connectTimeoutSeconds: 10, logger });
      try {
        await applyMigrations(handle);
        result.postgres = await measure(handle);
      } finally {
        await handle.close();
      }
    } else {
      result.postgres = { skipped: "no PostgreSQL server binaries and no BENCH_DATABASE_URL" };
    }
  } catch (error) {
    result.postgres = { error: String(error.message ?? error) };
  } finally {
    await database?.dispose();
  }
  return result;
}
