import { parseArgs } from "node:util";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { AppError } from "#server/errors.ts";
import { createCodes } from "#server/modules/credits/create-codes.ts";
import { adjustCredits } from "#server/modules/credits/adjust-credits.ts";
import { loadEnvOrExit } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { openDatabase } from "#server/runtime.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { DatabaseStartError } from "#server/db/errors.ts";
import { setRole } from "#server/modules/users/set-role.ts";
import { setBan } from "#server/modules/users/set-ban.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import {
  forgetSharedSetting,
  readSharedConfig,
  SHARED_SETTINGS,
  type SharedSetting,
} from "#server/modules/installation/agree-on-configuration.ts";
import { describeProcess, otherRunningProcesses } from "#server/modules/installation/register-process.ts";

const USAGE = `Usage: npm run admin -- <command> <email>
  grant <email>            make the account an admin
  revoke <email>           take the admin role back
  ban <email> [reason]     suspend the account and end its sessions
  unban <email>            lift the suspension
  credits <email> <+n|-n>   add or remove credits (an adjustment in the account's credit history)
  codes create --credits <n> [--uses <n>] [--count <n>] [--expires <YYYY-MM-DD>] [--batch <name>]
                           create redemption codes and print them (only their hashes are kept)
  config                   show the settings every process shares (site URL, webhook policy, auth secret's
                           fingerprint, storage) and the processes running
  config forget <NAME>     forget one of them (SITE_URL, WEBHOOK_ALLOW_PRIVATE_NETWORKS, AUTH_SECRET or STORAGE):
                           the next process to start records its own`;

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
  if (args[0] === "codes") return runCodes(args.slice(1));
  if (args[0] === "credits") return runCredits(args.slice(1));
  if (args[0] === "config") return runConfig(args.slice(1));
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
  const changed = await withDatabase((db) =>
    command === "grant" || command === "revoke"
      ? setRole({ db, account: { email }, role: command === "grant" ? "admin" : "user", actor: CLI_ACTOR })
      : setBan({
          db,
          account: { email },
          banned: command === "ban",
          reason: rest.join(" ").trim() || undefined,
          actor: CLI_ACTOR,
        }),
  );
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

/** Opens the configured database (migrated), runs `work` and closes it; a database that cannot open is one line. */
async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const env = loadEnvOrExit();
  const logger = createLogger({ ...env, LOG_LEVEL: "warn" });
  try {
    const database = await openDatabase(env, logger);
    try {
      await applyMigrations(database);
      return await work(database.db);
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

const fail = (message: string): never => {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(1);
};

/** `npm run admin -- codes create --credits 50 --uses 1 --count 10 --expires 2027-01-31`. */
async function runCodes(args: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        credits: { type: "string" },
        uses: { type: "string", default: "1" },
        count: { type: "string", default: "1" },
        expires: { type: "string" },
        batch: { type: "string" },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals[0] !== "create" || positionals.length !== 1) return fail("Unknown codes command.");
  const whole = (name: string, value: string | undefined) => {
    const n = Number(value);
    return value !== undefined && /^\d+$/.test(value) && Number.isSafeInteger(n)
      ? n
      : fail(`--${name} must be a whole number.`);
  };
  const expiresAt = values.expires ? new Date(`${values.expires}T23:59:59Z`) : null;
  if (expiresAt && Number.isNaN(expiresAt.getTime())) return fail("--expires must be a date like 2027-01-31.");
  try {
    const { batch, codes } = await withDatabase((db) =>
      createCodes({
        db,
        credits: whole("credits", values.credits),
        maxUses: whole("uses", values.uses),
        count: whole("count", values.count),
        expiresAt,
        batch: values.batch,
        createdBy: "cli",
        actor: CLI_ACTOR,
      }),
    );
    process.stderr.write(`Batch ${batch}: ${codes.length} code(s).\n`);
    process.stdout.write(`${codes.join("\n")}\n`);
    process.exit(0);
  } catch (error) {
    if (error instanceof AppError) return fail(error.message);
    throw error;
  }
}

/** `npm run admin -- credits you@example.com +100` (or -100). */
async function runCredits(args: string[]) {
  const [email, change, ...rest] = args;
  if (!email || !change || rest.length > 0) return fail("Usage: credits <email> <+n|-n>");
  if (!/^[+-]?\d+$/.test(change) || !Number.isSafeInteger(Number(change)) || Number(change) === 0)
    return fail("The change must be a whole number other than 0, like +100 or -20.");
  try {
    const { balance } = await withDatabase((db) =>
      adjustCredits({ db, account: { email }, amount: Number(change), actor: CLI_ACTOR }),
    );
    process.stdout.write(`${email} now has ${balance} credits.\n`);
    process.exit(0);
  } catch (error) {
    if (error instanceof AppError) {
      process.stderr.write(
        error.code === "insufficient_credits"
          ? `${email} does not have that many credits available (${error.message}).\n`
          : `${error.message}\n`,
      );
      process.exit(1);
    }
    throw error;
  }
}

/** `npm run admin -- config` and `config forget SITE_URL`: the settings every process shares (docs/OPERATIONS.md). */
async function runConfig(args: string[]) {
  const [command, name, ...rest] = args;
  if (command === undefined) {
    const { recorded, running } = await withDatabase(async (db) => ({
      recorded: await readSharedConfig(db),
      running: await otherRunningProcesses(db, { id: "" }),
    }));
    const lines = [
      `SITE_URL                        ${recorded.SITE_URL ? `${recorded.SITE_URL.value}${recorded.SITE_URL.source === "default" ? " (the default)" : ""}` : "not recorded yet"}`,
      `WEBHOOK_ALLOW_PRIVATE_NETWORKS  ${recorded.WEBHOOK_ALLOW_PRIVATE_NETWORKS ? `${recorded.WEBHOOK_ALLOW_PRIVATE_NETWORKS.value ? "on" : "off"}${recorded.WEBHOOK_ALLOW_PRIVATE_NETWORKS.source === "default" ? " (the default)" : ""}` : "not recorded yet"}`,
      `AUTH_SECRET                     ${recorded.AUTH_SECRET ? `fingerprint ${recorded.AUTH_SECRET.fingerprint}${recorded.AUTH_SECRET.source === "database" ? " (the secret kept in the database)" : ""}` : "not recorded yet"}`,
      `STORAGE                         ${recorded.STORAGE ? `${recorded.STORAGE.where}, marked ${recorded.STORAGE.id}` : "not recorded yet"}`,
      "",
      running.length === 0
        ? "No process is running on this database."
        : `Running: ${running.map((p) => `${describeProcess(p)}, seen ${p.secondsSinceSeen} s ago`).join("; ")}.`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    process.exit(0);
  }
  const setting = SHARED_SETTINGS.find((s) => s === name) as SharedSetting | undefined;
  if (command !== "forget" || !setting || rest.length > 0)
    return fail(`Usage: config, or config forget <${SHARED_SETTINGS.join("|")}>`);
  const forgotten = await withDatabase((db) => forgetSharedSetting(db, setting));
  process.stdout.write(
    forgotten
      ? `${setting} is forgotten: the next process to start records its own. Restart every process so that they agree.\n`
      : `${setting} was not recorded.\n`,
  );
  process.exit(0);
}
