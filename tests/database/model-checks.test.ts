import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { eq } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { adminAction, modelCheck } from "#server/db/schema/index.ts";
import { parseEnv, type Env } from "#server/env.ts";
import {
  latestModelChecks,
  MODEL_CHECK_QUEUE,
  runModelCheck,
  startModelCheck,
} from "#server/modules/generation/model-checks.ts";
import type { AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { startFakeReplicate, type FakeReplicate } from "#tests/fakes/replicate.ts";
import { backends, openEngine } from "#tests/support/backends.ts";

const logger = pino({ level: "silent" });
const actor: AdminActor = { id: null, label: "ops@example.com", ip: "127.0.0.1" };

describe.each(backends)("models' health tests on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let openai: FakeOpenAI;
  let fal: FakeFal;
  let replicate: FakeReplicate;
  let env: Env;
  const db = () => handle.db;

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    [openai, fal, replicate] = await Promise.all([
      startFakeOpenAI({ apiKey: "sk-good" }),
      startFakeFal(),
      startFakeReplicate(),
    ]);
    env = parseEnv({
      OPENAI_API_KEY: "sk-good",
      OPENAI_BASE_URL: `${openai.url}/v1`,
      FAL_KEY: "fal-test-key",
      FAL_BASE_URL: fal.url,
      REPLICATE_API_TOKEN: "r8_test_token",
      REPLICATE_BASE_URL: `${replicate.url}/v1`,
    });
  });
  afterAll(async () => {
    await Promise.all([openai?.close(), fal?.close(), replicate?.close()]);
    await engine?.close();
  });

  /** Starts a test of the model and runs its jobs here, as a worker would. */
  async function check(modelId: string) {
    const started = await startModelCheck({ db: db(), boss, models: ModelRegistry.builtIn(env), modelId, actor });
    const rows = await db().select().from(modelCheck).where(eq(modelCheck.modelId, modelId));
    for (const row of rows)
      await runModelCheck({ db: db(), models: ModelRegistry.builtIn(env), logger }, { checkId: row.id });
    return started;
  }
  const latest = async (modelId: string) =>
    (await latestModelChecks({ db: db(), models: ModelRegistry.builtIn(env) })).filter((c) => c.modelId === modelId);

  it("generates for real on each configured provider, keeps the outcome and its duration, and audits the test", async () => {
    const before = openai.requests.length;
    expect(await check("gpt-image-1")).toMatchObject({ started: 1, checkIds: expect.any(Array) });
    // One real generation request reached the provider.
    expect(openai.requests.slice(before).map((r) => r.path)).toEqual(["/v1/images/generations"]);
    const [result] = await latest("gpt-image-1");
    expect(result).toMatchObject({ provider: "openai", status: "succeeded", errorCode: null, actor: actor.label });
    expect(result!.durationMs).toBeGreaterThanOrEqual(0);
    // Both providers of a model with two are tested, each on its own.
    expect(await check("flux-schnell")).toMatchObject({ started: 2, checkIds: expect.any(Array) });
    expect((await latest("flux-schnell")).map((c) => [c.provider, c.status])).toEqual([
      ["fal", "succeeded"],
      ["replicate", "succeeded"],
    ]);
    const audit = await db().select().from(adminAction).where(eq(adminAction.action, "models.check"));
    expect(audit.map((a) => a.targetId)).toEqual(["gpt-image-1", "flux-schnell"]);
    // The jobs are on the queue for a worker.
    expect(await boss.getJobById(MODEL_CHECK_QUEUE, result!.id)).toBeTruthy();
  });

  it("records the provider's refusal: a wrong key, an outage", async () => {
    openai.failNext = 1;
    openai.failStatus = 401;
    await check("dall-e-3");
    expect(await latest("dall-e-3")).toEqual([
      expect.objectContaining({ status: "failed", errorCode: "provider_auth" }),
    ]);
    openai.failNext = 1;
    openai.failStatus = 503;
    await check("dall-e-3");
    expect(await latest("dall-e-3")).toEqual([
      expect.objectContaining({ status: "failed", errorCode: "provider_unavailable" }),
    ]);
    // A later success replaces it as the latest; the history keeps all three.
    await check("dall-e-3");
    expect(await latest("dall-e-3")).toEqual([expect.objectContaining({ status: "succeeded" })]);
    expect(await db().select().from(modelCheck).where(eq(modelCheck.modelId, "dall-e-3"))).toHaveLength(3);
  });

  it("tests the offline demo models too, a video included", async () => {
    await check("demo-video");
    expect(await latest("demo-video")).toEqual([
      expect.objectContaining({ provider: "demo", status: "succeeded", errorCode: null }),
    ]);
  });

  it("refuses a second test while one runs, and shows a test whose worker went away as timed out", async () => {
    const first = await startModelCheck({
      db: db(),
      boss,
      models: ModelRegistry.builtIn(env),
      modelId: "flux-dev",
      actor,
    });
    expect(first).toMatchObject({ started: 2, checkIds: expect.any(Array) });
    const again = await Promise.all([
      startModelCheck({ db: db(), boss, models: ModelRegistry.builtIn(env), modelId: "flux-dev", actor }),
      startModelCheck({ db: db(), boss, models: ModelRegistry.builtIn(env), modelId: "flux-dev", actor }),
    ]);
    expect(again).toEqual([{ refused: "running" }, { refused: "running" }]);
    expect((await latest("flux-dev")).map((c) => c.status)).toEqual(["running", "running"]);
    // Long past the model's time limit, nothing answered.
    await db()
      .update(modelCheck)
      .set({ createdAt: new Date(Date.now() - 24 * 3_600_000) })
      .where(eq(modelCheck.modelId, "flux-dev"));
    expect((await latest("flux-dev")).map((c) => [c.status, c.errorCode])).toEqual([
      ["failed", "timeout"],
      ["failed", "timeout"],
    ]);
    // And a new test may start.
    expect(
      await startModelCheck({ db: db(), boss, models: ModelRegistry.builtIn(env), modelId: "flux-dev", actor }),
    ).toMatchObject({ started: 2, checkIds: expect.any(Array) });
  });

  it("refuses a model without a configured provider", async () => {
    const bare = parseEnv({ DEMO_MODELS: "false" });
    expect(
      await startModelCheck({ db: db(), boss, models: ModelRegistry.builtIn(bare), modelId: "demo-image", actor }),
    ).toEqual({
      refused: "noProvider",
    });
  });
});
