import { randomUUID } from "node:crypto";
import pino from "pino";
import sharp from "sharp";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import {
  asset,
  creditEntry,
  creditHold,
  generation,
  generationAttempt,
  webhookDelivery,
} from "#server/db/schema/index.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { parseEnv, type Env } from "#server/env.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { runGeneration } from "#server/modules/generation/run-generation.ts";
import { cancelGeneration } from "#server/modules/generation/cancel-generation.ts";
import { deleteGeneration } from "#server/modules/generation/delete-generation.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { setVisibility } from "#server/modules/generation/set-visibility.ts";
import { closeInterruptedAttempts, sweepGenerations } from "#server/modules/generation/sweep-generations.ts";
import { endGenerationInTx, type Ending } from "#server/modules/generation/end-generation.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { GENERATION_QUEUE, MAX_RUNS } from "#server/modules/generation/queue.ts";
import { WEBHOOK_QUEUE, warmWebhookQueue } from "#server/modules/webhooks/queue-webhook.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertUserWithCredits, openEngine } from "#tests/support/backends.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeReplicate, type FakeReplicate } from "#tests/fakes/replicate.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { recordDuration, typicalSeconds } from "#server/modules/generation/estimate.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";

const logger = pino({ level: "silent" });
const codeOf = (error: unknown) => (error instanceof AppError ? error.code : String(error));

