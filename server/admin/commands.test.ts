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
               [--credits-last <days>]
                           create redemption codes and print them (only their hashes are kept); a redeemed
                           code's credits expire after --credits-last days (0, the default: never)
  config                   show the settings every process shares (site URL, webhook policy, auth secret's
                           fingerprint, storage) and the processes running
  config forget <NAME>     forget one of them (SITE_URL, WEBHOOK_ALLOW_PRIVATE_NETWORKS, AUTH_SECRET or STORAGE):
                           the next process to start records its own
  models list [--json]     every model of the catalog, built-in and added, offered or not
  models add <provider>:<provider-model-id> --credits <n> [--unit image|video|second] [--kind image|video|chat]
             [--id <id>] [--name <name>] [--tools text-to-image,image-to-image] [--connection <id>]
             [--output-credits <n>] [--enable] [--no-schema]
                           add a model (disabled unless --enable); fal, Replicate and OpenAI-compatible models
                           are read from the provider's schema (their settings, limits and tools) unless
                           --no-schema; chat prices are per million tokens
  models add comfyui:<workflow.json> --connection <id> --credits <n> --id <id> [--enable]
                           a ComfyUI workflow (API format, or the UI format read with a server's node list):
                           its prompt, negative prompt, seed and size are the user's, the rest stays as saved;
                           --enable runs it once on the pool and offers it when that test passes
  models set <id> <key=value>…  change fields (price.credits=4 price.multipliers.resolution.1080p=2
                           price.minimum=5 enabled=false options.seed=true names.de=…)
  models workflow <id> <workflow.json>
                           a new version of a workflow model (queued and running jobs keep theirs)
  models test <id>         generate once with each of its providers now (a real, paid call) and say if it works
  models enable|disable <id>    offer it, or stop offering it everywhere
  models remove <id>       remove an added model (a built-in one goes back to its built-in definition)
  models export            print the whole catalog as JSON
                           (npm run --silent admin -- models export > catalog.json)
  models import <file>     apply a catalog file: checked whole, applied in one transaction
  connections list [--json]  every provider connection: the environment's and those added
  connections add <provider> [--key <key>] [--base-url <url>] [--set <name=value>]… [--name <name>] [--id <id>]
                 [--allow-private-network]
                           add a connection (its key sealed in the database); it serves at once; a base URL on
                           plain http or a private network needs --allow-private-network
  connections add comfyui --name <name> --url <url> [--url <url>]… [--header "<Name>: <value>"]
                           a pool of your own ComfyUI servers (on your network: plain http and private
                           addresses are allowed); the header, sealed, is sent to each of them
  connections test <id>    check its key and address with the provider (nothing is generated)
  connections enable|disable|remove <id>
  plans list [--json]      the plans (the free one first): prices, credits a month, what each unlocks
  plans add --id ID --name NAME --monthly AMOUNT:CURRENCY [--yearly AMOUNT:CURRENCY] --credits N [--rollover N]
            [--models TAG,…]
                           add a plan; amounts in minor units (900:usd), --monthly and --yearly once per currency
  plans set <id> <key=value>…
                           change fields (credits=500 rollover=100 monthly.eur=900 names.de=Profi
                           unlocks.api=false unlocks.concurrentJobs=4 unlocks.models=["pro"]; empty removes)
  plans archive <id>       sell a plan no more (its subscribers keep it; the free plan stays)`;

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
