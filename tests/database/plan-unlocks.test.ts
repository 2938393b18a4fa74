import pino from "pino";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { generation, user } from "#server/db/schema/index.ts";
import { setVisibility } from "#server/modules/generation/set-visibility.ts";
import { publicByPlan } from "#server/modules/billing/entitlements.ts";
import { defaultSettings } from "#server/modules/settings/settings-store.ts";
import { siteDefaults } from "#config/site.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { parseEnv, type Env } from "#server/env.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { addPlan, changePlan, newPlan } from "#server/modules/billing/edit-plans.ts";
import { createApiKey } from "#server/modules/api-keys/create-api-key.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { GENERATION_QUEUE, PRIORITY_JOB } from "#server/modules/generation/queue.ts";
import { FREE_PLAN_ID, type PlanUnlocks } from "#common/plans.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertSubscription, insertUserWithCredits, openEngine } from "#tests/support/backends.ts";

const logger = pino({ level: "silent" });
const refusal = (error: unknown) =>
  error instanceof AppError ? { code: error.code, key: error.messageKey, values: error.values } : String(error);

/*
 * What a plan unlocks beyond models, enforced where work starts: how many jobs run at once (counted under the
 * account's lock, so a burst cannot pass it), the queue's priority, the public APIs (no key to make, no job
 * through them), and private results when the operator made the others' public.
 */
