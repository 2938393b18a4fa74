import pino from "pino";
import sharp from "sharp";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { asset, creditEntry, generation } from "#server/db/schema/index.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { parseEnv, type Env } from "#server/env.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { runGeneration } from "#server/modules/generation/run-generation.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { AppError } from "#server/errors.ts";
import { TOOLS } from "#common/tools.ts";
import { backends, insertUserWithCredits, openEngine } from "#tests/support/backends.ts";

const logger = pino({ level: "silent" });
const codeOf = (error: unknown) => (error instanceof AppError ? `${error.code}:${error.messageKey}` : String(error));

/** A picture with something in the middle: a disc on a gradient. */
async function picture(width: number, height: number): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g"><stop offset="0" stop-color="#9cf"/><stop offset="1" stop-color="#fff"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="#c30"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

/** A mask of a size: white in the left half (what changes). */
async function leftHalfMask(width: number, height: number): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#000"/><rect width="${width / 2}" height="${height}" fill="#fff"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

describe.each(backends)("the tools on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let storage: ReturnType<typeof createLocalStorage>;
  let env: Env;
  const db = () => handle.db;
  const deps = () => ({ db: db(), boss, env, storage, logger, models: ModelRegistry.builtIn(env) });

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    storage = createLocalStorage(engine.filesDir);
    env = parseEnv({ IMAGE_CLASSIFIER: "off" });
  });
  afterAll(async () => {
    await engine?.close();
  });

  const submit = (userId: string, input: object) => submitGeneration(deps(), { user: { id: userId }, input });
  const run = (id: string) => runGeneration(deps(), { generationId: id });
  const row = async (id: string) => (await db().select().from(generation).where(eq(generation.id, id)))[0]!;
  const upload = async (userId: string, bytes: Uint8Array, mask = false) =>
    (await saveInputImage({ db: db(), storage, userId, bytes, mask })).id;
  const refused = async (userId: string, input: object) => {
    const error = await submit(userId, input).then(
      () => null,
      (e: unknown) => e,
    );
    return codeOf(error);
  };
  /** The alpha of a stored image at some points. */
  const alphaAt = async (key: string, points: [number, number][]) => {
    const file = await storage.get(key);
    const bytes = Buffer.from(await new Response(file!.body).arrayBuffer());
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return points.map(([x, y]) => data[(y * info.width + x) * info.channels + 3]);
  };
  const outputs = (id: string) =>
    db()
      .select()
      .from(asset)
      .where(and(eq(asset.generationId, id), eq(asset.role, "output")));

  it("writes the tools' check from the table: every tool is accepted, anything else refused", async () => {
    const userId = await insertUserWithCredits(db(), 0);
    for (const tool of TOOLS) {
      const [inserted] = await db()
        .insert(generation)
        .values({
          userId,
          kind: tool.kind,
          tool: tool.id,
          modelId: "x",
          prompt: "",
          params: { aspectRatio: "1:1", count: 1 },
          creditsHeld: 0,
          timeoutSeconds: 60,
          status: "canceled",
        })
        .returning({ id: generation.id });
      expect(inserted?.id).toBeTruthy();
    }
    await expect(
      db().execute(
        sql`insert into generation (user_id, kind, tool, model_id, prompt, params, credits_held, timeout_seconds)
            values (${userId}, 'image', 'colorize', 'x', '', '{}', 0, 60)`,
      ),
    ).rejects.toThrow();
  });

  it("refuses what a tool lacks or does not take, with nothing created and nothing held", async () => {
    const userId = await insertUserWithCredits(db(), 50);
    const input = await upload(userId, await picture(320, 320));
    const cases: [object, string][] = [
      [{ tool: "inpaint", model: "demo-image", prompt: "a boat" }, "input_image_required"],
      [{ tool: "inpaint", model: "demo-image", prompt: "a boat", inputAssetId: input }, "mask_required"],
      [
        {
          tool: "inpaint",
          model: "demo-image",
          prompt: "a boat",
          inputAssetId: input,
          maskAssetId: await upload(userId, await leftHalfMask(640, 320), true),
        },
        "invalid_options:generation.errors.maskShape",
      ],
      [
        { tool: "outpaint", model: "demo-image", inputAssetId: input },
        "invalid_options:generation.errors.extendRequired",
      ],
      [
        { tool: "outpaint", model: "demo-image", inputAssetId: input, extendTo: "1:1" },
        "invalid_options:generation.errors.extendRequired",
      ],
      [
        { tool: "outpaint", model: "demo-image", inputAssetId: input, extend: { left: 2048, right: 2048 } },
        "invalid_options:generation.errors.canvasTooLarge",
      ],
      [{ tool: "upscale", model: "demo-image", inputAssetId: input, scale: 3 }, "invalid_options"],
      [{ tool: "remove-background", model: "demo-image", inputAssetId: input, prompt: "x" }, "unknown_field"],
      [{ tool: "remove-background", model: "demo-image", inputAssetId: input, aspectRatio: "1:1" }, "unknown_field"],
      [{ tool: "upscale", model: "demo-video", inputAssetId: input }, "unknown_model"],
      [{ tool: "image-to-video", model: "demo-video", prompt: "waves" }, "input_image_required"],
      [{ tool: "text-to-image", model: "demo-image", prompt: "x", variationOf: crypto.randomUUID() }, "not_found"],
    ];
    for (const [request, code] of cases) {
      expect(await refused(userId, request), JSON.stringify(request)).toMatch(new RegExp(`^${code}`));
    }
    expect(await db().select().from(generation).where(eq(generation.userId, userId))).toEqual([]);
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 50, held: 0, available: 50 });
  });

  it("edits a result with a mask: the result is the parent, the mask kept, charged once", async () => {
    const userId = await insertUserWithCredits(db(), 10);
    const first = await submit(userId, { tool: "text-to-image", model: "demo-image", prompt: "a calm lake", seed: 3 });
    await run(first.id);
    const [made] = await outputs(first.id);
    const mask = await upload(userId, await leftHalfMask(made!.width!, made!.height!), true);
    const { id } = await submit(userId, {
      tool: "inpaint",
      model: "demo-image",
      prompt: "a red boat",
      inputAssetId: made!.id,
      maskAssetId: mask,
    });
    expect(await row(id)).toMatchObject({
      tool: "inpaint",
      parentId: first.id,
      inputAssetId: made!.id,
      maskAssetId: mask,
    });
    await run(id);
    expect(await row(id)).toMatchObject({ status: "succeeded", creditsCharged: 1 });
    const [out] = await outputs(id);
    expect(out).toMatchObject({ width: made!.width, height: made!.height });
    const charges = await db()
      .select()
      .from(creditEntry)
      .where(and(eq(creditEntry.userId, userId), eq(creditEntry.kind, "capture")));
    expect(charges.map((c) => c.amount)).toEqual([-1, -1]);
  });

  it("extends the canvas to a ratio: the padding is computed from the input and the image grows", async () => {
    const userId = await insertUserWithCredits(db(), 10);
    const input = await upload(userId, await picture(400, 400));
    const { id } = await submit(userId, {
      tool: "outpaint",
      model: "demo-image",
      inputAssetId: input,
      extendTo: "16:9",
    });
    const job = await row(id);
    expect(job.params).toMatchObject({ extend: { top: 0, bottom: 0, left: 155, right: 156 }, aspectRatio: "16:9" });
    expect(job.prompt).toBe("");
    await run(id);
    expect(await row(id)).toMatchObject({ status: "succeeded", creditsCharged: 1 });
    const [out] = await outputs(id);
    // The padded canvas at its exact size: the input in the middle, the model's picture around it.
    expect(out).toMatchObject({ width: 711, height: 400 });
  });

  it("upscales and removes backgrounds without a prompt; varies a result with a new seed, linked to it", async () => {
    const userId = await insertUserWithCredits(db(), 10);
    const input = await upload(userId, await picture(200, 150));
    const up = await submit(userId, { tool: "upscale", model: "demo-image", inputAssetId: input, scale: 4 });
    expect((await row(up.id)).params).toMatchObject({ scale: 4, count: 1, aspectRatio: "4:3" });
    const cut = await submit(userId, { tool: "remove-background", model: "demo-image", inputAssetId: input });
    await Promise.all([run(up.id), run(cut.id)]);
    expect(await row(up.id)).toMatchObject({ status: "succeeded", creditsCharged: 1 });
    expect(await row(cut.id)).toMatchObject({ status: "succeeded", creditsCharged: 1 });
    expect((await outputs(up.id))[0]).toMatchObject({ width: 800, height: 600 });
    const [cutOut] = await outputs(cut.id);
    expect(cutOut).toMatchObject({ mimeType: "image/png", width: 200, height: 150 });
    const alpha = await alphaAt(cutOut!.storageKey, [
      [2, 2],
      [100, 75],
    ]);
    expect(alpha).toEqual([0, 255]);

    const again = await submit(userId, {
      tool: "upscale",
      model: "demo-image",
      inputAssetId: input,
      scale: 2,
      variationOf: up.id,
    });
    expect(await row(again.id)).toMatchObject({ parentId: up.id });
  });

  it("animates a start image towards an end image", async () => {
    const userId = await insertUserWithCredits(db(), 20);
    const start = await upload(userId, await picture(480, 270));
    const end = await upload(userId, await picture(480, 270));
    const { id } = await submit(userId, {
      tool: "image-to-video",
      model: "demo-video",
      prompt: "the sun sets",
      inputAssetId: start,
      endAssetId: end,
      duration: 5,
    });
    expect(await row(id)).toMatchObject({ kind: "video", inputAssetId: start, endAssetId: end, creditsHeld: 5 });
    await run(id);
    expect(await row(id)).toMatchObject({ status: "succeeded", creditsCharged: 5 });
  }, 120_000);
});
