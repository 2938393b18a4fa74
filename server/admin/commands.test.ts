import { describe, expect, it } from "vitest";
import { runAdminCommand, type AdminContext } from "#server/admin/commands.ts";
import { DatabaseStartError } from "#server/db/errors.ts";

/** The usage text operators and scripts know: printed for an unknown command. */
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

/** A command line that is wrong is answered without opening the database. */
const noDatabase: AdminContext = {
  cwd: "/",
  db: () => Promise.reject(new Error("the database was opened")),
};
const run = (...args: string[]) => runAdminCommand(noDatabase, args);

describe("admin commands", () => {
  it("prints the usage text for a missing or unknown command", async () => {
    for (const args of [[], ["promote", "a@example.com"], ["toString"], ["grant"], ["__proto__"]]) {
      expect(await runAdminCommand(noDatabase, args), args.join(" ")).toEqual({
        stdout: "",
        stderr: `${USAGE}\n`,
        code: 1,
      });
    }
  });

  it("refuses bad arguments, with the usage text after the reason where it was given before", async () => {
    expect(await run("ban", "not-an-address")).toEqual({
      stdout: "",
      stderr: "Not an e-mail address: not-an-address\n",
      code: 1,
    });
    expect(await run("credits", "a@example.com", "0")).toEqual({
      stdout: "",
      stderr: `The change must be a whole number other than 0, like +100 or -20.\n${USAGE}\n`,
      code: 1,
    });
    expect(await run("credits", "a@example.com")).toMatchObject({
      stderr: `Usage: credits <email> <+n|-n>\n${USAGE}\n`,
      code: 1,
    });
    expect(await run("codes", "create", "--credits", "1.5")).toMatchObject({
      stderr: `--credits must be a whole number.\n${USAGE}\n`,
      code: 1,
    });
    expect(await run("codes", "create", "--credits", "x", "--expires", "soon")).toMatchObject({
      stderr: `--expires must be a date like 2027-01-31.\n${USAGE}\n`,
      code: 1,
    });
    expect(await run("codes", "delete")).toMatchObject({ stderr: `Unknown codes command.\n${USAGE}\n`, code: 1 });
    expect(await run("codes", "create", "--colour", "red")).toMatchObject({ code: 1 });
    expect(await run("config", "forget", "PORT")).toMatchObject({
      stderr: `Usage: config, or config forget <SITE_URL|WEBHOOK_ALLOW_PRIVATE_NETWORKS|AUTH_SECRET|STORAGE>\n${USAGE}\n`,
      code: 1,
    });
  });

  it("says in one line that the database cannot open", async () => {
    const locked: AdminContext = {
      cwd: "/",
      db: () => Promise.reject(new DatabaseStartError("The folder is in use.")),
    };
    expect(await runAdminCommand(locked, ["grant", "a@example.com"])).toEqual({
      stdout: "",
      stderr: "The folder is in use.\n",
      code: 1,
    });
  });
});
