import { resolve } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApp } from "#tests/support/in-process.ts";
import { runAdminCommand } from "#server/admin/commands.ts";
import { adminAction } from "#server/db/schema/index.ts";
import { changePlan } from "#server/modules/billing/edit-plans.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/*
 * Plans are data an operator keeps on the command line: the free plan every account is on exists from the start and
 * can be changed but not priced or archived; a plan is added with its prices per currency and interval (minor units),
 * its credits a period and what it unlocks, changed field by field, and archived. Every change is audited.
 */
describe("plans", () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  const admin = (...args: string[]) => runAdminCommand({ db: async () => app.runtime.database.db, cwd: ROOT }, args);
  const list = async () => JSON.parse((await admin("plans", "list", "--json")).stdout) as Record<string, unknown>[];

  beforeAll(async () => {
    app = await openApp();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("starts with the free plan, which unlocks what every account could do", async () => {
    expect(await list()).toEqual([
      expect.objectContaining({
        id: "free",
        name: "Free",
        monthly: {},
        credits: 0,
        archivedAt: null,
        unlocks: {
          models: [],
          concurrentJobs: null,
          privateResults: false,
          noLabel: false,
          priority: false,
          api: true,
        },
      }),
    ]);
  });

  it("adds a plan with its prices per currency, credits, rollover and models, and lists it", async () => {
    const added = await admin(
      "plans",
      "add",
      "--id",
      "pro",
      "--name",
      "Pro",
      "--monthly",
      "900:usd",
      "--monthly",
      "850:EUR",
      "--yearly",
      "9000:usd",
      "--credits",
      "500",
      "--rollover",
      "200",
      "--models",
      "pro-models,flux-pro",
    );
    expect(added).toMatchObject({ code: 0, stdout: "Plan pro added.\n" });
    const pro = (await list()).find((p) => p.id === "pro");
    expect(pro).toMatchObject({
      name: "Pro",
      monthly: { usd: 900, eur: 850 },
      yearly: { usd: 9000 },
      credits: 500,
      rollover: 200,
      unlocks: { models: ["pro-models", "flux-pro"], api: true, priority: false },
    });
    const text = (await admin("plans", "list")).stdout;
    expect(text).toContain("pro  Pro");
    expect(text).toContain("monthly 8.50 EUR, 9.00 USD; yearly 90.00 USD");
    expect(text).toContain("500 credits a month, up to 200 roll over");
  });

  it("refuses what would not make a plan, saying why, and writes nothing", async () => {
    const refusals: [string[], RegExp][] = [
      [["--id", "x", "--name", "X", "--credits", "5"], /needs --monthly/],
      [["--id", "x", "--name", "X", "--monthly", "9usd", "--credits", "5"], /AMOUNT:CURRENCY/],
      [["--id", "x", "--name", "X", "--monthly", "900:usd", "--monthly", "100:usd", "--credits", "5"], /usd twice/],
      [["--id", "x", "--name", "X", "--monthly", "900:usd", "--credits", "-5"], /--credits/],
      [["--id", "Not Valid", "--name", "X", "--monthly", "900:usd", "--credits", "5"], /^id:/],
      [["--id", "pro", "--name", "Again", "--monthly", "900:usd", "--credits", "5"], /exists already/],
    ];
    for (const [args, said] of refusals) {
      const out = await admin("plans", "add", ...args);
      expect(out.code, args.join(" ")).toBe(1);
      expect(out.stderr).toMatch(said);
    }
    expect((await list()).map((p) => p.id)).toEqual(["free", "pro"]);
  });

  it("changes a plan field by field, and refuses a price on the free plan", async () => {
    expect(
      await admin(
        "plans",
        "set",
        "pro",
        "credits=800",
        "monthly.gbp=700",
        "names.de=Profi",
        "unlocks.priority=true",
        "unlocks.concurrentJobs=4",
      ),
    ).toMatchObject({ code: 0, stdout: "Plan pro changed.\n" });
    expect((await list()).find((p) => p.id === "pro")).toMatchObject({
      credits: 800,
      monthly: { usd: 900, eur: 850, gbp: 700 },
      names: { de: "Profi" },
      unlocks: { priority: true, concurrentJobs: 4 },
    });
    expect(await admin("plans", "set", "pro", "credits=800")).toMatchObject({ stdout: "Plan pro unchanged.\n" });
    expect(await admin("plans", "set", "free", "monthly.usd=500")).toMatchObject({ code: 1 });
    expect((await admin("plans", "set", "free", "monthly.usd=500")).stderr).toMatch(/free plan has no price/);
    expect(await admin("plans", "set", "free", "unlocks.api=false")).toMatchObject({ code: 0 });
    expect(await admin("plans", "set", "nope", "credits=1")).toMatchObject({ code: 1, stderr: "no plan nope\n" });
  });

  it("applies two changes at once one after the other", async () => {
    const { db } = app.runtime.database;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        changePlan({ db, id: "pro", actor: CLI_ACTOR, change: (p) => ({ ...p, credits: p.credits + 1 }) }),
      ),
    );
    expect((await list()).find((p) => p.id === "pro")).toMatchObject({ credits: 810 });
  });

  it("archives a plan once, never the free one, and audits every change", async () => {
    expect(await admin("plans", "archive", "free")).toMatchObject({ code: 1 });
    expect(await admin("plans", "archive", "pro")).toMatchObject({
      code: 0,
      stdout: "Plan pro archived: it is sold no more.\n",
    });
    expect(await admin("plans", "archive", "pro")).toMatchObject({
      code: 0,
      stdout: "Plan pro was archived already.\n",
    });
    expect((await list()).find((p) => p.id === "pro")!.archivedAt).not.toBeNull();
    const audited = await app.runtime.database.db
      .select({ action: adminAction.action })
      .from(adminAction)
      .where(eq(adminAction.targetType, "plan"));
    expect(audited.map((a) => a.action).sort()).toEqual([
      "plans.add",
      "plans.archive",
      ...Array.from({ length: 12 }, () => "plans.set"),
    ]);
  });
});
