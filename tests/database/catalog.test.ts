import pino from "pino";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import {
  adminAction,
  catalogModel,
  generation,
  generationAttempt,
  providerConnection,
} from "#server/db/schema/index.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { parseEnv, type Env } from "#server/env.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { runGeneration } from "#server/modules/generation/run-generation.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { secretBox } from "#server/modules/catalog/secret-box.ts";
import {
  addModel,
  CatalogRefusal,
  changeModel,
  exportCatalog,
  importCatalog,
  parseCatalogFile,
} from "#server/modules/catalog/edit-models.ts";
import { addConnection, changeConnection, resealConnections } from "#server/modules/catalog/edit-connections.ts";
import { newModelDefinition } from "#server/admin/catalog-commands.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { backends, insertUserWithCredits, openEngine } from "#tests/support/backends.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";

const logger = pino({ level: "silent" });
const AUTH_SECRET = "an-auth-secret-of-at-least-32-characters!";

describe.each(backends)("the catalog of models and connections on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let storage: ReturnType<typeof createLocalStorage>;
  let fal: FakeFal;
  let backup: FakeFal;
  let env: Env;
  const box = secretBox({ authSecret: AUTH_SECRET });
  const db = () => handle.db;
  /** A registry on this database, as a process holds one (read again on demand). */
  const registry = async () => {
    const models = new ModelRegistry(env, { db: db(), box, logger });
    await models.refresh();
    return models;
  };

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    storage = createLocalStorage(engine.filesDir);
    [fal, backup] = await Promise.all([
      startFakeFal({ key: "fal-primary-key-0001" }),
      startFakeFal({ key: "fal-backup-key-0002" }),
    ]);
    // No provider key in the environment: every connection below is a row.
    env = parseEnv({ AUTH_SECRET, IMAGE_CLASSIFIER: "off" });
  });
  afterAll(async () => {
    await Promise.all([fal?.close(), backup?.close()]);
    await engine?.close();
  });

  it("refuses a base URL on a private network or plain http unless it is allowed explicitly", async () => {
    for (const baseURL of [fal.url, "http://fal.example", "https://169.254.169.254/", "https://localhost:8443"])
      await expect(
        addConnection({
          db: db(),
          box,
          provider: "fal",
          input: { settings: { apiKey: "k", baseURL } },
          actor: CLI_ACTOR,
        }),
      ).rejects.toMatchObject({ reason: "invalid", field: "baseURL" });
    expect(await db().select().from(providerConnection)).toEqual([]);
  });

  it("keeps a connection's key sealed, shows its last four characters, and serves its provider's models at once", async () => {
    const before = await registry();
    expect(before.findMedia("flux-schnell")).toBeUndefined();
    const { id } = await addConnection({
      db: db(),
      box,
      provider: "fal",
      input: {
        name: "fal main",
        settings: { apiKey: "fal-primary-key-0001", baseURL: fal.url },
        allowPrivateNetwork: true,
      },
      actor: CLI_ACTOR,
    });
    expect(id).toBe("fal-2");
    const rows = await db().select().from(providerConnection);
    expect(JSON.stringify(rows)).not.toContain("fal-primary-key-0001");
    expect(rows[0]!.secretHints).toEqual({ apiKey: "0001" });
    const audit = await db().select().from(adminAction).where(eq(adminAction.targetId, id));
    expect(JSON.stringify(audit)).not.toContain("fal-primary-key-0001");

    const models = await registry();
    expect(models.findMedia("flux-schnell")?.bindings).toEqual([
      expect.objectContaining({ provider: "fal", model: "fal-ai/flux/schnell", connection: "fal-2" }),
    ]);
    // Another installation key cannot open it: the connection is shown as unreadable and serves nothing.
    const stranger = new ModelRegistry(env, { db: db(), box: secretBox({ authSecret: "x".repeat(40) }), logger });
    await stranger.refresh();
    expect(stranger.connections().find((c) => c.id === id)).toMatchObject({ problem: "unreadable", settings: null });
    expect(stranger.findMedia("flux-schnell")).toBeUndefined();
  });

  it("fails over to a second connection of the same provider, in order", async () => {
    await addConnection({
      db: db(),
      box,
      provider: "fal",
      id: "fal-backup",
      input: { settings: { apiKey: "fal-backup-key-0002", baseURL: backup.url }, allowPrivateNetwork: true },
      actor: CLI_ACTOR,
    });
    const models = await registry();
    expect(models.findMedia("flux-schnell")?.bindings.map((b) => b.connection)).toEqual(["fal-2", "fal-backup"]);
    const userId = await insertUserWithCredits(db(), 50);
    const deps = { db: db(), boss, env, storage, logger, models };
    fal.failNext = 5;
    const { id } = await submitGeneration(deps, {
      user: { id: userId },
      input: { tool: "text-to-image", model: "flux-schnell", prompt: "a lighthouse", count: 1, aspectRatio: "1:1" },
    });
    await runGeneration(deps, { generationId: id });
    fal.failNext = 0;
    const [job] = await db().select().from(generation).where(eq(generation.id, id));
    expect(job!.status).toBe("succeeded");
    const attempts = await db().select().from(generationAttempt).where(eq(generationAttempt.generationId, id));
    expect(attempts.map((a) => a.outcome).sort()).toEqual(["failed", "succeeded"]);
    expect(backup.requests.length).toBeGreaterThan(0);

    // Disabled, a connection is no longer tried.
    await changeConnection({ db: db(), box, id: "fal-backup", input: { enabled: false }, actor: CLI_ACTOR });
    expect((await registry()).findMedia("flux-schnell")?.bindings.map((b) => b.connection)).toEqual(["fal-2"]);
  });

  it("charges a job the price it was submitted with, whatever the model's price becomes while it waits", async () => {
    const models = await registry();
    const userId = await insertUserWithCredits(db(), 100);
    const deps = { db: db(), boss, env, storage, logger, models };
    const { id } = await submitGeneration(deps, {
      user: { id: userId },
      input: { tool: "text-to-image", model: "demo-image", prompt: "a red fox", count: 3, aspectRatio: "1:1" },
    });
    // The model made free (and its options narrowed) while the job is queued.
    await changeModel({
      db: db(),
      env,
      id: "demo-image",
      actor: CLI_ACTOR,
      change: (m) => (m.kind === "image" ? { ...m, price: { ...m.price, credits: 0 } } : m),
    });
    await models.refresh();
    expect(models.findMedia("demo-image")?.price.credits).toBe(0);
    await runGeneration(deps, { generationId: id });
    const [job] = await db().select().from(generation).where(eq(generation.id, id));
    expect(job).toMatchObject({ status: "succeeded", creditsHeld: 3, creditsCharged: 3 });
    expect(job!.modelSnapshot?.price).toEqual({ unit: "image", credits: 1 });
    // A change of a built-in model is kept as what differs from the built-in definition only.
    const [row] = await db().select().from(catalogModel).where(eq(catalogModel.id, "demo-image"));
    expect(row!.definition).toEqual({ price: { unit: "image", credits: 0 } });
  });

  it("adds a model on a connection, refuses a second of the same id, and offers it until it is disabled", async () => {
    const definition = newModelDefinition({
      kind: "image",
      provider: "fal",
      model: "fal-ai/flux-pro/v1.1",
      credits: 5,
      connection: "fal-2",
      enabled: true,
    });
    await addModel({ db: db(), env, id: "flux-pro", definition, actor: CLI_ACTOR });
    await expect(addModel({ db: db(), env, id: "flux-pro", definition, actor: CLI_ACTOR })).rejects.toThrow(
      CatalogRefusal,
    );
    await expect(addModel({ db: db(), env, id: "flux-dev", definition, actor: CLI_ACTOR })).rejects.toMatchObject({
      reason: "exists",
    });
    const models = await registry();
    expect(models.findMedia("flux-pro")).toMatchObject({ price: { unit: "image", credits: 5 } });
    await changeModel({ db: db(), env, id: "flux-pro", actor: CLI_ACTOR, change: (m) => ({ ...m, enabled: false }) });
    await models.refresh();
    expect(models.findMedia("flux-pro")).toBeUndefined();
    expect(models.entry("flux-pro")?.state).toBe("off");
    // Visible to administrators only: offered to them, not to others.
    await changeModel({
      db: db(),
      env,
      id: "flux-pro",
      actor: CLI_ACTOR,
      change: (m) => ({ ...m, enabled: true, visibility: "admins" }),
    });
    await models.refresh();
    expect(models.findMedia("flux-pro")).toBeUndefined();
    expect(models.findMedia("flux-pro", { admin: true })).toBeDefined();
  });

  it("imports a catalog whole or not at all, and exports what it imported", async () => {
    const models = await registry();
    const exported = exportCatalog(models.entries());
    const changed = exported.map((m) =>
      m.id === "dall-e-3" && m.kind === "image" ? { ...m, price: { ...m.price, credits: 11 } } : m,
    );
    const bad = changed.map((m, i) =>
      i === 4 && m.kind !== "chat" ? { ...m, price: { ...m.price, credits: -1 } } : m,
    );
    expect(() => parseCatalogFile(JSON.stringify(bad))).toThrow(/^model 5 \(\w[\w.-]*\): price\.credits: /);
    const records = parseCatalogFile(JSON.stringify(changed));
    expect((await importCatalog({ db: db(), env, records, actor: CLI_ACTOR })).changed).toEqual(["dall-e-3"]);
    await models.refresh();
    expect(exportCatalog(models.entries())).toEqual(changed);
    // A kind that differs from the built-in model's is refused, and nothing of the file is applied.
    const wrongKind = changed.map((m) =>
      m.id === "gpt-image-1"
        ? { ...m, kind: "video" }
        : m.id === "dall-e-3" && m.kind === "image"
          ? { ...m, price: { ...m.price, credits: 12 } }
          : m,
    );
    await expect(
      importCatalog({ db: db(), env, records: parseCatalogFile(JSON.stringify(wrongKind)), actor: CLI_ACTOR }),
    ).rejects.toMatchObject({ reason: "kind" });
    await models.refresh();
    expect(models.entry("dall-e-3")?.definition.price).toEqual({ unit: "image", credits: 11 });
  });

  it("seals the keys again under a new ENCRYPTION_KEY, the old one given as ENCRYPTION_KEY_PREVIOUS", async () => {
    const rotated = secretBox({ authSecret: AUTH_SECRET, encryptionKey: "a".repeat(64) });
    expect(await resealConnections(db(), rotated)).toBeGreaterThan(0);
    expect(await resealConnections(db(), rotated)).toBe(0);
    const models = new ModelRegistry(env, { db: db(), box: rotated, logger });
    await models.refresh();
    expect(models.connection("fal-2")?.settings).toMatchObject({ apiKey: "fal-primary-key-0001" });
    // A second rotation: the key before it opens only when given as the previous one.
    const next = secretBox({ authSecret: AUTH_SECRET, encryptionKey: "b".repeat(64), previous: ["a".repeat(64)] });
    expect(await resealConnections(db(), next)).toBeGreaterThan(0);
    const without = new ModelRegistry(env, {
      db: db(),
      box: secretBox({ authSecret: AUTH_SECRET, encryptionKey: "a".repeat(64) }),
      logger,
    });
    await without.refresh();
    expect(without.connections().find((c) => c.id === "fal-2")?.problem).toBe("unreadable");
  });
});
