import { and, desc, eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { sendInTx, warmQueue } from "#server/jobs/send-in-tx.ts";
import { modelCheck, type ModelCheckStatus } from "#server/db/schema/index.ts";
import type { CatalogModel } from "#config/models.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { runBinding } from "#server/providers/index.ts";
import { classifyProviderError } from "#server/providers/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { checkParameters } from "#common/model-parameters.ts";
import { toolSpec } from "#common/tools.ts";
import sharp from "sharp";

export const MODEL_CHECK_QUEUE = "model.check";

export interface ModelCheckJob {
  checkId: string;
}

/** What a test asks for: a picture or the shortest video, on a prompt any provider's safety system lets through. */
const TEST_PROMPT = "A small red lighthouse on a rocky coast under a clear sky";

/** The longest a test may run: the model's own time limit, as for a job. */
const timeoutOf = (model: CatalogModel) => model.timeoutSeconds * 1000;

export type StartModelCheck =
  | { started: number; checkIds: string[] }
  /** No provider of the model is configured, or a test of it is still running. */
  | { refused: "noProvider" | "running" };

/**
 * Starts a health test of each configured provider of a model: one row per provider and its job, in one transaction
 * with the audit entry. A test of the model still running (within its time limit) refuses another, so a double
 * click does not pay the provider twice.
 */
export async function startModelCheck({
  db,
  boss,
  models,
  modelId,
  actor,
}: {
  db: Db;
  /** The queue that runs the tests; without one (the command line) the caller runs them (`runModelCheck`). */
  boss?: PgBoss;
  models: ModelRegistry;
  modelId: string;
  actor: AdminActor;
}): Promise<StartModelCheck> {
  const model = models.anyMedia(modelId);
  if (!model) throw new Error(`unknown model ${modelId}`);
  // One test per connection the model runs on now.
  const bindings = model.bindings.map((binding, index) => ({ binding, index }));
  if (bindings.length === 0) return { refused: "noProvider" };
  if (boss) await warmQueue(boss, MODEL_CHECK_QUEUE);
  const since = new Date(Date.now() - timeoutOf(model));
  return db.transaction(async (tx) => {
    // One test of a model at a time: the lock makes two concurrent requests take turns at this check.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`model_check:${modelId}`}))`);
    const [running] = await tx
      .select({ id: modelCheck.id })
      .from(modelCheck)
      .where(
        and(eq(modelCheck.modelId, modelId), eq(modelCheck.status, "running"), sql`${modelCheck.createdAt} > ${since}`),
      )
      .limit(1);
    if (running) return { refused: "running" } as const;
    const checkIds: string[] = [];
    for (const { binding, index } of bindings) {
      const [row] = await tx
        .insert(modelCheck)
        .values({
          modelId,
          binding: index,
          provider: binding.provider,
          providerModel: binding.model,
          workflowSha256: binding.workflow?.sha256 ?? null,
          actorId: actor.id,
          actor: actor.label,
        })
        .returning({ id: modelCheck.id });
      checkIds.push(row!.id);
      if (boss)
        await sendInTx(boss, tx, MODEL_CHECK_QUEUE, { checkId: row!.id } satisfies ModelCheckJob, {
          id: row!.id,
          retryLimit: 0,
          expireInSeconds: Math.ceil(timeoutOf(model) / 1000) + 120,
        });
    }
    await recordAdminAction(tx, actor, {
      action: "models.check",
      targetType: "model",
      targetId: modelId,
      targetLabel: model.name,
      after: { providers: bindings.map(({ binding }) => binding.provider) },
    });
    return { started: bindings.length, checkIds };
  });
}

/**
 * Runs one test: a real generation through the adapter a job would use, within the model's time limit. The outputs
 * must be media (bytes, a media type) and are then dropped. The outcome is written once, on the running row only.
 */
export async function runModelCheck(
  { db, models, logger }: { db: Db; models: ModelRegistry; logger: Logger },
  { checkId, signal }: { checkId: string; signal?: AbortSignal },
): Promise<void> {
  const [check] = await db.select().from(modelCheck).where(eq(modelCheck.id, checkId));
  if (!check || check.status !== "running") return;
  const finish = (values: { status: ModelCheckStatus; errorCode?: string; detail?: string; durationMs?: number }) =>
    db
      .update(modelCheck)
      .set({ ...values, finishedAt: new Date() })
      .where(and(eq(modelCheck.id, checkId), eq(modelCheck.status, "running")));
  // The test was asked for in another process: this one reads the catalog as it was then.
  await models.refresh();
  const model = models.anyMedia(check.modelId);
  const binding = model?.bindings[check.binding];
  if (!model || !binding || binding.provider !== check.provider) {
    await finish({ status: "failed", errorCode: "invalid_request", detail: "the provider is no longer configured" });
    return;
  }
  const deadline = AbortSignal.timeout(timeoutOf(model));
  // The model's own settings at their defaults, as a request that leaves them alone sends them.
  const defaults = checkParameters(model.parameters, {});
  const options = defaults.ok ? defaults.values : {};
  // The model's own tool: from the prompt alone when it has that one, otherwise its first (an edit gets a picture
  // and, for the mask tools, a mask of its middle).
  const plain = model.kind === "video" ? "text-to-video" : "text-to-image";
  const tool = model.tools.length === 0 || model.tools.includes(plain) ? plain : model.tools[0]!;
  const spec = toolSpec(tool);
  const started = performance.now();
  try {
    const outputs = await runBinding({
      connections: models,
      model,
      binding,
      tool,
      ...(spec.image && { inputImage: await testPicture() }),
      ...((spec.mask || spec.extend) && { mask: await testMask() }),
      prompt: TEST_PROMPT,
      params:
        model.kind === "video"
          ? { aspectRatio: "16:9", count: 1, duration: 5, style: "cinematic", options }
          : { aspectRatio: "1:1", count: 1, options, ...(spec.scale && { scale: 2 }) },
      abortSignal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    const durationMs = Math.round(performance.now() - started);
    const media = outputs.filter((o) => o.bytes.length > 0 && o.mediaType.startsWith(`${model.kind}/`));
    if (media.length === 0) {
      await finish({ status: "failed", errorCode: "parse_error", detail: "the answer held no media", durationMs });
      return;
    }
    await finish({ status: "succeeded", durationMs });
  } catch (error) {
    const failure = classifyProviderError(error, { timedOut: deadline.aborted, canceled: signal?.aborted });
    logger.warn({ checkId, model: model.id, provider: binding.provider, code: failure.code }, "model check failed");
    await finish({
      status: "failed",
      errorCode: failure.code,
      detail: failure.detail,
      durationMs: Math.round(performance.now() - started),
    });
  }
}

/** A workflow of a model that has not passed a test as it is now: its version, and how its latest test went. */
export interface UntestedWorkflow {
  binding: number;
  version: number;
  /** `never`: no test of this version; `running`: one is under way; `failed`: the latest failed. */
  state: "never" | "running" | "failed";
}

/**
 * The workflows a model runs that have not passed a test in their current version: a workflow model is offered
 * only once a real run of what it runs now went through (a new version is tested again). Models without a workflow
 * have none.
 */
export async function untestedWorkflows({
  db,
  model,
}: {
  db: Db;
  model: { id: string; kind: string; bindings?: readonly { workflow?: { sha256: string; version: number } }[] };
}): Promise<UntestedWorkflow[]> {
  const workflows = (model.bindings ?? []).flatMap((b, binding) => (b.workflow ? [{ binding, ...b.workflow }] : []));
  if (workflows.length === 0) return [];
  const rows = await db
    .selectDistinctOn([modelCheck.binding, modelCheck.workflowSha256], {
      binding: modelCheck.binding,
      sha256: modelCheck.workflowSha256,
      status: modelCheck.status,
    })
    .from(modelCheck)
    .where(eq(modelCheck.modelId, model.id))
    .orderBy(modelCheck.binding, modelCheck.workflowSha256, desc(modelCheck.createdAt));
  const untested: UntestedWorkflow[] = [];
  for (const w of workflows) {
    const latest = rows.find((r) => r.binding === w.binding && r.sha256 === w.sha256);
    if (latest?.status === "succeeded") continue;
    untested.push({
      binding: w.binding,
      version: w.version,
      state: !latest ? "never" : latest.status === "running" ? "running" : "failed",
    });
  }
  return untested;
}

/** A test's input picture: a 512×512 sky over a sea, as PNG. */
async function testPicture() {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512"><rect width="512" height="300" fill="#8ec5ff"/><rect y="300" width="512" height="212" fill="#1f5f8b"/></svg>`;
  return { bytes: new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer()), mediaType: "image/png" };
}

/** A test's mask: the picture's middle white (what changes), the rest black. */
async function testMask() {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512"><rect width="512" height="512" fill="#000"/><rect x="128" y="128" width="256" height="256" fill="#fff"/></svg>`;
  return { bytes: new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer()), mediaType: "image/png" };
}

export interface ModelCheckView {
  id: string;
  modelId: string;
  binding: number;
  provider: string;
  status: ModelCheckStatus;
  errorCode: string | null;
  detail: string | null;
  durationMs: number | null;
  actor: string;
  createdAt: Date;
}

/**
 * The latest test of each model's providers. One still running past the model's time limit (its worker went away)
 * is shown as timed out.
 */
export async function latestModelChecks({ db, models }: { db: Db; models: ModelRegistry }): Promise<ModelCheckView[]> {
  const rows = await db
    .selectDistinctOn([modelCheck.modelId, modelCheck.binding], {
      id: modelCheck.id,
      modelId: modelCheck.modelId,
      binding: modelCheck.binding,
      provider: modelCheck.provider,
      status: modelCheck.status,
      errorCode: modelCheck.errorCode,
      detail: modelCheck.detail,
      durationMs: modelCheck.durationMs,
      actor: modelCheck.actor,
      createdAt: modelCheck.createdAt,
    })
    .from(modelCheck)
    .orderBy(modelCheck.modelId, modelCheck.binding, desc(modelCheck.createdAt));
  const now = Date.now();
  return rows.map((row) => {
    const model = models.anyMedia(row.modelId);
    const limit = model ? timeoutOf(model) + 120_000 : 0;
    return row.status === "running" && now - row.createdAt.getTime() > limit
      ? { ...row, status: "failed" as const, errorCode: "timeout", detail: "no answer within the time limit" }
      : row;
  });
}
