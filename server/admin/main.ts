import type { DbHandle } from "#server/db/client.ts";
import { dataDirLockOwner } from "#server/db/data-dir-lock.ts";
import { loadEnvOrExit, type Env } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { openDatabase } from "#server/runtime.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { runAdminCommand, type AdminContext, type AdminOutput } from "#server/admin/commands.ts";
import { adminSocketPath, sendAdminCommand } from "#server/admin/socket.ts";
import { adoptLegacyModelSettings } from "#server/modules/catalog/adopt-legacy-settings.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { secretBox } from "#server/modules/catalog/secret-box.ts";
import { loadAuthSecret } from "#server/modules/auth/load-auth-secret.ts";
import { DatabaseStartError } from "#server/db/errors.ts";
import { fingerprintOf, readSharedConfig } from "#server/modules/installation/agree-on-configuration.ts";

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
  return sendAdminCommand(adminSocketPath(env.DATA_DIR), { args, cwd: invokedFrom() });
}

/** Runs the command with a database this process opens (migrated) when the command asks for it, closed after. */
async function runInThisProcess(env: Env, args: string[]): Promise<AdminOutput> {
  let database: DbHandle | undefined;
  let opening: Promise<DbHandle> | undefined;
  const logger = createLogger({ ...env, LOG_LEVEL: "warn" });
  const open = async () => {
    database = await openDatabase(env, logger);
    await applyMigrations(database);
    return database;
  };
  const db = async () => (await (opening ??= open())).db;
  const ctx: AdminContext = {
    cwd: invokedFrom(),
    db,
    catalog: async () => {
      const handle = await db();
      // An installation upgraded and not started since still has its models' settings where earlier releases kept them.
      await adoptLegacyModelSettings(handle, env);
      const authSecret = await loadAuthSecret({ db: handle, configured: env.AUTH_SECRET });
      // Keys sealed here must open in the servers: the same secret they agreed on.
      const agreed = (await readSharedConfig(handle)).AUTH_SECRET;
      if (!env.ENCRYPTION_KEY && agreed && agreed.fingerprint !== fingerprintOf(authSecret))
        throw new DatabaseStartError(
          `AUTH_SECRET here differs from the one the servers use (fingerprint ${agreed.fingerprint}): give this command the servers' AUTH_SECRET (or their ENCRYPTION_KEY), or the keys it seals would not open in them.`,
        );
      const secrets = secretBox({
        encryptionKey: env.ENCRYPTION_KEY,
        authSecret,
        previous: env.ENCRYPTION_KEY_PREVIOUS,
      });
      const models = new ModelRegistry(env, {
        db: handle,
        box: secrets,
        logger,
      });
      await models.refresh();
      return { env, models, secrets };
    },
  };
  try {
    return await runAdminCommand(ctx, args);
  } finally {
    await database?.close();
  }
}

/** The folder the operator ran the command in: npm runs scripts from the project's root and names it INIT_CWD. */
function invokedFrom(): string {
  return process.env.INIT_CWD ?? process.cwd();
}
