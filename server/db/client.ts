import { existsSync, mkdirSync, openAsBlob, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Logger } from "pino";
import * as schema from "#server/db/schema/index.ts";
import { acquireDataDirLock, type DataDirLock } from "#server/db/data-dir-lock.ts";
import { redactUrl } from "#server/logger.ts";
import { DatabaseStartError } from "#server/db/errors.ts";
import { connectionBudget } from "#server/db/connections.ts";
import { ROOT } from "#server/paths.ts";

export { DatabaseStartError };

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

interface Common {
  db: Db;
  /**
   * For counters that may lose their last moments in a crash (API keys' use, rate-limit windows, likes), never for
   * money or jobs: on PostgreSQL its connections commit without waiting for the write-ahead log to reach the disk
   * (`synchronous_commit = off`), which measured several times faster for 50 callers on one key's row. A crash can
   * forget the last fraction of a second of counts; nothing else is weaker. The embedded database has one
   * connection: the same as `db`.
   */
  counters: Db;
  /** Round-trip to the database; rejects when it cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
/**
 * PostgreSQL's buffer cache inside the embedded database. Its default (128 MB) lives in the process's WebAssembly
 * memory: measured here, the process held about 350 MB with it and about 230 MB with 16 MB, for the same work (the
 * operating system still caches the files). A small installation does not need more.
 */
const PGLITE_SETTINGS = ["shared_buffers=16MB"];

export interface PgliteHandle extends Common {
  kind: "pglite";
  pglite: PGlite;
  dataDir: string;
}
export interface PostgresHandle extends Common {
  kind: "postgres";
  pool: pg.Pool;
  url: string;
}
export type DbHandle = PgliteHandle | PostgresHandle;

/**
 * The embedded database runs each statement in this thread, and hands its answer back as a promise already settled:
 * a request's statements and its rendering then follow one another without the event loop ever reaching the
 * network, so requests that arrived meanwhile are not even read until every request started has ended (they were
 * taken in batches, and under load some waited seconds before their turn: p99 7 s for a page rendered in 0.6 s).
 * Each exchange with the database first lets the event loop turn once (`setImmediate`): the requests that arrived are
 * read, and take their turn under the admission bound like the others.
 */
function takeTurns(pglite: PGlite): void {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const query = pglite.query.bind(pglite);
  const exec = pglite.exec.bind(pglite);
  const transaction = pglite.transaction.bind(pglite);
  pglite.query = (async (...args: Parameters<PGlite["query"]>) => {
    await turn();
    return query(...args);
  }) as PGlite["query"];
  pglite.exec = async (...args: Parameters<PGlite["exec"]>) => {
    await turn();
    return exec(...args);
  };
  pglite.transaction = (async (...args: Parameters<PGlite["transaction"]>) => {
    await turn();
    return transaction(...args);
  }) as PGlite["transaction"];
}

/**
 * The empty database the build packed (scripts/embedded-database.mjs) for this version of PGlite, when there is one:
 * unpacked, it spares a first start PGlite's own way of making a database, a second PostgreSQL and initdb beside the
 * first (about 300 MB more at its peak, and three times as long). Without a build (development), PGlite makes it.
 */
function embeddedDatabaseTemplate(): string {
  const { version } = JSON.parse(
    readFileSync(join(ROOT, "node_modules/@electric-sql/pglite/package.json"), "utf8"),
  ) as { version: string };
  return join(ROOT, "build/embedded-database", `pglite-${version}.tar.gz`);
}

/** The file as a Blob, read from the disk when PGlite unpacks it; none when it cannot be opened. */
async function fileBlob(path: string): Promise<Blob | undefined> {
  try {
    return await openAsBlob(path);
  } catch {
    return undefined;
  }
}

export interface PgliteOptions {
  /** The tarball a new database is unpacked from; `null` lets PGlite make it. The build's by default. */
  template?: string | null;
}

export async function openPglite(dataDir: string, logger: Logger, options: PgliteOptions = {}): Promise<PgliteHandle> {
  const dir = `${dataDir.replace(/\/+$/, "")}/pglite`;
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new DatabaseStartError(`Cannot create the data folder ${dir}: ${(error as Error).message}`);
  }
  const lock: DataDirLock = acquireDataDirLock(dataDir);
  let pglite: PGlite;
  try {
    // Loaded here: a server on PostgreSQL never needs the embedded database's code in memory.
    const { PGlite } = await import("@electric-sql/pglite");
    const fresh = !existsSync(`${dir}/PG_VERSION`);
    const path = fresh ? (options.template === undefined ? embeddedDatabaseTemplate() : options.template) : null;
    const template = path ? await fileBlob(path) : undefined;
    try {
      pglite = await PGlite.create(dir, {
        postgresqlconf: PGLITE_SETTINGS,
        ...(template ? { loadDataDir: template } : {}),
      });
    } catch (error) {
      if (!template) throw error;
      // A damaged tarball must not keep the installation from starting: the folder held nothing before, and PGlite
      // makes the database itself.
      logger.warn({ err: error }, "the build's empty database could not be unpacked; making one instead");
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      pglite = await PGlite.create(dir, { postgresqlconf: PGLITE_SETTINGS });
    }
    // Creating a database without the build's tarball leaves the temporary one that made it (about 250 MB of
    // WebAssembly memory) for the garbage collector, which may not come for a while: collected now, the first start
    // holds what a restart holds. `gc` is there when scripts/start.mjs started this process.
    if (fresh) (globalThis as { gc?: () => void }).gc?.();
    takeTurns(pglite);
    await pglite.query("select 1");
  } catch (error) {
    lock.release();
    throw new DatabaseStartError(
      `Cannot open the embedded database in ${dir} (${(error as Error).message}). The folder was left untouched; check its permissions and that it holds an Atelier database.`,
    );
  }
  logger.info({ dataDir: dir }, "embedded database opened");
  const { drizzle: drizzlePglite } = await import("drizzle-orm/pglite");
  const db = drizzlePglite({ client: pglite, schema }) as unknown as Db;
  return {
    kind: "pglite",
    db,
    counters: db,
    pglite,
    dataDir: dir,
    async ping() {
      await pglite.query("select 1");
    },
    async close() {
      try {
        await pglite.close();
      } finally {
        lock.release();
      }
    },
  };
}