describe.each(backends)("what a plan unlocks on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let env: Env;
  let storage: ReturnType<typeof createLocalStorage>;
  const db = () => handle.db;
  const deps = () => ({ db: db(), boss, env, storage, logger, models: ModelRegistry.builtIn(env) });

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    storage = createLocalStorage(engine.filesDir);
    env = parseEnv({ IMAGE_CLASSIFIER: "off" });
    await addPlan({
      db: db(),
      actor: CLI_ACTOR,
      definition: newPlan({
        id: "solo",
        name: "Solo",
        names: { fr: "Solo FR" },
        monthly: { usd: 900 },
        unlocks: { concurrentJobs: 2 },
      }),
    });
    await addPlan({
      db: db(),
      actor: CLI_ACTOR,
      definition: newPlan({
        id: "studio",
        name: "Studio",
        names: { fr: "Atelier pro" },
        monthly: { usd: 2900 },
        position: 1,
        unlocks: { priority: true },
      }),
    });
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });

  /** An account subscribed to a plan, as Stripe's events leave it. */
  async function subscriber(planId: string, credits = 100) {
    const userId = await insertUserWithCredits(db(), credits);
    await insertSubscription(db(), userId, planId);
    return userId;
  }
  const submit = (
    userId: string,
    extra: { source?: "web" | "api"; role?: string; settings?: ReturnType<typeof defaultSettings> } = {},
  ) =>
    submitGeneration(extra.settings ? { ...deps(), settings: { current: () => extra.settings! } } : deps(), {
      user: { id: userId, role: extra.role },
      input: { tool: "text-to-image", model: "demo-image", prompt: "a lighthouse at dusk" },
      source: extra.source,
      locale: "fr",
    });
  const setFree = (unlocks: Partial<PlanUnlocks>) =>
    changePlan({
      db: db(),
      id: FREE_PLAN_ID,
      actor: CLI_ACTOR,
      change: (current) => ({ ...current, unlocks: { ...current.unlocks, ...unlocks } }),
    });

  it("runs no more jobs at once than the plan allows, however many are sent together", async () => {
    const userId = await subscriber("solo");
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () =>
        submit(userId)
          .then(() => "queued")
          .catch(refusal),
      ),
    );
    expect(outcomes.filter((o) => o === "queued")).toHaveLength(2);
    expect(outcomes.filter((o) => o !== "queued")).toEqual(
      Array.from({ length: 10 }, () => ({
        code: "too_many_jobs",
        key: "msg.generation.tooManyJobs",
        values: { limit: 2 },
      })),
    );
    // Nothing is held for a refused job.
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 100, held: 2 });
    // One ends: there is room for one more.
    const [first] = await db().select().from(generation).where(eq(generation.userId, userId)).limit(1);
    await db().update(generation).set({ status: "canceled" }).where(eq(generation.id, first!.id));
    await expect(submit(userId)).resolves.toMatchObject({ repeated: false });
    await expect(submit(userId).catch(refusal)).resolves.toMatchObject({ code: "too_many_jobs" });
    // Accounts on the free plan keep the site's own limits.
    const free = await insertUserWithCredits(db(), 100);
    const many = await Promise.all(Array.from({ length: 5 }, () => submit(free)));
    expect(many).toHaveLength(5);
  });

  it("puts a priority plan's jobs ahead of the others in the queue", async () => {
    const priority = await submit(await subscriber("studio"));
    const ordinary = await submit(await insertUserWithCredits(db(), 100));
    const jobs = (await db().execute(
      sql`select id::text, priority from pgboss.job where name = ${GENERATION_QUEUE} and id in (${priority.id}::uuid, ${ordinary.id}::uuid)`,
    )) as unknown as { rows: { id: string; priority: number }[] };
    expect(Object.fromEntries(jobs.rows.map((j) => [j.id, j.priority]))).toEqual({
      [priority.id]: PRIORITY_JOB,
      [ordinary.id]: 0,
    });
  });

  const setApi = (id: string, api: boolean) =>
    changePlan({
      db: db(),
      id,
      actor: CLI_ACTOR,
      change: (current) => ({ ...current, unlocks: { ...current.unlocks, api } }),
    });

  it("refuses the public APIs to a plan without them: no key to make, no job through them, naming the plan", async () => {
    await setFree({ api: false });
    // Solo comes first on the pricing page, and has the API as new plans do.
    try {
      const freeAccount = await insertUserWithCredits(db(), 100);
      const named = { code: "plan_required", key: "pricing.errors.apiPlanRequired", values: { plan: "Solo FR" } };
      expect(
        await createApiKey({ db: db(), userId: freeAccount, input: { name: "x" }, locale: "fr" }).catch(refusal),
      ).toEqual(named);
      expect(await submit(freeAccount, { source: "api" }).catch(refusal)).toEqual(named);
      // The pages still work for it; a subscriber and an administrator may use the APIs.
      await expect(submit(freeAccount)).resolves.toMatchObject({ repeated: false });
      const subscribed = await subscriber("studio");
      await expect(createApiKey({ db: db(), userId: subscribed, input: { name: "ok" } })).resolves.toMatchObject({
        secret: expect.any(String),
      });
      await expect(submit(subscribed, { source: "api" })).resolves.toMatchObject({ repeated: false });
      const admin = await insertUserWithCredits(db(), 100);
      await db().update(user).set({ role: "admin" }).where(eq(user.id, admin));
      await expect(createApiKey({ db: db(), userId: admin, input: { name: "admin" } })).resolves.toBeTruthy();
      await expect(submit(admin, { source: "api" })).resolves.toMatchObject({ repeated: false });
      // No plan sells the API: the refusal says the account's plan lacks it.
      await setApi("solo", false);
      await setApi("studio", false);
      expect(await submit(freeAccount, { source: "api" }).catch(refusal)).toEqual({
        code: "plan_required",
        key: "pricing.errors.apiNotIncluded",
        values: {},
      });
    } finally {
      await setFree({ api: true });
      await setApi("solo", true);
      await setApi("studio", true);
    }
  });

  it("makes results public from the start on a plan without private ones when the operator says so, and keeps them so", async () => {
    const base = defaultSettings(siteDefaults);
    const publicOnes = { ...base, billing: { ...base.billing, publicResults: true } };
    await changePlan({
      db: db(),
      id: "studio",
      actor: CLI_ACTOR,
      change: (current) => ({ ...current, unlocks: { ...current.unlocks, privateResults: true } }),
    });
    const visibilityOf = async (id: string) =>
      (await db().select({ v: generation.visibility }).from(generation).where(eq(generation.id, id)))[0]!.v;
    const toPrivate = (userId: string, id: string, settings = publicOnes, role?: string) =>
      setVisibility({ db: db(), userId, id, visibility: "private", settings, locale: "fr", role });

    // The free account: public from the start, and refused the switch back, naming the plan in French.
    const free = await insertUserWithCredits(db(), 100);
    const made = await submit(free, { settings: publicOnes });
    expect(await visibilityOf(made.id)).toBe("public");
    expect(await toPrivate(free, made.id).catch(refusal)).toEqual({
      code: "plan_required",
      key: "pricing.errors.privatePlanRequired",
      values: { plan: "Atelier pro" },
    });
    expect(await visibilityOf(made.id)).toBe("public");
    expect(await publicByPlan(db(), { id: free }, publicOnes, "fr")).toEqual({ plan: "Atelier pro" });
    // Making one public is always allowed.
    await expect(
      setVisibility({ db: db(), userId: free, id: made.id, visibility: "public", settings: publicOnes }),
    ).resolves.toBeUndefined();

    // A plan with private results, and an administrator: private as by default, and free to switch.
    const studio = await subscriber("studio");
    const kept = await submit(studio, { settings: publicOnes });
    expect(await visibilityOf(kept.id)).toBe("private");
    expect(await publicByPlan(db(), { id: studio }, publicOnes, "fr")).toBeNull();
    const admin = await insertUserWithCredits(db(), 100);
    await db().update(user).set({ role: "admin" }).where(eq(user.id, admin));
    const adminsOwn = await submit(admin, { settings: publicOnes, role: "admin" });
    expect(await visibilityOf(adminsOwn.id)).toBe("private");
    // Through an API key the role is not known beforehand: read from the account.
    const throughKey = await submit(admin, { settings: publicOnes });
    expect(await visibilityOf(throughKey.id)).toBe("private");

    // The operator's switch off: every result private by default, and any may go private again.
    const plain = await submit(free, { settings: base });
    expect(await visibilityOf(plain.id)).toBe("private");
    await toPrivate(free, made.id, base);
    expect(await visibilityOf(made.id)).toBe("private");
    expect(await publicByPlan(db(), { id: free }, base, "fr")).toBeNull();

    // No plan keeps results private: the refusal says the account's plan makes them public.
    await changePlan({
      db: db(),
      id: "studio",
      actor: CLI_ACTOR,
      change: (current) => ({ ...current, unlocks: { ...current.unlocks, privateResults: false } }),
    });
    const again = await submit(free, { settings: publicOnes });
    expect(await toPrivate(free, again.id).catch(refusal)).toEqual({
      code: "plan_required",
      key: "pricing.errors.privateNotIncluded",
      values: {},
    });
  });
});
