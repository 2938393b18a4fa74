import { loadEnvOrExit } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { openDatabase } from "#server/runtime.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { seed } from "#server/db/seed.ts";
import { DatabaseStartError } from "#server/db/errors.ts";

/** `npm run db:migrate`: applies pending migrations and the seed, then exits. */
export async function runMigrations() {
  const env = loadEnvOrExit();
  const logger = createLogger(env);
  try {
    const database = await openDatabase(env, logger);
    try {
      await applyMigrations(database);
      await seed(database.db);
      logger.info({ database: database.kind }, "database migrated and seeded");
    } finally {
      await database.close();
    }
  } catch (error) {
    if (error instanceof DatabaseStartError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