export interface PostgresOptions {
  url: string;
  poolMax: number;
  connectTimeoutSeconds: number;
  logger: Logger;
  /** Called between attempts while the server is not reachable yet. */
  onWaiting?: () => void;
}

/** Connects to PostgreSQL, retrying with backoff until `connectTimeoutSeconds` have passed. */
export async function openPostgres(options: PostgresOptions): Promise<PostgresHandle> {
  const { url, logger } = options;
  const openPool = (config: pg.PoolConfig) => {
    const opened = new pg.Pool({
      connectionString: url,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      ...config,
    });
    // An idle client losing its connection must not crash the process; the next query gets a fresh one.
    opened.on("error", (error) => logger.warn({ err: error.message }, "database connection lost"));
    return opened;
  };
  const pool = openPool({ max: connectionBudget(options.poolMax).app, application_name: "atelier" });

  const deadline = Date.now() + options.connectTimeoutSeconds * 1000;
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query("select 1");
      break;
    } catch (error) {
      if (Date.now() + delay > deadline) {
        await pool.end().catch(() => undefined);
        throw new DatabaseStartError(
          `Cannot reach PostgreSQL at ${redactUrl(url)} after ${options.connectTimeoutSeconds} s: ${(error as Error).message}`,
        );
      }
      logger.warn({ attempt, retryInMs: delay, err: (error as Error).message }, "database not reachable yet");
      options.onWaiting?.();
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }
  logger.info({ url: redactUrl(url) }, "connected to PostgreSQL");
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  const countersPool = openPool({
    max: connectionBudget(options.poolMax).counters,
    application_name: "atelier-counters",
    options: "-c synchronous_commit=off",
  });
  const counters = drizzlePg({ client: countersPool, schema }) as unknown as Db;
  return {
    kind: "postgres",
    db,
    counters,
    pool,
    url,
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      await Promise.all([pool.end(), countersPool.end()]);
    },
  };
}
