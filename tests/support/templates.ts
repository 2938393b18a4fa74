import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import pg from "pg";
import pino from "pino";
import type { TestProject } from "vitest/node";
import { openPglite, openPostgres, type DbHandle } from "#server/db/client.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { createBoss } from "#server/jobs/boss.ts";
import { tempDir, TEST_DATABASE_URL } from "#tests/support/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A closed PGlite data folder, migrated and with the job queue's schema: each test database is a copy. */
    pgliteTemplate: string;
    /** The name of a migrated database on the test PostgreSQL server, the template of each test database. */
    postgresTemplate: string | null;
  }
}

const silent = pino({ level: "silent" });

/** Everything a fresh Atelier database holds before its first request: the migrations and the queue's tables. */
async function prepare(handle: DbHandle) {
  await applyMigrations(handle);
  const boss = createBoss(handle, silent, 1);
  await boss.start();
  await boss.stop({ graceful: false, close: true });
}

/**
 * The database suites' global set-up: one migrated template per run and database (PGlite, and PostgreSQL when the
 * run has one), so that each test opens a copy in a fraction of the time a fresh database and its migrations take.
 */
export default async function setup(project: TestProject) {
  const dir = tempDir("atelier-template-");
  const pglite = await openPglite(dir, silent);
  await prepare(pglite);
  await pglite.close();
  project.provide("pgliteTemplate", dir);

  let postgresTemplate: string | null = null;
  if (TEST_DATABASE_URL) {
    postgresTemplate = `atelier_template_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${postgresTemplate}`);
    await admin.end();
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${postgresTemplate}`;
    const handle = await openPostgres({ url: url.toString(), poolMax: 2, connectTimeoutSeconds: 10, logger: silent });
    await prepare(handle);
    await handle.close();
  }
  project.provide("postgresTemplate", postgresTemplate);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (postgresTemplate) {
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`drop database if exists ${postgresTemplate} with (force)`);
      await admin.end();
    }
  };
}
