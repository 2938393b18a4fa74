import pino from "pino";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { parseEnv, type Env } from "#server/env.ts";
import { AppError } from "#server/errors.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { runGeneration } from "#server/modules/generation/run-generation.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { secretBox } from "#server/modules/catalog/secret-box.ts";
import { addModel } from "#server/modules/catalog/edit-models.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { backends, insertUserWithCredits, openEngine } from "#tests/support/backends.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";

const logger = pino({ level: "silent" });
const AUTH_SECRET = "model-parameters-test-secret-0123456789abcdef";

/** A fal image model as adding it by id makes it: named sizes, its own settings, and a price formula. */
const falImage = {
  kind: "image",
  name: "Schema Image",
  enabled: true,
  visibility: "everyone",
  tools: ["text-to-image"],
  bindings: [
    {
      provider: "fal",
      model: "fal-ai/flux/dev",
      mapping: {
        prompt: "prompt",
        seed: "seed",
        count: "num_images",
        aspectRatio: {
          field: "image_size",
          values: {
            "1:1": "square_hd",
            "4:3": "landscape_4_3",
            "3:4": "portrait_4_3",
            "16:9": "landscape_16_9",
            "9:16": "portrait_16_9",
          },
        },
      },
    },
  ],
  price: { unit: "image", credits: 2, multipliers: { num_inference_steps: { "50": 2 } }, minimum: 3 },
  options: {
    aspectRatios: ["1:1", "4:3", "3:4", "16:9", "9:16"],
    maxCount: 4,
    negativePrompt: false,
    seed: true,
    strength: false,
  },
  parameters: [
    { name: "guidance_scale", type: "number", label: "Guidance scale", minimum: 1, maximum: 20, default: 3.5 },
    { name: "num_inference_steps", type: "integer", label: "Steps", minimum: 1, maximum: 50, default: 28 },
    { name: "enable_safety_checker", type: "boolean", label: "Safety checker", default: true },
  ],
  expectedSeconds: 5,
  timeoutSeconds: 60,
};

/** A fal video model through the queue: its duration a string enum, a resolution and audio that change the price. */
const falVideo = {
  kind: "video",
  name: "Schema Video",
  enabled: true,
  visibility: "everyone",
  tools: ["text-to-video"],
  bindings: [
    {
      provider: "fal",
      model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      mapping: {
        prompt: "prompt",
        aspectRatio: { field: "aspect_ratio" },
        duration: { field: "duration", as: "string" },
        resolution: "resolution",
        audio: "generate_audio",
      },
    },
  ],
  price: { unit: "videoSecond", credits: 7, multipliers: { resolution: { "1080p": 2 }, audio: { true: 1.5 } } },
  options: {
    aspectRatios: ["16:9", "9:16", "1:1"],
    maxCount: 1,
    durations: [5, 10],
    negativePrompt: false,
    seed: false,
    strength: false,
    resolutions: ["720p", "1080p"],
    audio: true,
  },
  parameters: [{ name: "cfg_scale", type: "number", label: "CFG scale", minimum: 0, maximum: 1, default: 0.5 }],
  expectedSeconds: 5,
  timeoutSeconds: 120,
};