describe.each(backends)("the generation engine on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let storage: ReturnType<typeof createLocalStorage>;
  let openai: FakeOpenAI;
  let fal: FakeFal;
  let replicate: FakeReplicate;
  let env: Env;
  const db = () => handle.db;
  const deps = () => ({ db: db(), boss, env, storage, logger, models: ModelRegistry.builtIn(env) });

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    storage = createLocalStorage(engine.filesDir);
    [openai, fal, replicate] = await Promise.all([startFakeOpenAI(), startFakeFal(), startFakeReplicate()]);
    env = parseEnv({
      IMAGE_CLASSIFIER: "off",
      OPENAI_API_KEY: "sk-test-openai",
      OPENAI_BASE_URL: `${openai.url}/v1`,
      FAL_KEY: "fal-test-key",
      FAL_BASE_URL: fal.url,
      REPLICATE_API_TOKEN: "r8_test_token",
      REPLICATE_BASE_URL: `${replicate.url}/v1`,
      MODEL_SETTINGS: JSON.stringify({ "gpt-image-1": { timeoutSeconds: 2 } }),
    });
  });
  afterAll(async () => {
    await Promise.all([openai?.close(), fal?.close(), replicate?.close()]);
    await engine?.close();
  });

  const newUser = (credits = 100) => insertUserWithCredits(db(), credits);
  const submit = (userId: string, input: object, idempotencyKey?: string) =>
    submitGeneration(deps(), { user: { id: userId }, input, idempotencyKey });
  const run = (id: string) => runGeneration(deps(), { generationId: id });
  const row = async (id: string) => (await db().select().from(generation).where(eq(generation.id, id)))[0]!;
  const entries = (userId: string) =>
    db().select().from(creditEntry).where(eq(creditEntry.userId, userId)).orderBy(creditEntry.id);
  const image = (extra: object = {}) => ({
    tool: "text-to-image",
    model: "demo-image",
    prompt: "a red fox at dawn",
    ...extra,
  });

  /** Every hold of the user settled exactly once, and the balance the sum of the ledger. */
  async function expectSettled(userId: string) {
    const open = await db()
      .select()
      .from(creditHold)
      .where(sql`${creditHold.userId} = ${userId} and ${creditHold.status} = 'open'`);
    expect(open).toEqual([]);
    const settlements = await db()
      .select({ holdId: creditEntry.holdId, n: sql<number>`count(*)::int` })
      .from(creditEntry)
      .where(sql`${creditEntry.userId} = ${userId} and ${creditEntry.kind} in ('capture', 'release')`)
      .groupBy(creditEntry.holdId);
    for (const s of settlements) expect(s.n).toBe(1);
    const { balance } = await getBalance({ db: db(), userId });
    const [sum] = await db()
      .select({ total: sql<string>`coalesce(sum(${creditEntry.amount}), 0)::text` })
      .from(creditEntry)
      .where(eq(creditEntry.userId, userId));
    expect(balance).toBe(Number(sum!.total));
  }

  it("holds the cost, queues the job in the same transaction, and charges it once the images are stored", async () => {
    const userId = await newUser(10);
    const { id } = await submit(userId, image({ count: 3, aspectRatio: "16:9", seed: 7 }));
    const queued = await row(id);
    expect(queued).toMatchObject({ status: "queued", creditsHeld: 3, progress: 0, modelId: "demo-image" });
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 10, held: 3, available: 7 });
    expect(await boss.getJobById(GENERATION_QUEUE, id)).toMatchObject({ id, data: { generationId: id } });

    await run(id);
    const view = await getGeneration({ db: db(), env, id, viewerId: userId });
    expect(view).toMatchObject({
      status: "succeeded",
      progress: 100,
      creditsCharged: 3,
      etaSeconds: null,
      error: null,
    });
    expect(view.outputs).toHaveLength(3);
    for (const out of view.outputs) {
      expect(out).toMatchObject({ mimeType: "image/png", width: 1024, height: 576 });
      const [a] = await db().select().from(asset).where(eq(asset.id, out.id));
      const file = await sharp(storage.pathOf(a!.storageKey)).metadata();
      expect([file.width, file.height]).toEqual([1024, 576]);
      expect((await sharp(storage.pathOf(a!.thumbKey!)).metadata()).width).toBeLessThanOrEqual(512);
    }
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 7, held: 0, available: 7 });
    expect((await entries(userId)).map((e) => e.kind)).toEqual(["admin_adjustment", "hold", "capture"]);
    // The history names the generation it charged for, with its tool to open it by.
    const history = await listEntries({ db: db(), userId, page: 1, pageSize: 5 });
    expect(history.rows[0]).toMatchObject({
      kind: "capture",
      reference: { type: "job", id, tool: "text-to-image" },
    });
    // A second run of the same job (a redelivery) changes nothing.
    await run(id);
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 7, held: 0, available: 7 });
    await expectSettled(userId);
  });

  it("refuses what it cannot do, saying what is wrong, with nothing created and nothing held", async () => {
    const userId = await newUser(2);
    const field = (name: string) => ["generation.errors.invalidField", { field: name }] as const;
    const model = (key: string, name: string, values: object = {}) =>
      [`generation.errors.${key}`, { model: name, ...values }] as const;
    // The code, then the catalogue message people read and what it fills in.
    const cases: Array<[object, string, (readonly [string, object])?]> = [
      [image({ count: 3 }), "insufficient_credits"],
      [image({ model: "no-such-model" }), "unknown_model"],
      [image({ model: "demo-video" }), "unknown_model"],
      [image({ prompt: "   " }), "prompt_invalid"],
      [image({ prompt: "x".repeat(2001) }), "prompt_invalid"],
      [image({ count: 5 }), "invalid_options", field("count")],
      [image({ count: 0 }), "invalid_options", field("count")],
      [image({ aspectRatio: "21:9" }), "invalid_options", field("aspectRatio")],
      [image({ seed: -1 }), "invalid_options", field("seed")],
      [image({ model: "dall-e-3", seed: 3 }), "invalid_options", model("seedUnsupported", "DALL·E 3")],
      [image({ model: "dall-e-3", count: 2 }), "invalid_options", model("countTooHigh", "DALL·E 3", { max: 1 })],
      [
        image({ model: "dall-e-3", aspectRatio: "4:3" }),
        "invalid_options",
        model("aspectRatioUnsupported", "DALL·E 3", { allowed: "1:1, 16:9, 9:16" }),
      ],
      [
        image({ model: "dall-e-3", tool: "image-to-image", inputUrl: "https://example.com/a.png" }),
        "invalid_options",
        model("toolUnsupported", "DALL·E 3"),
      ],
      [
        image({ model: "gpt-image-1", negativePrompt: "blur" }),
        "invalid_options",
        model("negativePromptUnsupported", "GPT Image 1"),
      ],
      [image({ tool: "image-to-image" }), "input_image_required"],
      [
        { tool: "text-to-video", model: "demo-video", prompt: "waves", duration: 7 },
        "invalid_options",
        field("duration"),
      ],
      [
        { tool: "text-to-video", model: "demo-video", prompt: "waves", style: "noir" },
        "invalid_options",
        field("style"),
      ],
      [{ tool: "colorize", model: "demo-image", prompt: "x" }, "invalid_options", field("tool")],
      [{ ...image(), extra: 1 }, "unknown_field", ["api.errors.unknownField", { field: "extra" }]],
      [
        { ...image(), inputUrll: "https://example.com/a.png" },
        "unknown_field",
        ["api.errors.unknownField", { field: "inputUrll" }],
      ],
    ];
    for (const [input, code, say] of cases) {
      const what = JSON.stringify(input).slice(0, 80);
      const error = await submit(userId, input).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(codeOf(error), what).toBe(code);
      if (say) expect(error, what).toMatchObject({ messageKey: say[0], values: say[1] });
    }
    expect(await db().select().from(generation).where(eq(generation.userId, userId))).toEqual([]);
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 2, held: 0, available: 2 });
  });

  it("turns one idempotency key into one job, however often and however concurrently it is sent", async () => {
    const userId = await newUser(50);
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => submit(userId, image(), key)));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.filter((r) => !r.repeated)).toHaveLength(1);
    expect(await db().select().from(generation).where(eq(generation.userId, userId))).toHaveLength(1);
    expect(await getBalance({ db: db(), userId })).toMatchObject({ held: 1 });
    await expect(submit(userId, image({ prompt: "something else" }), key).catch(codeOf)).resolves.toBe(
      "idempotency_mismatch",
    );
  });

  it("cancels a queued job and returns its credits; the worker then leaves it alone", async () => {
    const userId = await newUser(5);
    const { id } = await submit(userId, image({ count: 2 }));
    await cancelGeneration({ db: db(), boss, env, userId, id });
    await cancelGeneration({ db: db(), boss, env, userId, id });
    await run(id);
    expect(await row(id)).toMatchObject({ status: "canceled", creditsCharged: 0 });
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 5, held: 0, available: 5 });
    expect(await db().select().from(asset).where(eq(asset.generationId, id))).toEqual([]);
    await expectSettled(userId);

    const done = (await submit(userId, image())).id;
    await run(done);
    await expect(cancelGeneration({ db: db(), boss, env, userId, id: done }).catch(codeOf)).resolves.toBe(
      "not_cancelable",
    );
  });

  it("cancels a video while it renders: the run stops, nothing is charged, no file is kept", async () => {
    const userId = await newUser(20);
    const { id } = await submit(userId, { tool: "text-to-video", model: "demo-video", prompt: "sea", duration: 10 });
    const running = run(id);
    // Wait for real progress, then cancel.
    for (let i = 0; i < 200 && (await row(id)).progress < 10; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await row(id)).status).toBe("processing");
    await cancelGeneration({ db: db(), boss, env, userId, id });
    await running;
    expect(await row(id)).toMatchObject({ status: "canceled" });
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 20, held: 0, available: 20 });
    expect(await db().select().from(asset).where(eq(asset.generationId, id))).toEqual([]);
    await expectSettled(userId);
  });

  it("renders a video with progress, a poster and the right duration, and charges its price", async () => {
    const userId = await newUser(20);
    const { id } = await submit(userId, {
      tool: "text-to-video",
      model: "demo-video",
      prompt: "a lighthouse in a storm",
      style: "documentary",
      aspectRatio: "9:16",
    });
    const seen: number[] = [];
    const running = run(id);
    const watch = setInterval(() => void row(id).then((r) => seen.push(r.progress)), 200);
    await running;
    clearInterval(watch);
    const view = await getGeneration({ db: db(), env, id, viewerId: userId });
    expect(view).toMatchObject({ status: "succeeded", creditsCharged: 5, kind: "video" });
    expect(view.outputs[0]).toMatchObject({ mimeType: "video/mp4", durationMs: 5000 });
    expect(view.outputs[0]!.height).toBeGreaterThan(view.outputs[0]!.width!);
    expect(view.outputs[0]!.thumbUrl).toMatch(/\/thumb\.webp$/);
    expect(seen.some((p) => p > 0 && p < 100)).toBe(true);
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 15, held: 0, available: 15 });
  });

  it("says where a queued job stands, and estimates by the video's length, not the last videos'", async () => {
    const userId = await newUser(100);
    const video = (prompt: string, duration: number) => ({
      tool: "text-to-video",
      model: "demo-video",
      prompt,
      duration,
    });
    const ids = [];
    for (const prompt of ["first", "second", "third"]) ids.push((await submit(userId, video(prompt, 5))).id);
    const views = await Promise.all(ids.map((id) => getGeneration({ db: db(), env, id, viewerId: userId })));
    const [first, , third] = views.map((v) => v.queuePosition!);
    expect(first).toBeGreaterThanOrEqual(1);
    expect(views.map((v) => v.queuePosition)).toEqual([first, first! + 1, first! + 2]);
    // Two jobs ahead run before the third: with two at a time, one round of runs before its own.
    const typical = await typicalSeconds({
      db: db(),
      model: ModelRegistry.builtIn(env).findMedia("demo-video")!,
      videoSeconds: 5,
    });
    expect(env.WORKER_CONCURRENCY).toBe(2);
    expect(views[2]!.etaSeconds).toBe(Math.ceil(typical * (1 + Math.floor((third! - 1) / 2))));
    // Running, it is in no queue.
    await Promise.all(ids.map((id) => cancelGeneration({ db: db(), boss, env, userId, id })));
    expect((await getGeneration({ db: db(), env, id: ids[0]!, viewerId: userId })).queuePosition).toBeNull();

    // With no 10-second video run yet, a 10-second video is expected to take twice what a 5-second one takes.
    const model = ModelRegistry.builtIn(env).findMedia("demo-video")!;
    recordDuration(model.id, 0);
    const short = await typicalSeconds({ db: db(), model, videoSeconds: 5 });
    const long = await typicalSeconds({ db: db(), model, videoSeconds: 10 });
    expect(long).toBeCloseTo(short * 2, 6);
  });

  it("estimates a job on a pool from the pool's own queue: each job ahead at its model's time, over the jobs it runs", async () => {
    const userId = await newUser(100);
    const pool = `pool-${randomUUID().slice(0, 8)}`;
    const snapshot = (name: string, expectedSeconds: number, connection = pool) =>
      ({
        name,
        kind: "image",
        tools: ["text-to-image"],
        bindings: [{ provider: "comfyui", model: name, connection }],
        price: { credits: 1 },
        options: {},
        parameters: [],
        expectedSeconds,
        timeoutSeconds: 600,
      }) as unknown as NonNullable<typeof generation.$inferInsert.modelSnapshot>;
    const models = { fast: `fast-${pool}`, slow: `slow-${pool}`, other: `other-${pool}` };
    let at = Date.parse("2026-01-01T00:00:00Z");
    const job = async (modelId: string, seconds: number, status: "queued" | "processing", connection = pool) => {
      at += 1000;
      const [made] = await db()
        .insert(generation)
        .values({
          userId,
          kind: "image",
          tool: "text-to-image",
          modelId,
          prompt: "a pool's job",
          params: { aspectRatio: "1:1", count: 1 },
          modelSnapshot: snapshot(modelId, seconds, connection),
          status,
          creditsHeld: 1,
          timeoutSeconds: 600,
          createdAt: new Date(at),
        })
        .returning({ id: generation.id });
      return made!.id;
    };
    // Two running on the pool; ahead of the last job, two of a 10-second workflow and one of a 40-second one; a job
    // on another pool is not in its way.
    await job(models.fast, 10, "processing");
    await job(models.slow, 40, "processing");
    await job(models.fast, 10, "queued");
    await job(models.other, 99, "queued", `${pool}-elsewhere`);
    await job(models.slow, 40, "queued");
    await job(models.fast, 10, "queued");
    const last = await job(models.fast, 10, "queued");
    const view = await getGeneration({ db: db(), env, id: last, viewerId: userId });
    expect(view.queuePosition).toBe(4);
    // Its own 10 s, after (10 + 40 + 10) s of work shared by the two jobs the pool runs at once.
    expect(view.etaSeconds).toBe(10 + (10 + 40 + 10) / 2);
    // With nothing running, one at a time.
    await db()
      .update(generation)
      .set({ status: "canceled", finishedAt: new Date() })
      .where(sql`${generation.status} = 'processing' and ${generation.modelId} in (${models.fast}, ${models.slow})`);
    expect((await getGeneration({ db: db(), env, id: last, viewerId: userId })).etaSeconds).toBe(10 + 60);
    await db()
      .update(generation)
      .set({ status: "canceled", finishedAt: new Date() })
      .where(sql`${generation.userId} = ${userId} and ${generation.status} = 'queued'`);
  });

  it("learns a video's time from the model's recent runs, of the same length when there are some", async () => {
    const userId = await newUser(2000);
    const model = ModelRegistry.builtIn(env).findMedia("kling-video")!;
    const video = (prompt: string, duration: number) => ({ tool: "text-to-video", model: model.id, prompt, duration });
    /** A run of `duration` seconds of video that took `ms`, finished `ago` ms before now. */
    const ran = async (duration: number, ms: number, ago: number) => {
      const { id } = await submit(userId, video(`run of ${ms} ms`, duration));
      await db()
        .update(generation)
        .set({
          status: "succeeded",
          durationMs: ms,
          startedAt: new Date(Date.now() - ago - ms),
          finishedAt: new Date(Date.now() - ago),
        })
        .where(eq(generation.id, id));
      return id;
    };
    // Until it has run, the configured figure (per 5 seconds of video).
    recordDuration(model.id, 0);
    expect(await typicalSeconds({ db: db(), model, videoSeconds: 10 })).toBeCloseTo(model.expectedSeconds * 2, 6);
    // Three 5-second clips of 7 s each (most of it the model's start-up), three 10-second ones of about 9.7 s.
    for (const [duration, ms] of [
      [5, 7000],
      [5, 7000],
      [5, 7000],
      [10, 9500],
      [10, 9700],
      [10, 10_100],
    ] as const) {
      await ran(duration, ms, 60_000);
    }
    recordDuration(model.id, 0);
    expect(await typicalSeconds({ db: db(), model, videoSeconds: 10 })).toBeCloseTo(9.7, 6);
    expect(await typicalSeconds({ db: db(), model, videoSeconds: 5 })).toBeCloseTo(7, 6);

    // A 10-second video just started: the studio's list and the job read alone promise about 10 s, not the
    // configured three minutes.
    const { id } = await submit(userId, video("just started", 10));
    await db()
      .update(generation)
      .set({ status: "processing", progress: 0, startedAt: new Date() })
      .where(eq(generation.id, id));
    const listed = (await listGenerations({ db: db(), userId, query: { kind: "video" } })).items.find(
      (g) => g.id === id,
    )!;
    const alone = await getGeneration({ db: db(), env, id, viewerId: userId });
    expect(listed.etaSeconds).toBeLessThanOrEqual(10);
    expect(alone.etaSeconds).toBeLessThanOrEqual(10);
    await cancelGeneration({ db: db(), boss, env, userId, id });
  });

  it("fails over to the next provider of a model after a provider-side error, and records both attempts", async () => {
    const userId = await newUser(20);
    fal.failNext = 1;
    const { id } = await submit(userId, image({ model: "flux-schnell", count: 2 }));
    await run(id);
    expect(await row(id)).toMatchObject({ status: "succeeded", provider: "replicate", creditsCharged: 2 });
    const attempts = await db().select().from(generationAttempt).where(eq(generationAttempt.generationId, id));
    expect(attempts.map((a) => [a.provider, a.outcome])).toEqual([
      ["fal", "failed"],
      ["replicate", "succeeded"],
    ]);
    expect(attempts[0]!.errorCode).toBe("provider_unavailable");
  });

  it("does not fail over a rejected prompt, and refunds it", async () => {
    const userId = await newUser(20);
    fal.reject = true;
    try {
      const { id } = await submit(userId, image({ model: "flux-schnell" }));
      await run(id);
      expect(await row(id)).toMatchObject({ status: "failed", errorCode: "content_rejected", creditsCharged: 0 });
      expect(await db().select().from(generationAttempt).where(eq(generationAttempt.generationId, id))).toHaveLength(1);
    } finally {
      fal.reject = false;
    }
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 20, held: 0, available: 20 });
    await expectSettled(userId);
  });

  it("fails with the parse error when every provider answers nonsense, and refunds it", async () => {
    const userId = await newUser(20);
    fal.malformed = true;
    replicate.malformed = true;
    try {
      const { id } = await submit(userId, image({ model: "flux-schnell" }));
      await run(id);
      const view = await getGeneration({ db: db(), env, id, viewerId: userId });
      expect(view).toMatchObject({ status: "failed", error: { code: "parse_error", message: "Parse response error" } });
    } finally {
      fal.malformed = false;
      replicate.malformed = false;
    }
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 20, held: 0, available: 20 });
  });

  it("stops a provider that takes longer than the model's timeout, and refunds it", async () => {
    const userId = await newUser(20);
    openai.delayMs = 6000;
    try {
      const { id } = await submit(userId, image({ model: "gpt-image-1" }));
      await run(id);
      expect(await row(id)).toMatchObject({ status: "failed", errorCode: "timeout" });
    } finally {
      openai.delayMs = 0;
    }
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 20, held: 0, available: 20 });
  });

  it("treats an output URL that has already expired as a provider failure", async () => {
    const userId = await newUser(20);
    fal.expireOutputs = true;
    replicate.expireOutputs = true;
    try {
      const { id } = await submit(userId, image({ model: "flux-schnell" }));
      await run(id);
      expect(await row(id)).toMatchObject({ status: "failed", errorCode: "image_failed" });
      const attempts = await db().select().from(generationAttempt).where(eq(generationAttempt.generationId, id));
      expect(attempts.map((a) => a.errorCode)).toEqual(["output_unavailable", "output_unavailable"]);
    } finally {
      fal.expireOutputs = false;
      replicate.expireOutputs = false;
    }
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 20, held: 0, available: 20 });
  });

  it("refunds exactly the failures of 200 jobs when the provider fails 30% of the time", async () => {
    const userId = await newUser(200 * 8);
    openai.failRate = 0.3;
    try {
      const ids: string[] = [];
      for (let i = 0; i < 200; i++)
        ids.push((await submit(userId, image({ model: "gpt-image-1", prompt: `job ${i}` }))).id);
      const queue = [...ids];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let id = queue.shift(); id; id = queue.shift()) await run(id);
        }),
      );
    } finally {
      openai.failRate = 0;
    }
    const rows = await db().select().from(generation).where(eq(generation.userId, userId));
    const succeeded = rows.filter((r) => r.status === "succeeded").length;
    const failed = rows.filter((r) => r.status === "failed").length;
    expect(succeeded + failed).toBe(200);
    expect(failed).toBeGreaterThan(20);
    expect(succeeded).toBeGreaterThan(80);
    const releases = (await entries(userId)).filter((e) => e.kind === "release").length;
    expect(releases).toBe(failed);
    expect(await getBalance({ db: db(), userId })).toEqual({
      balance: 1600 - succeeded * 8,
      held: 0,
      available: 1600 - succeeded * 8,
    });
    await expectSettled(userId);
  });

  it("sweeps a job whose worker vanished: failed and refunded once, however often the sweeper runs", async () => {
    const userId = await newUser(10);
    const { id } = await submit(userId, image({ count: 2 }));
    await db()
      .update(generation)
      .set({ status: "processing", attempt: 1, startedAt: sql`now() - interval '2 hours'` })
      .where(eq(generation.id, id));
    await Promise.all([
      sweepGenerations({ db: db(), boss, env, marginSeconds: 60 }),
      sweepGenerations({ db: db(), boss, env, marginSeconds: 60 }),
    ]);
    await sweepGenerations({ db: db(), boss, env, marginSeconds: 60 });
    expect(await row(id)).toMatchObject({ status: "failed", errorCode: "timeout" });
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 10, held: 0, available: 10 });
    await expectSettled(userId);
    // The job's late worker cannot undo it.
    await run(id);
    expect(await row(id)).toMatchObject({ status: "failed" });
  });

  /** A logger whose lines the test reads. */
  function capturingLogger() {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { log, lines };
  }
  const inputPng = () =>
    sharp({ create: { width: 64, height: 48, channels: 3, background: "#3a7" } })
      .png()
      .toBuffer()
      .then((b) => new Uint8Array(b));
  /** An image-to-image job of gpt-image-1 from a saved input, by a new account holding 20 credits. */
  async function imageToImage() {
    const userId = await newUser(20);
    const saved = await saveInputImage({ db: db(), storage, userId, bytes: await inputPng() });
    const { id } = await submit(userId, {
      ...image({ model: "gpt-image-1" }),
      tool: "image-to-image",
      inputAssetId: saved.id,
    });
    return { userId, saved, id };
  }

  it("fails an image-to-image job whose input image is gone from storage: refunded, logged, no provider called", async () => {
    const { userId, saved, id } = await imageToImage();
    const [input] = await db().select().from(asset).where(eq(asset.id, saved.id));
    // As on a process whose storage is not the one the upload went to.
    await storage.delete(input!.storageKey);
    const calls = openai.requests.length;
    const { log, lines } = capturingLogger();

    await runGeneration({ ...deps(), logger: log }, { generationId: id });

    const view = await getGeneration({ db: db(), env, id, viewerId: userId });
    expect(view).toMatchObject({
      status: "failed",
      creditsCharged: 0,
      error: { code: "input_unavailable", messageKey: "generation.errors.inputUnavailable" },
    });
    expect(openai.requests.length).toBe(calls);
    expect(await db().select().from(generationAttempt).where(eq(generationAttempt.generationId, id))).toEqual([]);
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 20, held: 0, available: 20 });
    await expectSettled(userId);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, generationId: id, storageKey: input!.storageKey }),
    );
  });

  it("retries an image-to-image job whose storage failed to answer, and runs it with its image once it does", async () => {
    const { userId, saved, id } = await imageToImage();
    const failing = {
      ...storage,
      get: () => Promise.reject(new Error("503 Service Unavailable")),
    };
    const calls = openai.requests.length;

    // The run throws: the queue runs the job again.
    await expect(runGeneration({ ...deps(), storage: failing }, { generationId: id })).rejects.toThrow(/503/);
    expect(await row(id)).toMatchObject({ status: "processing", attempt: 1 });
    expect(openai.requests.length).toBe(calls);

    await run(id);
    expect(await row(id)).toMatchObject({ status: "succeeded", creditsCharged: 8 });
    // One edit, then the output's check by the connection's moderation endpoint.
    expect(openai.requests.slice(calls).map((r) => r.path)).toEqual(["/v1/images/edits", "/v1/moderations"]);
    await expectSettled(userId);

    // The last run a job may have fails it rather than running without its image.
    const last = await submit(userId, {
      ...image({ model: "gpt-image-1" }),
      tool: "image-to-image",
      inputAssetId: saved.id,
    });
    await db()
      .update(generation)
      .set({ attempt: MAX_RUNS - 1 })
      .where(eq(generation.id, last.id));
    await runGeneration({ ...deps(), storage: failing }, { generationId: last.id });
    expect(await row(last.id)).toMatchObject({ status: "failed", errorCode: "input_unavailable", attempt: MAX_RUNS });
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 12, held: 0, available: 12 });
  });

  it("closes the provider calls of runs whose worker died, and leaves a live run's call alone", async () => {
    const userId = await newUser(30);
    const attemptOf = (generationId: string, run: number, startedAt = sql`now()`) =>
      db()
        .insert(generationAttempt)
        .values({ generationId, run, binding: 0, provider: "demo", providerModel: "demo-image", startedAt })
        .returning({ id: generationAttempt.id })
        .then((r) => r[0]!.id);
    // A run killed, then the job retried and still running: the first run's call is over, the second's is not.
    const retried = (await submit(userId, image())).id;
    await db()
      .update(generation)
      .set({ status: "processing", attempt: 2, startedAt: sql`now()` })
      .where(eq(generation.id, retried));
    const killed = await attemptOf(retried, 1);
    const live = await attemptOf(retried, 2);
    // A job that ended (the sweeper gave it up) while its run's call had no outcome.
    const ended = (await submit(userId, image())).id;
    await db().update(generation).set({ status: "failed", attempt: 1 }).where(eq(generation.id, ended));
    const orphan = await attemptOf(ended, 1);
    // The current run of a job whose call started longer ago than its timeout and the margin.
    const stuck = (await submit(userId, image())).id;
    await db().update(generation).set({ status: "processing", attempt: 1 }).where(eq(generation.id, stuck));
    const old = await attemptOf(stuck, 1, sql`now() - interval '2 hours'`);
    const finishedCall = await attemptOf(ended, 1);
    await db()
      .update(generationAttempt)
      .set({ outcome: "failed", errorCode: "timeout", finishedAt: sql`now()` })
      .where(eq(generationAttempt.id, finishedCall));

    const swept = await Promise.all([
      sweepGenerations({ db: db(), boss, env, marginSeconds: 60 }),
      sweepGenerations({ db: db(), boss, env, marginSeconds: 60 }),
    ]);
    expect(swept[0].attemptsClosed + swept[1].attemptsClosed).toBeGreaterThanOrEqual(3);
    const attempts = await db()
      .select()
      .from(generationAttempt)
      .where(inArray(generationAttempt.id, [killed, live, orphan, old, finishedCall]));
    const byId = new Map(attempts.map((a) => [a.id, a]));
    for (const id of [killed, orphan, old]) {
      expect(byId.get(id)).toMatchObject({ outcome: "interrupted", errorCode: "interrupted" });
      expect(byId.get(id)!.finishedAt).toBeInstanceOf(Date);
    }
    expect(byId.get(live)).toMatchObject({ outcome: null, finishedAt: null });
    expect(byId.get(finishedCall)).toMatchObject({ outcome: "failed", errorCode: "timeout" });
  });

  it("closes at most its limit of interrupted calls per sweep", async () => {
    const userId = await newUser(10);
    const { id } = await submit(userId, image());
    await db().update(generation).set({ status: "canceled", attempt: 1 }).where(eq(generation.id, id));
    await db()
      .insert(generationAttempt)
      .values(
        Array.from({ length: 5 }, (_, binding) => ({
          generationId: id,
          run: 1,
          binding,
          provider: "demo",
          providerModel: "demo-image",
        })),
      );
    expect(await closeInterruptedAttempts(db(), { marginSeconds: 60, limit: 2 })).toBe(2);
    expect(await closeInterruptedAttempts(db(), { marginSeconds: 60, limit: 2 })).toBe(2);
    expect(await closeInterruptedAttempts(db(), { marginSeconds: 60, limit: 2 })).toBe(1);
    const open = await db()
      .select()
      .from(generationAttempt)
      .where(and(eq(generationAttempt.generationId, id), isNull(generationAttempt.outcome)));
    expect(open).toEqual([]);
  });

  it("lets only the first of competing endings of a job take effect: one status, one settlement, one message", async () => {
    const userId = await newUser(10);
    const endings: Ending[] = [
      { status: "succeeded", charge: 3, provider: "demo", providerModel: "demo-image", durationMs: 5 },
      { status: "failed", failure: "timeout" },
      { status: "canceled" },
    ];
    await warmWebhookQueue(boss);
    for (let round = 0; round < 3; round++) {
      const { id } = await submitGeneration(deps(), {
        user: { id: userId },
        input: image({ count: 3 }),
        webhookUrl: "https://hooks.example.com/endings",
      });
      await db().update(generation).set({ status: "processing", attempt: 1 }).where(eq(generation.id, id));
      const where = and(eq(generation.id, id), eq(generation.status, "processing"), eq(generation.attempt, 1))!;
      // Each ending in turn goes first; the others race it.
      const order = [...endings.slice(round), ...endings.slice(0, round)];
      const results = await Promise.all(
        order.map((ending) => db().transaction((tx) => endGenerationInTx(tx, { boss, env }, { where, ending }))),
      );
      const winners = order.filter((_, i) => results[i] !== null);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!;
      expect(await row(id)).toMatchObject({
        status: winner.status,
        creditsCharged: winner.status === "succeeded" ? 3 : 0,
        errorCode: winner.status === "failed" ? "timeout" : null,
      });
      const messages = await db().select().from(webhookDelivery).where(eq(webhookDelivery.generationId, id));
      expect(messages.map((m) => m.event)).toEqual([`generation.${winner.status}`]);
      const settled = await db()
        .select({ kind: creditEntry.kind, amount: creditEntry.amount })
        .from(creditEntry)
        .innerJoin(generation, eq(generation.holdId, creditEntry.holdId))
        .where(and(eq(generation.id, id), sql`${creditEntry.kind} in ('capture', 'release')`));
      expect(settled).toEqual([
        winner.status === "succeeded" ? { kind: "capture", amount: -3 } : { kind: "release", amount: 0 },
      ]);
    }
    await expectSettled(userId);
    expect((await getBalance({ db: db(), userId })).held).toBe(0);
  });

  it("records one webhook message, with its delivery job, in the transaction that ends a generation", async () => {
    const userId = await newUser(20);
    const hook = (name: string) => `https://hooks.example.com/${name}`;
    const withHook = (name: string, input = image()) =>
      submitGeneration(deps(), { user: { id: userId }, input, webhookUrl: hook(name) });
    const [succeeded, failed, canceled, swept, silent] = await Promise.all([
      withHook("succeeded"),
      withHook("failed", image({ model: "flux-schnell" })),
      withHook("canceled"),
      withHook("swept"),
      submit(userId, image()),
    ]);
    await run(succeeded.id);
    fal.reject = true;
    try {
      await run(failed.id);
    } finally {
      fal.reject = false;
    }
    await Promise.all([
      cancelGeneration({ db: db(), boss, env, userId, id: canceled.id }),
      cancelGeneration({ db: db(), boss, env, userId, id: canceled.id }),
    ]);
    await db()
      .update(generation)
      .set({ status: "processing", attempt: 1, startedAt: sql`now() - interval '2 hours'` })
      .where(eq(generation.id, swept.id));
    await Promise.all([
      sweepGenerations({ db: db(), boss, env, marginSeconds: 60 }),
      sweepGenerations({ db: db(), boss, env, marginSeconds: 60 }),
    ]);
    await run(silent.id);

    const messages = await db().select().from(webhookDelivery).where(eq(webhookDelivery.userId, userId));
    const byGeneration = new Map(messages.map((m) => [m.generationId, m]));
    expect(messages).toHaveLength(4);
    for (const [g, event, name] of [
      [succeeded, "generation.succeeded", "succeeded"],
      [failed, "generation.failed", "failed"],
      [canceled, "generation.canceled", "canceled"],
      [swept, "generation.failed", "swept"],
    ] as const) {
      const message = byGeneration.get(g.id);
      expect(message, name).toMatchObject({ event, url: hook(name), status: "pending", attempts: 0, payload: null });
      expect(await boss.getJobById(WEBHOOK_QUEUE, message!.id)).toMatchObject({ data: { deliveryId: message!.id } });
    }
    expect(byGeneration.has(silent.id)).toBe(false);
    expect((await row(succeeded.id)).webhookUrl).toBe(hook("succeeded"));
  });

  it("refuses a webhook URL that is not https or names a private address, creating and holding nothing", async () => {
    const userId = await newUser(5);
    for (const url of [
      "http://hooks.example.com/x",
      "https://127.0.0.1/x",
      "https://[::1]/x",
      "https://10.1.2.3/x",
      "https://169.254.169.254/latest/meta-data",
      "https://localhost/x",
      "https://user:pass@hooks.example.com/x",
      "not a url",
      `https://hooks.example.com/${"a".repeat(2100)}`,
    ]) {
      await expect(
        submitGeneration(deps(), { user: { id: userId }, input: image(), webhookUrl: url }).catch(codeOf),
        url,
      ).resolves.toBe("webhook_url_refused");
    }
    expect(await db().select().from(generation).where(eq(generation.userId, userId))).toEqual([]);
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 5, held: 0, available: 5 });
  });

  it("keeps each user's generations to themselves; public ones can be read by anyone", async () => {
    const owner = await newUser(10);
    const other = await newUser(10);
    const { id } = await submit(owner, image());
    await run(id);
    for (const attempt of [
      () => getGeneration({ db: db(), env, id, viewerId: other }),
      () => getGeneration({ db: db(), env, id, viewerId: null, allowPublic: true }),
      () => cancelGeneration({ db: db(), boss, env, userId: other, id }),
      () => deleteGeneration({ db: db(), storage, userId: other, id }),
      () => setVisibility({ db: db(), userId: other, id, visibility: "public" }),
    ]) {
      await expect(attempt().catch(codeOf)).resolves.toBe("not_found");
    }
    expect((await listGenerations({ db: db(), userId: other, query: {} })).items).toEqual([]);
    await setVisibility({ db: db(), userId: owner, id, visibility: "public" });
    await expect(getGeneration({ db: db(), env, id, viewerId: null, allowPublic: true })).resolves.toMatchObject({
      id,
      mine: false,
      input: null,
    });
  });

  it("lists newest first with filters and a cursor that skips and repeats nothing", async () => {
    const userId = await newUser(100);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await submit(userId, image({ prompt: `p${i}` }))).id);
    await cancelGeneration({ db: db(), boss, env, userId, id: ids[2]! });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listGenerations({ db: db(), userId, query: { limit: "3", ...(cursor ? { cursor } : {}) } });
      seen.push(...page.items.map((g) => g.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const canceled = await listGenerations({ db: db(), userId, query: { status: "canceled" } });
    expect(canceled.items.map((g) => g.id)).toEqual([ids[2]]);
    await expect(listGenerations({ db: db(), userId, query: { cursor: "garbage" } }).catch(codeOf)).resolves.toBe(
      "invalid_options",
    );
  });

  it("deletes a generation with its files, releasing the hold of one still queued", async () => {
    const userId = await newUser(10);
    const { id } = await submit(userId, image());
    await run(id);
    const [out] = await db().select().from(asset).where(eq(asset.generationId, id));
    await deleteGeneration({ db: db(), storage, userId, id });
    expect(await storage.stat(out!.storageKey)).toBeNull();
    expect(await storage.stat(out!.thumbKey!)).toBeNull();
    expect(await db().select().from(asset).where(eq(asset.id, out!.id))).toEqual([]);

    const queued = (await submit(userId, image({ count: 2 }))).id;
    await deleteGeneration({ db: db(), storage, userId, id: queued });
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 9, held: 0, available: 9 });
    await expectSettled(userId);
  });
});
