import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "#server/modules/settings/update-settings.ts";
import { changeModel } from "#server/modules/catalog/edit-models.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import type { Settings } from "#server/modules/settings/schema.ts";
import { openApp } from "#tests/support/in-process.ts";
import { eq } from "drizzle-orm";
import { user } from "#server/db/schema/index.ts";
import { insertSubscription } from "#tests/support/backends.ts";
import { addPlan, newPlan } from "#server/modules/billing/edit-plans.ts";

const TRAINED = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";

/*
 * The visible label, as the console sets it: off, the same prompt makes the same picture; on for everyone, the
 * picture differs in the chosen corner only and still carries its XMP; on for models that ask for it, only a model
 * whose definition says `label: true` gets it.
 */
describe("the visible label on output images", () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;

  beforeAll(async () => {
    app = await openApp({ SIGNUP_BONUS_CREDITS: "500" });
    cookie = await app.signedIn("labels@example.com");
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  /** The demo model's picture for a prompt (the same prompt draws the same picture), as stored. */
  const picture = async (prompt: string) => {
    const res = await app.call("POST", "/api/generations", {
      cookie,
      body: { tool: "text-to-image", model: "demo-image", prompt },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { generation } = (await res.json()) as { generation: { id: string } };
    expect(await app.ended(generation.id, cookie)).toBe("succeeded");
    const read = (await (await app.call("GET", `/api/generations/${generation.id}`, { cookie })).json()) as {
      generation: { outputs: { url: string }[] };
    };
    const file = await app.call("GET", read.generation.outputs[0]!.url, { cookie });
    return new Uint8Array(await file.arrayBuffer());
  };
  const setLabel = async (label: Settings["label"]) => {
    await updateSettings({
      db: app.runtime.database.db,
      defaults: app.runtime.settings.defaults,
      section: "label",
      value: label,
      actor: CLI_ACTOR,
    });
    await app.runtime.settings.refresh();
  };
  /** How many pixels differ noticeably between two pictures of one size, in each quarter. */
  const changes = async (a: Uint8Array, b: Uint8Array) => {
    const [x, y] = await Promise.all(
      [a, b].map((bytes) => sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })),
    );
    const { width, height } = x!.info;
    expect(y!.info).toMatchObject({ width, height });
    const quarters: Record<string, number> = { "top-left": 0, "top-right": 0, "bottom-left": 0, "bottom-right": 0 };
    for (let row = 0; row < height; row++)
      for (let col = 0; col < width; col++) {
        const at = (row * width + col) * 3;
        let d = 0;
        for (let c = 0; c < 3; c++) d += Math.abs(x!.data[at + c]! - y!.data[at + c]!);
        if (d > 24) quarters[`${row < height / 2 ? "top" : "bottom"}-${col < width / 2 ? "left" : "right"}`]!++;
      }
    return quarters;
  };

  it("is drawn in the chosen corner for everyone, or only for models that ask for it", async () => {
    const prompt = "a lighthouse on a cliff at dusk";
    const plain = await picture(prompt);
    expect(await changes(plain, await picture(prompt))).toEqual({
      "top-left": 0,
      "top-right": 0,
      "bottom-left": 0,
      "bottom-right": 0,
    });

    await setLabel({ enabled: true, text: "AI-generated", position: "top-right", scope: "everyone" });
    const labelled = await picture(prompt);
    const quarters = await changes(plain, labelled);
    expect(quarters["top-right"]).toBeGreaterThan(100);
    expect([quarters["top-left"], quarters["bottom-left"], quarters["bottom-right"]]).toEqual([0, 0, 0]);
    expect(Buffer.from(labelled).toString("latin1")).toContain(TRAINED);

    await setLabel({ enabled: true, text: "AI-generated", position: "top-right", scope: "models" });
    expect((await changes(plain, await picture(prompt)))["top-right"]).toBe(0);
    await changeModel({
      db: app.runtime.database.db,
      env: app.runtime.env,
      id: "demo-image",
      actor: CLI_ACTOR,
      change: (current) => ({ ...current, label: true }),
    });
    await app.runtime.models.refresh();
    expect((await changes(plain, await picture(prompt)))["top-right"]).toBeGreaterThan(100);

    // A plan that lifts the label: its subscriber's pictures have none (the XMP mark stays).
    await setLabel({ enabled: true, text: "AI-generated", position: "top-right", scope: "everyone" });
    const db = app.runtime.database.db;
    await addPlan({
      db,
      actor: CLI_ACTOR,
      definition: newPlan({ id: "clean", name: "Clean", monthly: { usd: 900 }, unlocks: { noLabel: true } }),
    });
    const [account] = await db.select({ id: user.id }).from(user).where(eq(user.email, "labels@example.com"));
    await insertSubscription(db, account!.id, "clean");
    const unlabelled = await picture(prompt);
    expect(await changes(plain, unlabelled)).toEqual({
      "top-left": 0,
      "top-right": 0,
      "bottom-left": 0,
      "bottom-right": 0,
    });
    expect(Buffer.from(unlabelled).toString("latin1")).toContain(TRAINED);
  });
});
