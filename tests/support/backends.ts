import { randomUUID } from "node:crypto";
import { cpSync, rmSync } from "node:fs";
import pino from "pino";
import { afterAll, beforeAll, inject } from "vitest";
import { openPglite, openPostgres, type Db, type DbHandle } from "#server/db/client.ts";
import { subscription, user } from "#server/db/schema/index.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { grantCredits } from "#server/modules/credits/ledger.ts";
import { createBoss } from "#server/jobs/boss.ts";
import { defineQueues } from "#server/jobs/worker.ts";
import { tempDir, TEST_DATABASE_URL } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";

export interface Backend {
  name: string;
  open(): Promise<{ handle: DbHandle; cleanup(): Promise<void> }>;
}

const silent = pino({ level: "silent" });

/**
 * Each backend's open() is a database of its own: a copy of the run's migrated template
 * (`tests/support/templates.ts`), or, outside the database suites, a new one to migrate.
 */
const pglite: Backend = {
  name: "PGlite",
  async open() {
    const dir = tempDir("atelier-db-");
    const template = inject("pgliteTemplate");
    if (template) cpSync(template, dir, { recursive: true });
    const handle = await openPglite(dir, silent);
    return {
      handle,
      async cleanup() {
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/**
 * The backends of this run: PGlite, and PostgreSQL when the run has one. CI's second pass, on PostgreSQL
 * (`TEST_POSTGRES_ONLY`), leaves out PGlite, which its first pass ran.
 */
export const backends: Backend[] = [
  ...(TEST_DATABASE_URL && process.env.TEST_POSTGRES_ONLY ? [] : [pglite]),
  ...(TEST_DATABASE_URL
    ? [
        {
          name: "PostgreSQL",
          async open() {
            const database = await createTestDatabase(inject("postgresTemplate") ?? undefined);
            const handle = await openPostgres({
              url: database.url,
              poolMax: 25,
              connectTimeoutSeconds: 10,
              logger: silent,
            });
            return {
              handle,
              async cleanup() {
                await handle.close();
                await database.drop();
              },
            };
          },
        },
      ]
    : []),
];

/** Inserts a confirmed user straight into the database and returns its id. */
export async function insertUser(db: Db, name = "Maker"): Promise<string> {
  const id = randomUUID();
  await db.insert(user).values({ id, name, email: `${id}@example.com`, emailVerified: true });
  return id;
}

/** Inserts a confirmed user holding `credits` (given as an administrator's adjustment) and returns its id. */
export async function insertUserWithCredits(db: Db, credits: number): Promise<string> {
  const id = await insertUser(db);
  if (credits > 0)
    await grantCredits({ db, userId: id, amount: credits, kind: "admin_adjustment", idempotencyKey: randomUUID() });
  return id;
}

/**
 * A migrated database of its own on the backend for the tests of one `describe`, opened before them and dropped
 * after them; the returned function gives its query builder.
 */
export function migratedDatabase(backend: Backend): () => Db {
  let handle: DbHandle | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ handle, cleanup } = await backend.open());
    await applyMigrations(handle);
  });
  afterAll(async () => {
    await cleanup?.();
  });
  return () => handle!.db;
}

/**
 * What the use cases run on, without a server: a migrated database of its own on the backend, its job queue started
 * with every queue defined (no worker: queued jobs stay where a test can read them), and a folder for files.
 */
export async function openEngine(backend: Backend) {
  const { handle, cleanup } = await backend.open();
  await applyMigrations(handle);
  const boss = createBoss(handle, silent, 4);
  await boss.start();
  await defineQueues(boss);
  const filesDir = tempDir("atelier-files-");
  return {
    handle,
    boss,
    filesDir,
    async close() {
      await boss.stop({ graceful: false, close: true });
      await cleanup();
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

/** An account subscribed to a plan for a month, as Stripe's events leave an active subscription. */
export async function insertSubscription(db: Db, userId: string, planId: string): Promise<void> {
  const now = new Date();
  await db.insert(subscription).values({
    userId,
    planId,
    interval: "monthly",
    status: "active",
    stripeSubscriptionId: `sub_${randomUUID()}`,
    stripeCustomerId: `cus_${randomUUID()}`,
    amount: 900,
    currency: "usd",
    currentPeriodStart: now,
    currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
    stripeUpdatedAt: now,
  });
}
