import { connectionsCommand, modelsCommand } from "#server/admin/catalog-commands.ts";
import { plansCommand } from "#server/admin/plan-commands.ts";
import { parseArgs } from "node:util";
import { z } from "zod";
import { DatabaseStartError } from "#server/db/errors.ts";
import { AppError } from "#server/errors.ts";
import { createCodes } from "#server/modules/credits/create-codes.ts";
import { adjustCredits } from "#server/modules/credits/adjust-credits.ts";
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
import {
  ok,
  refused,
  refusedWithUsage as fail,
  type AdminCommand,
  type AdminContext,
  type AdminOutput,
} from "#server/admin/output.ts";

export type { AdminCommand, AdminContext, AdminOutput };

const DONE = {
  grant: (email: string) => `${email} is now an admin.`,
  revoke: (email: string) => `${email} is no longer an admin.`,
  ban: (email: string) => `${email} is suspended; its sessions have ended.`,
  unban: (email: string) => `${email} can sign in again.`,
};

/** `grant|revoke|ban|unban <email>`: the role and the suspension of an existing account. */
function accountCommand(name: keyof typeof DONE, usageLine: string): AdminCommand {
  return {
    usage: usageLine,
    async run(ctx, [email, ...rest]) {
      if (!email) return fail();
      if (!z.email().safeParse(email.trim()).success) return refused(`Not an e-mail address: ${email}\n`);
      const db = await ctx.db();
      const changed =
        name === "grant" || name === "revoke"
          ? await setRole({ db, account: { email }, role: name === "grant" ? "admin" : "user", actor: CLI_ACTOR })
          : await setBan({
              db,
              account: { email },
              banned: name === "ban",
              reason: rest.join(" ").trim() || undefined,
              actor: CLI_ACTOR,
            });
      if (!changed)
        return refused(
          name === "grant"
            ? `No account with the e-mail ${email}. It must sign up first (or list it in ADMIN_EMAILS).\n`
            : `No account with the e-mail ${email}.\n`,
        );
      return ok(`${DONE[name](email)}\n`);
    },
  };
}

/** `credits you@example.com +100` (or -100). */
const credits: AdminCommand = {
  usage: `  credits <email> <+n|-n>   add or remove credits (an adjustment in the account's credit history)`,
  async run(ctx, args) {
    const [email, change, ...rest] = args;
    if (!email || !change || rest.length > 0) return fail("Usage: credits <email> <+n|-n>");
    if (!/^[+-]?\d+$/.test(change) || !Number.isSafeInteger(Number(change)) || Number(change) === 0)
      return fail("The change must be a whole number other than 0, like +100 or -20.");
    try {
      const { balance } = await adjustCredits({
        db: await ctx.db(),
        account: { email },
        amount: Number(change),
        actor: CLI_ACTOR,
      });
      return ok(`${email} now has ${balance} credits.\n`);
    } catch (error) {
      if (error instanceof AppError)
        return refused(
          error.code === "insufficient_credits"
            ? `${email} does not have that many credits available (${error.message}).\n`
            : `${error.message}\n`,
        );
      throw error;
    }
  },
};

/** `codes create --credits 50 --uses 1 --count 10 --expires 2027-01-31`. */
const codes: AdminCommand = {
  usage: `  codes create --credits <n> [--uses <n>] [--count <n>] [--expires <YYYY-MM-DD>] [--batch <name>]
               [--credits-last <days>]
                           create redemption codes and print them (only their hashes are kept); a redeemed
                           code's credits expire after --credits-last days (0, the default: never)`,
  async run(ctx, args) {
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
          "credits-last": { type: "string", default: "0" },
        },
      });
    } catch (error) {
      return fail((error as Error).message);
    }
    const { values, positionals } = parsed;
    if (positionals[0] !== "create" || positionals.length !== 1) return fail("Unknown codes command.");
    const whole = (value: string | undefined) => {
      const n = Number(value);
      return value !== undefined && /^\d+$/.test(value) && Number.isSafeInteger(n) ? n : undefined;
    };
    const expiresAt = values.expires ? new Date(`${values.expires}T23:59:59Z`) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) return fail("--expires must be a date like 2027-01-31.");
    const numbers = {
      credits: whole(values.credits),
      uses: whole(values.uses),
      count: whole(values.count),
      "credits-last": whole(values["credits-last"]),
    };
    for (const name of ["credits", "uses", "count", "credits-last"] as const)
      if (numbers[name] === undefined) return fail(`--${name} must be a whole number.`);
    try {
      const { batch, codes: made } = await createCodes({
        db: await ctx.db(),
        credits: numbers.credits!,
        maxUses: numbers.uses!,
        count: numbers.count!,
        expiresAt,
        creditsExpireDays: numbers["credits-last"],
        batch: values.batch,
        createdBy: "cli",
        actor: CLI_ACTOR,
      });
      return ok(`${made.join("\n")}\n`, `Batch ${batch}: ${made.length} code(s).\n`);
    } catch (error) {
      if (error instanceof AppError) return fail(error.message);
      throw error;
    }
  },
};

