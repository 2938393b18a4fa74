import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { eq } from "drizzle-orm";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite, type Schema } from "#server/db/client.ts";
import { appSetting } from "#server/db/schema/index.ts";
import { MIGRATIONS_DIR } from "#server/paths.ts";
import { runRole, startServer, tempDir, type TestServer } from "#tests/support/server.ts";

/** The last migration of the release before models and connections were kept in the database. */
const PREVIOUS_RELEASE_LAST_MIGRATION = "0022_processes_open_attempts_job_tally";

/**
 * An installation made by the previous release (its schema, its console settings and its environment) started by
 * this one: every model keeps its price, its provider's cost and whether it is offered.
 */
describe("an installation upgraded from the release before the catalog", () => {
  const dataDir = tempDir();
  const environment = {
    OPENAI_API_KEY: "sk-upgrade-test",
    FAL_KEY: "fal-upgrade-test",
    DISABLED_MODELS: "kling-video",
    MODEL_SETTINGS: JSON.stringify({ "flux-schnell": { credits: 2, timeoutSeconds: 90 } }),
  };
  let server: TestServer;

  const admin = async (...args: string[]) => {
    const run = runRole("admin", { DATA_DIR: dataDir, ...environment }, args);
    const code = await run.exited;
    return { code, output: run.output() };
  };

  beforeAll(async () => {
    // The previous release's schema: its migrations, those of this release left out.
    const migrations = tempDir("atelier-previous-migrations-");
    cpSync(MIGRATIONS_DIR, migrations, { recursive: true });
    const journalPath = join(migrations, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number; tag: string }[] };
    const last = journal.entries.findIndex((e) => e.tag === PREVIOUS_RELEASE_LAST_MIGRATION);
    expect(last).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, last + 1);
    writeFileSync(journalPath, JSON.stringify(journal));
    const handle = await openPglite(dataDir, pino({ level: "silent" }));
    try {
      await migrate(handle.db as unknown as PgliteDatabase<Schema>, {
        migrationsFolder: migrations,
        migrationsSchema: "drizzle",
      });
      // What the previous release's console wrote: the sections saved, the models' settings among them.
      await handle.db.insert(appSetting).values({
        key: "console_settings",
        value: {
          signupBonusCredits: 77,
          models: {
            "dall-e-3": { enabled: true, credits: 9, cost: 0.04 },
            "flux-dev": { enabled: false },
            "demo-image": { enabled: true, credits: 2 },
            "gpt-image-1": { enabled: true },
            "no-longer-in-the-catalog": { enabled: false, credits: 3 },
          },
        },
      });
    } finally {
      await handle.close();
      rmSync(migrations, { recursive: true, force: true });
    }
    server = await startServer({ DATA_DIR: dataDir, ...environment });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every price, provider's cost and switched-off model, under the configuration's own", async () => {
    const listed = await admin("models", "list", "--json");
    expect(listed.code).toBe(0);
    const models = JSON.parse(listed.output.slice(listed.output.indexOf("["))) as {
      id: string;
      offered: boolean;
      state: string;
      price: { credits: number };
    }[];
    const byId = Object.fromEntries(models.map((m) => [m.id, m]));
    expect(byId["dall-e-3"]).toMatchObject({ offered: true, price: { unit: "image", credits: 9 } });
    expect(byId["flux-dev"]).toMatchObject({ offered: false, state: "off" });
    expect(byId["demo-image"]).toMatchObject({ offered: true, price: { credits: 2 } });
    expect(byId["gpt-image-1"]).toMatchObject({ offered: true, price: { credits: 8 } });
    // The environment's settings still apply.
    expect(byId["kling-video"]).toMatchObject({ offered: false, state: "configOff" });
    expect(byId["flux-schnell"]).toMatchObject({ offered: true, price: { credits: 2 } });
    expect(byId["no-longer-in-the-catalog"]).toBeUndefined();

    const exported = await admin("models", "export");
    const catalog = JSON.parse(exported.output.slice(exported.output.indexOf("["))) as {
      id: string;
      cost?: number;
      timeoutSeconds?: number;
    }[];
    expect(catalog.find((m) => m.id === "dall-e-3")).toMatchObject({ cost: 0.04 });
    expect(catalog.find((m) => m.id === "flux-schnell")).toMatchObject({ timeoutSeconds: 90 });

    // What the site offers agrees: the pricing page lists DALL·E 3 at its price and not FLUX.1 [dev].
    const pricing = await (await fetch(`${server.url}/pricing`)).text();
    expect(pricing).toContain("DALL·E 3");
    expect(pricing).not.toContain("FLUX.1 [dev]");
  });

  it("moves the models' settings out of the console's settings once, keeping the other sections", async () => {
    await server.close();
    const handle = await openPglite(dataDir, pino({ level: "silent" }));
    try {
      const [row] = await handle.db
        .select({ value: appSetting.value })
        .from(appSetting)
        .where(eq(appSetting.key, "console_settings"));
      expect(row!.value).toEqual({ signupBonusCredits: 77 });
    } finally {
      await handle.close();
    }
    // Started again, the catalog is as it was.
    server = await startServer({ DATA_DIR: dataDir, ...environment });
    const listed = await admin("models", "list", "--json");
    const models = JSON.parse(listed.output.slice(listed.output.indexOf("["))) as { id: string; offered: boolean }[];
    expect(models.find((m) => m.id === "flux-dev")?.offered).toBe(false);
  });
});
