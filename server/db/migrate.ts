import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { DbHandle, Schema } from "#server/db/client.ts";
import { MIGRATIONS_DIR } from "#server/paths.ts";

// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_KEY = 7_274_301;

/**
 * Applies the committed SQL migrations that are not applied yet; a second run is a no-op.
 * On PostgreSQL an advisory lock makes processes that start together (web and workers) take turns.
 */
export async function applyMigrations(handle: DbHandle): Promise<void> {
  const config = { migrationsFolder: MIGRATIONS_DIR, migrationsSchema: "drizzle" };
  if (handle.kind === "pglite") {
    await migratePglite(handle.db as unknown as PgliteDatabase<Schema>, config);
    return;
  }
  const lockClient = await handle.pool.connect();
  try {
    await lockClient.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migratePg(handle.db as unknown as NodePgDatabase<Schema>, config);
  } finally {
    await lockClient.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
    lockClient.release();
  }
}
