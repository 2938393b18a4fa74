import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { text } from "#tests/support/locales.ts";
import { readStream } from "#tests/support/chat-stream.ts";
import { addModel, changeModel } from "#server/modules/catalog/edit-models.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { IMAGE_ASPECT_RATIOS, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_STYLES } from "#common/generation.ts";
import type { ModelPrice, ParameterField } from "#common/model-parameters.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

const image = (price: ModelPrice, extra: { resolutions?: string[]; parameters?: ParameterField[] } = {}) => ({
  kind: "image",
  name: "Formula image",
  enabled: true,
  visibility: "everyone",
  tools: ["text-to-image"],
  bindings: [{ provider: "demo", model: "demo-image" }],
  price,
  options: {
    aspectRatios: [...IMAGE_ASPECT_RATIOS],
    maxCount: 4,
    negativePrompt: false,
    seed: true,
    strength: false,
    ...(extra.resolutions ? { resolutions: extra.resolutions } : {}),
  },
  ...(extra.parameters ? { parameters: extra.parameters } : {}),
  expectedSeconds: 1,
  timeoutSeconds: 60,
});
const video = (price: ModelPrice, extra: { audio?: boolean } = {}) => ({
  kind: "video",
  name: "Formula video",
  enabled: true,
  visibility: "everyone",
  tools: ["text-to-video"],
  bindings: [{ provider: "demo", model: "demo-video" }],
  price,
  options: {
    aspectRatios: [...VIDEO_ASPECT_RATIOS],
    maxCount: 1,
    durations: [...VIDEO_DURATIONS],
    styles: [...VIDEO_STYLES],
    negativePrompt: false,
    seed: true,
    strength: false,
    ...(extra.audio ? { audio: true } : {}),
  },
  expectedSeconds: 2,
  timeoutSeconds: 120,
});

const QUALITY: ParameterField = {
  name: "quality",
  type: "string",
  label: "Quality",
  choices: ["low", "medium", "high"],
  default: "medium",
};

/**
 * One model per kind of formula, bound to the offline demo models; for each, a request with the settings the formula
 * names (`body`, in the public API's words) and what it costs, and what the chat's request (its defaults) costs.
 */
const KINDS = [
  {
    kind: "per image × count",
    id: "f-per-image",
    definition: image({ unit: "image", credits: 3 }),
    body: { count: 2 },
    credits: 6,
    chat: 3,
  },
  {
    kind: "per video",
    id: "f-per-video",
    definition: video({ unit: "video", credits: 7 }),
    body: { duration: 10 },
    credits: 7,
    chat: 7,
  },
  {
    kind: "per second × duration",
    id: "f-per-second",
    definition: video({ unit: "videoSecond", credits: 2 }),
    body: { duration: 10 },
    credits: 20,
    chat: 10,
  },
  {
    kind: "a resolution multiplier",
    id: "f-resolution",
    definition: image(
      { unit: "image", credits: 2, multipliers: { resolution: { "1080p": 2.5 } } },
      { resolutions: ["720p", "1080p"] },
    ),
    body: { resolution: "1080p", count: 3 },
    credits: 15,
    chat: 2,
  },
  {
    kind: "an audio multiplier",
    id: "f-audio",
    definition: video({ unit: "video", credits: 4, multipliers: { audio: { true: 1.5 } } }, { audio: true }),
    body: { audio: true },
    credits: 6,
    chat: 4,
  },
  {
    kind: "an advanced setting (quality) multiplier",
    id: "f-quality",
    definition: image(
      { unit: "image", credits: 2, multipliers: { quality: { low: 0.5, medium: 1.5, high: 3 } } },
      { parameters: [QUALITY] },
    ),
    body: { options: { quality: "high" } },
    credits: 6,
    // The default quality (medium) counts in the chat's price too.
    chat: 3,
  },
  {
    kind: "a minimum",
    id: "f-minimum",
    definition: image({ unit: "image", credits: 1, minimum: 5 }),
    body: { count: 2 },
    credits: 5,
    chat: 5,
  },
] as const;

