import { z } from "zod";
import { loadEnvOrExit } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { openDatabase } from "#server/runtime.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { DatabaseStartError } from "#server/db/errors.ts";
import { setRoleByEmail } from "#server/modules/users/set-role.ts";
import { setBanByEmail } from "#server/modules/users/set-ban.ts";

const USAGE = `Usage: npm run admin -- <command> <email>
  grant <email>            make the account an admin
  revoke <email>           take the admin role back
  ban <email> [reason]     suspend the account and end its sessions
  unban <email>            lift the suspension`;

const COMMANDS = ["grant", "revoke", "ban", "unban"] as const;
type Command = (typeof COMMANDS)[number];

const DONE: Record<Command, (email: string) => string> = {
  grant: (email) => `${email} is now an admin.`,
  revoke: (email) => `${email} is no longer an admin.`,
  ban: (email) => `${email} is suspended; its sessions have ended.`,
  unban: (email) => `${email} can sign in again.`,
};

/** `npm run admin -- grant you@example.com`: operator commands on an existing account (see USAGE). */
export async function runAdmin(args: string[]) {
  const [name, email, ...rest] = args;
  const command = COMMANDS.find((c) => c === name);
  if (!command || !email) {
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
      changed =
        command === "grant" || command === "revoke"
          ? await setRoleByEmail({ db: database.db, email, role: command === "grant" ? "admin" : "user" })
          : await setBanByEmail({
              db: database.db,
              email,
              banned: command === "ban",
              reason: rest.join(" ").trim() || undefined,
            });
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
    process.stderr.write(
      command === "grant"
        ? `No account with the e-mail ${email}. It must sign up first (or list it in ADMIN_EMAILS).\n`
        : `No account with the e-mail ${email}.\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${DONE[command](email)}\n`);
  process.exit(0);
}