describe.each(backends)("models' own settings and price formulas on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let storage: ReturnType<typeof createLocalStorage>;
  let fal: FakeFal;
  let env: Env;
  let models: ModelRegistry;
  const db = () => handle.db;
  const deps = () => ({ db: db(), boss, env, storage, logger, models });

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    storage = createLocalStorage(engine.filesDir);
    fal = await startFakeFal();
    fal.pollsToFinish = 1;
    env = parseEnv({ AUTH_SECRET, FAL_KEY: "fal-test-key", FAL_BASE_URL: fal.url, IMAGE_CLASSIFIER: "off" });
    for (const [id, definition] of [
      ["schema-image", falImage],
      ["schema-video", falVideo],
    ] as const)
      await addModel({ db: db(), env, id, definition, actor: CLI_ACTOR });
    models = new ModelRegistry(env, { db: db(), box: secretBox({ authSecret: AUTH_SECRET }), logger });
    await models.refresh();
  });
  afterAll(async () => {
    await fal?.close();
    await engine?.close();
  });

  const submit = (userId: string, input: object) => submitGeneration(deps(), { user: { id: userId }, input });
  const held = async (id: string) =>
    (await db().select({ held: generation.creditsHeld }).from(generation).where(eq(generation.id, id)))[0]!.held;
  const calls = (endpoint: string) =>
    fal.requests.filter((r) => r.method === "POST" && r.path.endsWith(endpoint)).length;
  const lastBody = (endpoint: string) =>
    fal.requests.filter((r) => r.method === "POST" && r.path.endsWith(endpoint)).at(-1)?.body as Record<
      string,
      unknown
    >;

  it("charges an image model's formula and sends the mapped inputs with the advanced settings to the provider", async () => {
    const userId = await insertUserWithCredits(db(), 100);
    const { id } = await submit(userId, {
      tool: "text-to-image",
      model: "schema-image",
      prompt: "a lighthouse in fog",
      aspectRatio: "16:9",
      count: 2,
      seed: 42,
      options: { num_inference_steps: 50, guidance_scale: "7.5" },
    });
    // 2 credits × 2 images × 2 (50 steps).
    expect(await held(id)).toBe(8);
    const before = calls("fal-ai/flux/dev");
    await runGeneration(deps(), { generationId: id });
    // fal's model makes one image a call: two calls of one image each, never two of two.
    expect(calls("fal-ai/flux/dev") - before).toBe(2);
    const [row] = await db().select().from(generation).where(eq(generation.id, id));
    expect(row).toMatchObject({ status: "succeeded", creditsCharged: 8 });
    expect(lastBody("fal-ai/flux/dev")).toMatchObject({
      prompt: "a lighthouse in fog",
      image_size: "landscape_16_9",
      num_images: 1,
      seed: 42,
      num_inference_steps: 50,
      guidance_scale: 7.5,
      enable_safety_checker: true,
    });
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 92, held: 0 });
  });

  it("keeps the formula's minimum, and the defaults of settings left out", async () => {
    const userId = await insertUserWithCredits(db(), 100);
    const { id } = await submit(userId, { tool: "text-to-image", model: "schema-image", prompt: "a kite" });
    expect(await held(id)).toBe(3);
    await runGeneration(deps(), { generationId: id });
    expect(lastBody("fal-ai/flux/dev")).toMatchObject({
      image_size: "square_hd",
      num_inference_steps: 28,
      guidance_scale: 3.5,
    });
  });

  it("refuses a setting the model does not take or a value out of its range, creating and holding nothing", async () => {
    const userId = await insertUserWithCredits(db(), 100);
    const refusals = [
      [{ options: { cfg: 3 } }, "generation.errors.settingUnknown"],
      [{ options: { num_inference_steps: 51 } }, "generation.errors.settingInvalid"],
      [{ options: { enable_safety_checker: "perhaps" } }, "generation.errors.settingInvalid"],
      [{ resolution: "4K" }, "generation.errors.resolutionUnsupported"],
    ] as const;
    for (const [extra, key] of refusals) {
      const error = await submit(userId, { tool: "text-to-image", model: "schema-image", prompt: "x", ...extra }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("invalid_options");
      expect((error as AppError).messageKey).toBe(key);
    }
    expect(await db().select().from(generation).where(eq(generation.userId, userId))).toEqual([]);
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 100, held: 0 });
  });

  it("prices a video per second with resolution and audio multipliers, and maps duration, resolution and audio", async () => {
    const userId = await insertUserWithCredits(db(), 500);
    const { id } = await submit(userId, {
      tool: "text-to-video",
      model: "schema-video",
      prompt: "waves on a pier",
      duration: 10,
      aspectRatio: "9:16",
      resolution: "1080p",
      audio: true,
      options: { cfg_scale: 0.8 },
    });
    // 7 credits × 10 s × 2 (1080p) × 1.5 (audio).
    expect(await held(id)).toBe(210);
    await runGeneration(deps(), { generationId: id });
    const [row] = await db().select().from(generation).where(eq(generation.id, id));
    expect(row).toMatchObject({ status: "succeeded", creditsCharged: 210 });
    expect(lastBody("fal-ai/kling-video/v2.5-turbo/pro/text-to-video")).toMatchObject({
      prompt: expect.stringContaining("waves on a pier"),
      duration: "10",
      aspect_ratio: "9:16",
      resolution: "1080p",
      generate_audio: true,
      cfg_scale: 0.8,
    });
    const silent = await submit(userId, {
      tool: "text-to-video",
      model: "schema-video",
      prompt: "waves",
      duration: 5,
    });
    // No resolution asked for: the model's first, priced and sent as such; no sound unless asked.
    expect(await held(silent.id)).toBe(35);
    const [queued] = await db().select().from(generation).where(eq(generation.id, silent.id));
    expect(queued!.params).toMatchObject({ resolution: "720p", audio: false });
  });
});
