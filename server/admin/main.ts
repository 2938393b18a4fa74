import type { DbHandle } from "#server/db/client.ts";
import { dataDirLockOwner } from "#server/db/data-dir-lock.ts";
import { loadEnvOrExit, type Env } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { openDatabase } from "#server/runtime.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { runAdminCommand, type AdminContext, type AdminOutput } from "#server/admin/commands.ts";
import { adminSocketPath, sendAdminCommand } from "#server/admin/socket.ts";

/**
 * `npm run admin -- grant you@example.com`: the operators' commands (server/admin/commands.ts). On the embedded
 * database, while a server holds the data folder, the command runs in that server (server/admin/socket.ts);
 * otherwise, and always on PostgreSQL, this process opens the database itself.
 */
export async function runAdmin(args: string[]) {
  const env = loadEnvOrExit();
  const output = (await runInServer(env, args)) ?? (await runInThisProcess(env, args));
  process.stdout.write(output.stdout);
  process.stderr.write(output.stderr);
  process.exit(output.code);
}

/** The running server's answer, or null when no server listens on this data folder. */
async function runInServer(env: Env, args: string[]): Promise<AdminOutput | null> {
  if (env.DATABASE_URL || dataDirLockOwner(env.DATA_DIR) === null) return null;
  return sendAdminCommand(adminSocketPath(env.DATA_DIR), { args, cwd: process.cwd() });
}

/** Runs the command with a database this process opens (migrated) when the command asks for it, closed after. */
async function runInThisProcess(env: Env, args: string[]): Promise<AdminOutput> {
  let database: DbHandle | undefined;
  let opening: Promise<DbHandle> | undefined;
  const open = async () => {
    database = await openDatabase(env, createLogger({ ...env, LOG_LEVEL: "warn" }));
    await applyMigrations(database);
    return database;
  };
  const ctx: AdminContext = {
    cwd: process.cwd(),
    db: async () => (await (opening ??= open())).db,
  };
  try {
    return await runAdminCommand(ctx, args);
  } finally {
    await database?.close();
  }
}