/** `config` and `config forget SITE_URL`: the settings every process shares (docs/OPERATIONS.md). */
const config: AdminCommand = {
  usage: `  config                   show the settings every process shares (site URL, webhook policy, auth secret's
                           fingerprint, storage) and the processes running
  config forget <NAME>     forget one of them (SITE_URL, WEBHOOK_ALLOW_PRIVATE_NETWORKS, AUTH_SECRET or STORAGE):
                           the next process to start records its own`,
  async run(ctx, args) {
    const [command, name, ...rest] = args;
    if (command === undefined) {
      const db = await ctx.db();
      const recorded = await readSharedConfig(db);
      const running = await otherRunningProcesses(db, { id: ctx.server?.id ?? "" });
      // The server running this command is one of them (on the embedded database it keeps no row of itself).
      if (ctx.server) running.unshift({ ...ctx.server, secondsSinceSeen: 0 });
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
      return ok(`${lines.join("\n")}\n`);
    }
    const setting = SHARED_SETTINGS.find((s) => s === name) as SharedSetting | undefined;
    if (command !== "forget" || !setting || rest.length > 0)
      return fail(`Usage: config, or config forget <${SHARED_SETTINGS.join("|")}>`);
    const forgotten = await forgetSharedSetting(await ctx.db(), setting);
    return ok(
      forgotten
        ? `${setting} is forgotten: the next process to start records its own. Restart every process so that they agree.\n`
        : `${setting} was not recorded.\n`,
    );
  },
};

/**
 * Every command of `npm run admin -- <command> …`, in the order of the usage text. A new command is one entry here:
 * its name and an `AdminCommand` (server/admin/output.ts has the type and the helpers for its output; a command with
 * subcommands, like `codes` or `config`, reads them from its own arguments). The command line and a running server
 * both run it from here.
 */
export const ADMIN_COMMANDS: Record<string, AdminCommand> = {
  grant: accountCommand("grant", "  grant <email>            make the account an admin"),
  revoke: accountCommand("revoke", "  revoke <email>           take the admin role back"),
  ban: accountCommand("ban", "  ban <email> [reason]     suspend the account and end its sessions"),
  unban: accountCommand("unban", "  unban <email>            lift the suspension"),
  credits,
  codes,
  config,
  models: modelsCommand,
  connections: connectionsCommand,
  plans: plansCommand,
};

export function usage(): string {
  return [
    "Usage: npm run admin -- <command> <email>",
    ...Object.values(ADMIN_COMMANDS).map((command) => command.usage),
  ].join("\n");
}

/**
 * Runs one command line (`["grant", "you@example.com"]`): the usage text for an unknown command, one line for a
 * database that cannot open. Other errors are thrown to the caller.
 */
export async function runAdminCommand(ctx: AdminContext, args: string[]): Promise<AdminOutput> {
  const [name, ...rest] = args;
  const command = name !== undefined && Object.hasOwn(ADMIN_COMMANDS, name) ? ADMIN_COMMANDS[name] : undefined;
  if (!command) return { stdout: "", stderr: `${usage()}\n`, code: 1 };
  try {
    const { usage: withUsage, ...output } = await command.run(ctx, rest);
    return withUsage ? { ...output, stderr: `${output.stderr}${usage()}\n` } : output;
  } catch (error) {
    if (error instanceof DatabaseStartError) return { stdout: "", stderr: `${error.message}\n`, code: 1 };
    throw error;
  }
}
