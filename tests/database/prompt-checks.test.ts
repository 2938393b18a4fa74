import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApp } from "#tests/support/in-process.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { apiKey, generation, promptRefusal, user } from "#server/db/schema/index.ts";
import { updateSettings } from "#server/modules/settings/update-settings.ts";
import { studioTools } from "#server/modules/chat/tools.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";

/*
 * A prompt is checked before anything is held or queued, the same way through the studio, the public API, the
 * OpenAI-compatible API and the chat's tools: the operator's block list, then the moderation endpoint when an OpenAI
 * connection exists. A refusal costs nothing, is recorded with what each check said, and says why in the person's
 * language; the findings of an accepted prompt are kept with its generation.
 */
describe("prompt checks", () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let openai: FakeOpenAI;
  let cookie: string;
  let key: string;
  let userId: string;

  const balance = async () => {
    const res = await app.call("GET", "/api/me", { cookie });
    return ((await res.json()) as { credits: { balance: number; held: number } }).credits;
  };
  const api = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.app.request(`${app.origin}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const refusals = async () =>
    app.runtime.database.db
      .select()
      .from(promptRefusal)
      .where(eq(promptRefusal.userId, userId))
      .orderBy(promptRefusal.createdAt);
  const setSafety = async (value: { level: "strict" | "standard" | "off"; blockList: Record<string, string> }) => {
    await updateSettings({
      db: app.runtime.database.db,
      defaults: app.runtime.settings.defaults,
      section: "safety",
      value,
      actor: CLI_ACTOR,
    });
    await app.runtime.settings.refresh();
  };
  const moderationCalls = () => openai.requests.filter((r) => r.path === "/v1/moderations").length;

  beforeAll(async () => {
    openai = await startFakeOpenAI();
    app = await openApp({ SIGNUP_BONUS_CREDITS: "500", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: openai.apiUrl });
    cookie = await app.signedIn("checked@example.com");
    const [row] = await app.runtime.database.db
      .select({ id: user.id })
      .from(user)
      .where(eq(user.email, "checked@example.com"));
    userId = row!.id;
    const created = await app.call("POST", "/api/keys", { cookie, body: {} });
    key = ((await created.json()) as { secret: string }).secret;
    await setSafety({ level: "standard", blockList: { all: "gore\n/k[i1]ll\\s+him/", de: "Gift" } });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await openai?.close();
  });

  it("refuses a blocked prompt in the studio, in the page's language, holding and queuing nothing", async () => {
    const before = await balance();
    const res = await app.call("POST", "/api/generations", {
      cookie,
      headers: { "x-locale": "de" },
      body: { tool: "text-to-image", model: "demo-image", prompt: "a castle covered in GORE" },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("content_policy_violation");
    expect(body.error.message).toContain("Wörter, die diese Seite nicht erlaubt");
    expect(await balance()).toEqual(before);
    const [refused] = await refusals();
    expect(refused).toMatchObject({
      source: "web",
      modelId: "demo-image",
      prompt: "a castle covered in GORE",
      level: "standard",
      findings: [{ source: "block_list", flagged: true, categories: ["gore"] }],
    });
    // The endpoint was not asked: the operator's own list had decided.
    expect(moderationCalls()).toBe(0);
    const made = await app.runtime.database.db
      .select({ id: generation.id })
      .from(generation)
      .where(eq(generation.userId, userId));
    expect(made).toEqual([]);
  });

  it("applies a language's list to requests in that language only", async () => {
    const german = await app.call("POST", "/api/generations", {
      cookie,
      headers: { "x-locale": "de" },
      body: { tool: "text-to-image", model: "demo-image", prompt: "eine Flasche Gift" },
    });
    expect(german.status).toBe(400);
    const english = await app.call("POST", "/api/generations", {
      cookie,
      headers: { "x-locale": "en" },
      body: { tool: "text-to-image", model: "demo-image", prompt: "a gift for my mother" },
    });
    expect(english.status).toBe(201);
    const { generation: g } = (await english.json()) as { generation: { id: string } };
    await app.ended(g.id, cookie);
    const [row] = await app.runtime.database.db
      .select({ safety: generation.safety })
      .from(generation)
      .where(eq(generation.id, g.id));
    // What the endpoint said of an accepted prompt is kept with it.
    expect(row!.safety).toMatchObject({ level: "standard", prompt: [{ source: "moderation", flagged: false }] });
  });

  it("refuses what the moderation endpoint flags, naming the category, through both APIs and the chat", async () => {
    const before = await balance();
    const v1 = await api(
      "/v1/images/generations",
      { model: "demo-image", prompt: "moderation-sexual scene", response_format: "b64_json" },
      { "Accept-Language": "fr" },
    );
    expect(v1.status).toBe(400);
    const openaiBody = (await v1.json()) as { error: { code: string; type: string; message: string } };
    expect(openaiBody.error).toMatchObject({ code: "content_policy_violation", type: "invalid_request_error" });
    expect(openaiBody.error.message).toContain("contenu sexuel");

    const rest = await api(
      "/api/v1/images",
      { model: "demo-image", prompt: "moderation-violence at night" },
      { "Accept-Language": "ja" },
    );
    expect(rest.status).toBe(400);
    const restBody = (await rest.json()) as { error: { code: string; message: string } };
    expect(restBody.error.code).toBe("content_policy_violation");
    expect(restBody.error.message).toMatch(/暴力/);

    const { db } = app.runtime.database;
    const { env, boss, storage, settings, models } = app.runtime;
    const tools = studioTools(
      { db, env, boss, storage, settings, models },
      { userId, messageId: crypto.randomUUID(), locale: "es", preferOffline: true },
    );
    const said = await tools.generate_image.execute!(
      { prompt: "draw gore everywhere" },
      { toolCallId: "call-1", messages: [], context: {} },
    );
    expect(said).toMatchObject({ status: "refused", code: "content_policy_violation" });
    expect((said as { message: string }).message).toContain("palabras que este sitio no permite");

    expect(await balance()).toEqual(before);
    const sources = (await refusals()).map((r) => r.source);
    expect(sources).toEqual(expect.arrayContaining(["openai", "api", "chat"]));
    const fromEndpoint = (await refusals()).find((r) => r.source === "openai")!;
    expect(fromEndpoint.findings[0]).toMatchObject({ source: "moderation", flagged: true, categories: ["sexual"] });
    expect(fromEndpoint.findings[0]!.scores!.sexual).toBeGreaterThan(0.9);
  });

  it("refuses a borderline prompt at strict only, and skips the endpoint at off (the block list still applies)", async () => {
    const borderline = { tool: "text-to-image", model: "demo-image", prompt: "moderation-borderline duel" };
    const standard = await app.call("POST", "/api/generations", { cookie, body: borderline });
    expect(standard.status).toBe(201);

    await setSafety({ level: "strict", blockList: { all: "gore" } });
    const strict = await app.call("POST", "/api/generations", { cookie, body: borderline });
    expect(strict.status).toBe(400);

    // A key an administrator set to `off` goes past the endpoint, not past the block list.
    await app.runtime.database.db.update(apiKey).set({ safetyLevel: "off" }).where(eq(apiKey.userId, userId));
    const calls = moderationCalls();
    const off = await api("/api/v1/images", borderline);
    expect(off.status).toBe(201);
    expect(moderationCalls()).toBe(calls);
    const blocked = await api("/api/v1/images", { ...borderline, prompt: "gore" });
    expect(blocked.status).toBe(400);
  });

  it("at strict, refuses while the endpoint does not answer; at standard, goes on and keeps that it could not check", async () => {
    await app.runtime.database.db.update(apiKey).set({ safetyLevel: null }).where(eq(apiKey.userId, userId));
    const broken = { ...openai.moderation };
    openai.moderation = { ...broken, terms: {}, threshold: Number.NaN };
    await openai.close();
    const request = { tool: "text-to-image", model: "demo-image", prompt: "a quiet lake" };
    const strict = await app.call("POST", "/api/generations", { cookie, body: request });
    expect(strict.status).toBe(503);
    expect(((await strict.json()) as { error: { code: string } }).error.code).toBe("safety_check_unavailable");

    await setSafety({ level: "standard", blockList: {} });
    const standard = await app.call("POST", "/api/generations", { cookie, body: request });
    expect(standard.status).toBe(201);
    const { generation: g } = (await standard.json()) as { generation: { id: string } };
    const [row] = await app.runtime.database.db
      .select({ safety: generation.safety })
      .from(generation)
      .where(eq(generation.id, g.id));
    expect(row!.safety!.prompt).toEqual([{ source: "moderation", flagged: false, categories: [], unavailable: true }]);
  });
});
