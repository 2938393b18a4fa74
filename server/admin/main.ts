import { z } from "zod";
import { loadEnvOrExit } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { openDatabase } from "#server/runtime.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { DatabaseStartError } from "#server/db/errors.ts";
import { setRoleByEmail } from "#server/modules/users/set-role.ts";

const USAGE = "Usage: npm run admin -- grant <email>   (or: revoke <email>)";

/** `npm run admin -- grant you@example.com`: makes an existing account an admin (revoke takes it back). */
export async function runAdmin(args: string[]) {
  const [command, email] = args;
  if ((command !== "grant" && command !== "revoke") || !email) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(1);
  }
  if (!z.email().safeParse(email.trim()).success) {
    process.stderr.write(`Not an e-mail address: ${email}\n`);
    process.exit(1);
  }
  const env = loadEnvOrExit();
  const logger = createLogger({ ...env, LOG_LEVEL: "warn" });
  let changed: boolean;
  try {
    const database = await openDatabase(env, logger);
    try {
      await applyMigrations(database);
      changed = await setRoleByEmail({ db: database.db, email, role: command === "grant" ? "admin" : "user" });
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
  if (!changed) {
    process.stderr.write(`No account with the e-mail ${email}. It must sign up first (or list it in ADMIN_EMAILS).\n`);
    process.exit(1);
  }
  process.stdout.write(command === "grant" ? `${email} is now an admin.\n` : `${email} is no longer an admin.\n`);
  process.exit(0);
}
