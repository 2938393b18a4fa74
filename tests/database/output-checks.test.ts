import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApp } from "#tests/support/in-process.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { generation } from "#server/db/schema/index.ts";

interface View {
  id: string;
  status: string;
  visibility: string;
  review: string | null;
  outputs: { url: string; thumbUrl: string | null }[];
}

/*
 * Outputs are checked before anyone but their owner sees them (here by the moderation endpoint's image categories):
 * a flagged result stays private, its owner still sees it, and it cannot be published or shared by the pages' API
 * or read by anyone else until an administrator clears it.
 */
describe("output checks", () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let openai: FakeOpenAI;
  let cookie: string;
  let other: string;

  const generate = async (body: object) => {
    const res = await app.call("POST", "/api/generations", { cookie, body });
    expect(res.status, await res.clone().text()).toBe(201);
    const { generation: g } = (await res.json()) as { generation: View };
    expect(await app.ended(g.id, cookie)).toBe("succeeded");
    const read = await app.call("GET", `/api/generations/${g.id}`, { cookie });
    return ((await read.json()) as { generation: View }).generation;
  };

  beforeAll(async () => {
    openai = await startFakeOpenAI();
    app = await openApp({ SIGNUP_BONUS_CREDITS: "500", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: openai.apiUrl });
    cookie = await app.signedIn("owner@example.com");
    other = await app.signedIn("someone@example.com");
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await openai?.close();
  });

  it("lets an unflagged result be published, with the checks kept", async () => {
    const g = await generate({ tool: "text-to-image", model: "demo-image", prompt: "a calm sea" });
    expect(g).toMatchObject({ review: null });
    const publish = await app.call("PATCH", `/api/generations/${g.id}`, { cookie, body: { visibility: "public" } });
    expect(publish.status).toBe(200);
    expect((await app.call("GET", g.outputs[0]!.url)).status).toBe(200);
    const [row] = await app.runtime.database.db
      .select({ safety: generation.safety })
      .from(generation)
      .where(eq(generation.id, g.id));
    expect(row!.safety!.output).toEqual(
      expect.arrayContaining([expect.objectContaining({ source: "moderation", flagged: false })]),
    );
    // The endpoint was sent the picture.
    const sent = openai.requests.filter((r) => r.path === "/v1/moderations").at(-1)!.body as {
      input: { type: string }[];
    };
    expect(sent.input.map((p) => p.type)).toEqual(["image_url"]);
  });

  it("keeps a flagged result private to its owner, and refuses to publish it", async () => {
    openai.moderation.imageScores = { sexual: 0.91 };
    const g = await generate({ tool: "text-to-image", model: "demo-image", prompt: "a beach" });
    openai.moderation.imageScores = {};
    expect(g).toMatchObject({ visibility: "private", review: "flagged" });
    // Its owner still reads it and its files.
    expect((await app.call("GET", g.outputs[0]!.url, { cookie })).status).toBe(200);
    // Nobody else does.
    expect((await app.call("GET", `/api/generations/${g.id}`, { cookie: other })).status).toBe(404);
    expect((await app.call("GET", g.outputs[0]!.url)).status).toBe(404);
    const publish = await app.call("PATCH", `/api/generations/${g.id}`, { cookie, body: { visibility: "public" } });
    expect(publish.status).toBe(403);
    expect(((await publish.json()) as { error: { code: string } }).error.code).toBe("under_review");
    const [row] = await app.runtime.database.db
      .select({ safety: generation.safety })
      .from(generation)
      .where(eq(generation.id, g.id));
    expect(row!.safety).toMatchObject({
      output: expect.arrayContaining([
        expect.objectContaining({ source: "moderation", flagged: true, categories: ["sexual"] }),
      ]),
    });
  });

  it("does not check outputs at the off level", async () => {
    await app.runtime.database.db.update(generation).set({ review: null });
    const calls = openai.requests.length;
    openai.moderation.imageScores = { sexual: 0.91 };
    const { models } = app.runtime;
    await app.runtime.database.db.execute(
      `insert into catalog_model (id, definition) values ('demo-image', '{"safety":"off"}') on conflict (id) do update set definition = catalog_model.definition || '{"safety":"off"}'`,
    );
    await models.refresh();
    const g = await generate({ tool: "text-to-image", model: "demo-image", prompt: "a beach at night" });
    openai.moderation.imageScores = {};
    expect(g.review).toBeNull();
    expect(openai.requests.length).toBe(calls);
  });

  it("runs the offline classifier on each picture when it is on, and keeps its scores", async () => {
    const classified = await openApp({ SIGNUP_BONUS_CREDITS: "100", IMAGE_CLASSIFIER: "on" });
    try {
      const owner = await classified.signedIn("classified@example.com");
      const res = await classified.call("POST", "/api/generations", {
        cookie: owner,
        body: { tool: "text-to-image", model: "demo-image", prompt: "a field of sunflowers" },
      });
      const { generation: g } = (await res.json()) as { generation: View };
      expect(await classified.ended(g.id, owner)).toBe("succeeded");
      const [row] = await classified.runtime.database.db
        .select({ safety: generation.safety, review: generation.review })
        .from(generation)
        .where(eq(generation.id, g.id));
      expect(row!.review).toBeNull();
      const finding = row!.safety!.output!.find((f) => f.source === "classifier")!;
      expect(finding).toMatchObject({ flagged: false, categories: [] });
      const total = Object.values(finding.scores!).reduce((a, b) => a + b, 0);
      expect(total).toBeCloseTo(1, 2);
      expect(Object.keys(finding.scores!).sort()).toEqual(["drawing", "hentai", "neutral", "porn", "sexy"]);
    } finally {
      await classified.close();
    }
  }, 120_000);
});