describe(`the price shown before submitting is the charge, for every kind of formula, on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;
  let key: string;
  let position = 1000;

  beforeAll(async () => {
    // Every chat generation waits for its confirmation card, which shows its price.
    app = await openApp({
      CHAT_CONFIRM_ABOVE_CREDITS: "0",
      SIGNUP_BONUS_CREDITS: "100000",
      API_RATE_LIMIT_PER_MINUTE: "1000",
      API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "1000",
    });
    const { db } = app.runtime.database;
    const env = app.runtime.env;
    for (const k of KINDS) await addModel({ db, env, id: k.id, definition: k.definition, actor: CLI_ACTOR });
    // The chat's offline helper would pick the offline demo models first.
    for (const id of ["demo-image", "demo-video"])
      await changeModel({ db, env, id, actor: CLI_ACTOR, change: (m) => ({ ...m, enabled: false }) });
    await app.runtime.models.refresh();
    cookie = await app.signedIn("formulas@example.com");
    key = ((await (await app.call("POST", "/api/keys", { cookie, body: {} })).json()) as { secret: string }).secret;
  });
  afterAll(async () => {
    await app?.close();
  });

  const api = (method: string, path: string, body?: unknown) =>
    app.app.request(`${app.origin}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  const json = async <T>(res: Response, status = 200): Promise<T> => {
    const body = (await res.json()) as T;
    expect(res.status, JSON.stringify(body)).toBe(status);
    return body;
  };
  const available = async () => (await json<{ available: number }>(await api("GET", "/api/v1/credits"))).available;
  /** What the ledger holds for one job once it ended: the charge, net of its hold and release. */
  const chargedInLedger = async (id: string) => {
    expect(await app.ended(id, cookie)).toBe("succeeded");
    const ledger = await json<{ data: { amount: number; reference: string | null }[] }>(
      await api("GET", "/api/v1/credits/ledger?page_size=100"),
    );
    return -ledger.data.filter((e) => e.reference === `job:${id}`).reduce((sum, e) => sum + e.amount, 0);
  };
  const pathOf = (k: (typeof KINDS)[number]) => (k.definition.kind === "video" ? "/api/v1/videos" : "/api/v1/images");

  it.each(KINDS)("/api/v1: the quote of $kind is what creating it holds and charges", async (k) => {
    const body = { model: k.id, prompt: `a quoted request (${k.kind})`, ...k.body };
    const before = await available();
    const quote = await json<{ object: string; model: string; credits: number }>(
      await api("POST", `${pathOf(k)}/quote`, body),
    );
    expect(quote).toMatchObject({ object: "quote", model: k.id, credits: k.credits });
    // Quoting holds nothing.
    expect(await available()).toBe(before);
    const created = await json<{ id: string; credits_held: number }>(await api("POST", pathOf(k), body), 201);
    expect(created.credits_held).toBe(quote.credits);
    expect(await chargedInLedger(created.id)).toBe(quote.credits);
    const done = await json<{ credits_charged: number }>(await api("GET", `/api/v1/generations/${created.id}`));
    expect(done.credits_charged).toBe(quote.credits);
    expect(await available()).toBe(before - quote.credits);
  });

  it.each(KINDS)("the chat: the confirmation card's price of $kind is its charge", async (k) => {
    // This model first for its tool: the one the chat's tools pick.
    await changeModel({
      db: app.runtime.database.db,
      env: app.runtime.env,
      id: k.id,
      actor: CLI_ACTOR,
      change: (m) => ({ ...m, position: position-- }),
    });
    await app.runtime.models.refresh();
    const created = await app.call("POST", "/api/chat/conversations", { cookie, body: { model: "prompt-helper" } });
    const { conversation } = await json<{ conversation: { id: string } }>(created, 201);
    const ask = k.definition.kind === "video" ? "make a video of a fox in the snow" : "draw a lighthouse in a storm";
    const chunks = await readStream(
      await app.call("POST", `/api/chat/conversations/${conversation.id}/messages`, {
        cookie,
        body: { text: ask },
      }),
    );
    const card = chunks.find((c) => c.type === "tool-output-available") as unknown as {
      toolCallId: string;
      output: { status: string; cost: number; model: string };
    };
    expect(card.output).toMatchObject({ status: "awaiting_confirmation", cost: k.chat });
    const confirmed = await app.call("POST", `/api/chat/messages/${chunks[0]!.messageId}/tools/${card.toolCallId}`, {
      cookie,
      body: { confirm: true },
    });
    const { output } = await json<{ output: { status: string; generationId: string; cost: number } }>(confirmed);
    expect(output).toMatchObject({ status: "started", cost: k.chat });
    expect(await chargedInLedger(output.generationId)).toBe(k.chat);
  });

  it.each(KINDS)("/v1 (OpenAI-compatible) charges $kind by its formula", async (k) => {
    if (k.definition.kind === "image") {
      const body = k.body as { count?: number; resolution?: string; options?: { quality: string } };
      const res = await api("POST", "/v1/images/generations", {
        model: k.id,
        prompt: `an OpenAI-style request (${k.kind})`,
        n: body.count ?? 1,
        // OpenAI's quality is the model's own quality setting when it declares one.
        ...(body.options ? { quality: body.options.quality } : {}),
      });
      const answer = await json<{ atelier: { generation_id: string; credits_charged: number } }>(res);
      // /v1 has no resolution field: the model's default (no multiplier) applies.
      const expected = body.resolution ? k.chat * (body.count ?? 1) : k.credits;
      expect(answer.atelier.credits_charged).toBe(expected);
      expect(res.headers.get("x-atelier-credits-charged")).toBe(String(expected));
      expect(await chargedInLedger(answer.atelier.generation_id)).toBe(expected);
    } else {
      const body = k.body as { duration?: number; audio?: boolean };
      const res = await api("POST", "/v1/videos", {
        model: k.id,
        prompt: `an OpenAI-style video (${k.kind})`,
        ...(body.duration ? { seconds: String(body.duration) } : {}),
      });
      const answer = await json<{ id: string; atelier: { credits_held: number } }>(res);
      // /v1 has no sound switch: a video without sound.
      const expected = body.audio ? k.chat : k.credits;
      expect(answer.atelier.credits_held).toBe(expected);
      expect(await chargedInLedger(answer.id)).toBe(expected);
    }
  });

  it("describes each model's formula, its settings as a JSON Schema, its resolutions and sound", async () => {
    const { data } = await json<{ data: Record<string, unknown>[] }>(await api("GET", "/api/v1/models"));
    expect(data.find((m) => m.id === "f-quality")).toMatchObject({
      price: { unit: "image", credits: 2, multipliers: { quality: { low: 0.5, medium: 1.5, high: 3 } } },
      parameters: {
        type: "object",
        properties: {
          quality: { type: "string", title: "Quality", enum: ["low", "medium", "high"], default: "medium" },
        },
        additionalProperties: false,
      },
    });
    expect(data.find((m) => m.id === "f-resolution")).toMatchObject({
      options: { resolutions: ["720p", "1080p"], audio: false },
    });
    expect(data.find((m) => m.id === "f-audio")).toMatchObject({ options: { audio: true, resolutions: null } });
    expect(data.find((m) => m.id === "f-minimum")).toMatchObject({ price: { minimum: 5 } });
    const openai = await json<{ data: { id: string; atelier: { price: unknown } }[] }>(await api("GET", "/v1/models"));
    expect(openai.data.find((m) => m.id === "f-resolution")!.atelier.price).toEqual({
      unit: "image",
      credits: 2,
      multipliers: { resolution: { "1080p": 2.5 } },
    });
  });

  it("takes the model's settings in a multipart request as JSON text", async () => {
    const form = new FormData();
    form.set("model", "f-quality");
    form.set("prompt", "settings in a form");
    form.set("options", JSON.stringify({ quality: "low" }));
    const res = await app.app.request(`${app.origin}/api/v1/images`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    });
    const created = await json<{ id: string; credits_held: number; options: unknown }>(res, 201);
    expect(created).toMatchObject({ credits_held: 1, options: { quality: "low" } });
    expect(await chargedInLedger(created.id)).toBe(1);
    form.set("options", "{not json");
    const refused = await app.app.request(`${app.origin}/api/v1/images`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    });
    expect((await json<{ error: { code: string } }>(refused, 400)).error.code).toBe("bad_request");
  });

  it("refuses a value a model does not take, in the asker's language, and quotes nothing", async () => {
    const res = await api("POST", "/api/v1/images/quote", {
      model: "f-quality",
      prompt: "a bad setting",
      options: { quality: "ultra" },
    });
    const body = await json<{ error: { code: string; detail: string } }>(res, 422);
    expect(body.error).toMatchObject({ code: "invalid_options", detail: "quality: one of low, medium, high" });
    const page = await app.call("POST", "/api/generations", {
      cookie,
      headers: { "X-Locale": "de" },
      body: { tool: "text-to-image", model: "f-quality", prompt: "a bad setting", options: { quality: "ultra" } },
    });
    const refused = await json<{ error: { message: string } }>(page, 422);
    expect(refused.error.message).toBe(
      text("de", "messages", "generation.errors.settingInvalid")
        .replace("{{setting}}", "Quality")
        .replace("{{model}}", "Formula image"),
    );
    // A resolution the model does not make, and sound from a model that makes none, are refused the same way.
    const resolution = await api("POST", "/api/v1/images/quote", {
      model: "f-resolution",
      prompt: "a bad resolution",
      resolution: "4K",
    });
    expect((await json<{ error: { code: string } }>(resolution, 422)).error.code).toBe("invalid_options");
    const sound = await api("POST", "/api/v1/videos/quote", { model: "f-per-video", prompt: "x", audio: true });
    expect((await json<{ error: { code: string } }>(sound, 422)).error.code).toBe("invalid_options");
    // A model of the other kind is not found, as when creating it.
    const wrong = await api("POST", "/api/v1/videos/quote", { model: "f-per-image", prompt: "x" });
    expect((await json<{ error: { code: string } }>(wrong, 400)).error.code).toBe("unknown_model");
  });
});
