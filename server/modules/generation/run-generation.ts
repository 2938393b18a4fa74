import { setTimeout as sleep } from "node:timers/promises";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { resolveSiteConfig } from "#config/site.ts";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import { asset, generation, generationAttempt } from "#server/db/schema/index.ts";
import type { Storage } from "#server/storage/storage.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { warmWebhookQueue } from "#server/modules/webhooks/queue-webhook.ts";
import type { ModelSnapshot } from "#config/models.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { costOf, type FailureCode } from "#common/generation.ts";
import { runBinding } from "#server/providers/index.ts";
import { classifyProviderError, type ProviderFailure } from "#server/providers/errors.ts";
import { GENERATION_QUEUE, HEARTBEAT_SECONDS, MAX_RUNS } from "./queue.ts";
import { admission } from "./admission.ts";
import { c2paSignerOf } from "#server/media/c2pa.ts";
import type { VisibleLabel } from "#server/media/label.ts";
import { currentPlan } from "#server/modules/billing/entitlements.ts";
import type { SettingsStore } from "#server/modules/settings/settings-store.ts";
import { removeFiles, storeOutputs, UnreadableOutput, type ProviderOutput } from "./store-outputs.ts";
import { recordDuration, typicalSeconds } from "./estimate.ts";
import { endGenerationInTx } from "./end-generation.ts";
import { extendCanvas, fitMask } from "./extend-canvas.ts";
import { toolSpec } from "#common/tools.ts";
import type { Origin } from "#server/providers/generate.ts";
import { checkOutputs, needsReview, type ImageClassifier } from "#server/modules/safety/check-outputs.ts";
import { defaultClassifier } from "#server/modules/safety/classify.ts";

export interface RunDeps {
  db: Db;
  boss: PgBoss;
  env: Env;
  storage: Storage;
  logger: Logger;
  models: ModelRegistry;
  /** The offline image classifier; tests pass their own. Loaded on first use when not given. */
  classify?: ImageClassifier;
  /** The console's settings: the visible label (none without them). */
  settings?: Pick<SettingsStore, "current">;
}

type Generation = typeof generation.$inferSelect;

/** How often a run writes its progress and proves it is still the current run. */
const TICK_MS = 1000;

/**
 * Runs one generation's job. Safe to run twice, even at once: the run claims the job by moving it to
 * `processing` with the next run number, and every later write (progress, outputs, the final status with its
 * credit settlement) is conditional on that run still being the current one. A run that lost its claim (the job
 * was canceled, or given to another run after a crash) stops and throws its files away.
 */
export async function runGeneration(
  deps: RunDeps,
  options: { generationId: string; signal?: AbortSignal },
): Promise<void> {
  const { db, logger } = deps;
  const wait = await admission(deps, options.generationId, options.signal);
  if (wait !== null) {
    // Its turn has not come: after a moment here, sent again to the back of the queue, where every account's next job
    // is before it. Sent ready rather than delayed: a delayed job's notice comes when it is sent, and idle workers
    // would sleep past the moment it becomes ready.
    await sleep(wait * 1000, undefined, { signal: options.signal }).catch(() => undefined);
    await deps.boss.send(
      GENERATION_QUEUE,
      { generationId: options.generationId },
      {
        retryLimit: MAX_RUNS - 1,
        retryDelay: 2,
        expireInSeconds: 3600,
        heartbeatSeconds: HEARTBEAT_SECONDS,
      },
    );
    return;
  }
  const [job] = await db
    .update(generation)
    .set({
      status: "processing",
      attempt: sql`${generation.attempt} + 1`,
      startedAt: sql`now()`,
      heartbeatAt: sql`now()`,
      progress: 0,
      updatedAt: sql`now()`,
    })
    .where(and(eq(generation.id, options.generationId), inArray(generation.status, ["queued", "processing"])))
    .returning();
  if (!job) return; // Canceled, deleted or already finished: nothing to do.
  await warmWebhookQueue(deps.boss);
  const log = logger.child({ generationId: job.id, run: job.attempt, model: job.modelId });
  if (job.attempt > MAX_RUNS) {
    await finish(deps, job, { failure: "interrupted", detail: `gave up after ${MAX_RUNS} runs` });
    return;
  }
  // The model as submitted; a job from before snapshots were kept runs on the model as offered now.
  const model = job.modelSnapshot
    ? { id: job.modelId, ...job.modelSnapshot }
    : (deps.models.findMedia(job.modelId) ?? (await deps.models.refresh(), deps.models.findMedia(job.modelId)));
  if (!model) {
    await finish(deps, job, { failure: kindFailure(job), detail: `model ${job.modelId} is no longer offered` });
    return;
  }

  const canceled = new AbortController();
  const timeout = AbortSignal.timeout(model.timeoutSeconds * 1000);
  const signal = AbortSignal.any([canceled.signal, timeout, ...(options.signal ? [options.signal] : [])]);
  let reported = 0;
  let fraction: number | null = null;
  // Paced by what this model's recent runs took, as the time left the studio shows is.
  const typical = await typicalSeconds({ db, model, videoSeconds: job.params.duration }).catch(
    () => model.expectedSeconds,
  );
  const started = Date.now();
  const ticker = setInterval(() => {
    // Real progress when the model reports it, otherwise an estimate that slows down as it nears the end.
    const elapsed = (Date.now() - started) / 1000;
    const estimate = 1 - Math.exp(-elapsed / Math.max(1, typical));
    const progress = Math.min(99, Math.floor((fraction ?? estimate * 0.95) * 100));
    void heartbeat(db, job, Math.max(reported, progress))
      .then((current) => {
        reported = Math.max(reported, progress);
        if (!current) canceled.abort(new Error("the job was canceled or taken over"));
      })
      .catch((error: Error) => log.warn({ err: error.message }, "progress not recorded"));
  }, TICK_MS);
  ticker.unref();

  let outputs: ProviderOutput[] | null = null;
  let failure: ProviderFailure | null = null;
  let binding = 0;
  let uploaded: boolean | undefined;
  try {
    let inputs: JobInputs;
    try {
      inputs = await loadInputs(deps, job);
      uploaded = inputs.uploaded === true;
    } catch (error) {
      if (!(error instanceof InputUnreadable)) throw error;
      if (error.transient && job.attempt < MAX_RUNS) {
        // A storage that failed to answer (S3 5xx, network) may answer the next run: the queue retries the job.
        log.warn({ storageKey: error.key, err: error.message }, "input image not read; the job will be retried");
        throw error;
      }
      log.error({ storageKey: error.key, err: error.message }, "input image unreadable: generation failed");
      await finish(deps, job, { failure: "input_unavailable", detail: error.message });
      return;
    }
    for (const [index, b] of model.bindings.entries()) {
      binding = index;
      const [attemptRow] = await db
        .insert(generationAttempt)
        .values({
          generationId: job.id,
          run: job.attempt,
          binding: index,
          provider: b.provider,
          providerModel: b.model,
        })
        .returning({ id: generationAttempt.id });
      try {
        outputs = await runBinding({
          connections: deps.models,
          model,
          binding: b,
          tool: job.tool,
          prompt: job.prompt,
          negativePrompt: job.negativePrompt ?? undefined,
          params: job.params,
          ...inputs,
          abortSignal: signal,
          onProgress: (f) => {
            fraction = Math.max(fraction ?? 0, Math.min(1, f));
          },
        });
        if (outputs.length === 0) throw new UnreadableOutput("the provider returned no output");
        await endAttempt(db, attemptRow!.id, { outcome: "succeeded" });
        failure = null;
        break;
      } catch (error) {
        failure =
          error instanceof UnreadableOutput
            ? { code: "parse_error", failover: true, detail: error.message }
            : classifyProviderError(error, { timedOut: timeout.aborted, canceled: canceled.signal.aborted });
        outputs = null;
        await endAttempt(db, attemptRow!.id, { outcome: "failed", errorCode: failure.code, detail: failure.detail });
        log.warn({ provider: b.provider, code: failure.code, detail: failure.detail }, "provider call failed");
        if (!failure.failover || signal.aborted) break;
      }
    }
  } finally {
    clearInterval(ticker);
  }

  if (options.signal?.aborted && !canceled.signal.aborted && !timeout.aborted) {
    // The queue took the job back (shutdown, lost claim): the next run starts it again.
    throw new Error("the run was stopped by the queue; it will be retried");
  }
  if (canceled.signal.aborted && !timeout.aborted) {
    log.info("run stopped: the job was canceled or taken over");
    return;
  }
  if (!outputs) {
    const code: FailureCode =
      failure?.code === "timeout" || timeout.aborted
        ? "timeout"
        : failure?.code === "content_rejected"
          ? "content_rejected"
          : failure?.code === "invalid_request"
            ? "invalid_request"
            : failure?.code === "parse_error"
              ? "parse_error"
              : failure?.code === "canceled"
                ? "interrupted"
                : kindFailure(job);
    await finish(deps, job, { failure: code, detail: failure?.detail ?? "no output" });
    return;
  }

  let stored;
  try {
    stored = await storeOutputs(deps.storage, {
      userId: job.userId,
      generationId: job.id,
      kind: job.kind,
      outputs,
      provenance: {
        sourceType: uploaded ? "compositeWithTrainedAlgorithmicMedia" : "trainedAlgorithmicMedia",
        site: resolveSiteConfig(deps.env).name,
        model: job.modelSnapshot?.name ?? job.modelId,
      },
      c2pa: c2paSignerOf(deps.env),
      onSignatureError: (error) => log.error({ err: error.message }, "C2PA signature not made; output kept with XMP"),
      label: await labelFor(deps, job),
    });
  } catch (error) {
    const parse = error instanceof UnreadableOutput;
    log.error({ err: (error as Error).message }, parse ? "provider output unreadable" : "outputs not stored");
    await finish(deps, job, { failure: parse ? "parse_error" : kindFailure(job), detail: (error as Error).message });
    return;
  }
  // Checked before anyone but the owner can see them; kept private for review when a check flags them.
  const level = job.safety?.level ?? "standard";
  const outputFindings = await checkOutputs(
    {
      models: deps.models,
      classify: deps.classify ?? (deps.env.IMAGE_CLASSIFIER === "on" ? defaultClassifier : undefined),
    },
    { level, outputs },
  );
  const flagged = needsReview(level, outputFindings);
  if (flagged) log.info({ findings: outputFindings }, "outputs flagged for review");
  const provider = model.bindings[binding]!;
  const durationMs = Date.now() - started;
  const done = await db.transaction(async (tx) => {
    const ended = await endGenerationInTx(tx, deps, {
      where: current(job),
      ending: {
        status: "succeeded",
        charge: chargeFor(model, job, stored.length),
        provider: provider.provider,
        providerModel: provider.model,
        durationMs,
      },
    });
    if (!ended) return false;
    await tx
      .update(generation)
      .set({
        safety: {
          level,
          prompt: job.safety?.prompt ?? [],
          output: outputFindings,
          ...(flagged && job.visibility === "public" ? { wantedPublic: true } : {}),
        },
        ...(flagged ? { review: "flagged" as const, visibility: "private" as const } : {}),
      })
      .where(eq(generation.id, job.id));
    await tx.insert(asset).values(
      stored.map((s, position) => ({
        ...s,
        userId: job.userId,
        generationId: job.id,
        role: "output" as const,
        position,
      })),
    );
    return true;
  });
  if (!done) {
    await removeFiles(
      deps.storage,
      stored.flatMap((s) => [s.storageKey, s.thumbKey]),
    );
    log.info("finished after the job was canceled or taken over: outputs discarded");
    return;
  }
  recordDuration(job.modelId, durationMs);
  log.info({ durationMs, outputs: stored.length, provider: provider.provider }, "generation succeeded");
}

/**
 * Images are charged per image actually delivered (a provider may return fewer): the price of the images delivered
 * by the same formula, never more than was held; anything else as held.
 */
function chargeFor(model: Pick<ModelSnapshot, "price" | "parameters">, job: Generation, delivered: number): number {
  if (model.price.unit !== "image" || delivered >= job.params.count) return job.creditsHeld;
  return Math.min(job.creditsHeld, costOf(model, { ...job.params, tool: job.tool, count: Math.max(0, delivered) }));
}

const kindFailure = (job: Generation): FailureCode => (job.kind === "video" ? "video_failed" : "image_failed");

/** The run's claim on its job: still processing, under this run's number. */
const current = (job: Generation) =>
  and(eq(generation.id, job.id), eq(generation.status, "processing"), eq(generation.attempt, job.attempt))!;

async function heartbeat(db: Db, job: Generation, progress: number): Promise<boolean> {
  const rows = await db
    .update(generation)
    .set({
      progress: sql`greatest(${generation.progress}, ${progress})`,
      heartbeatAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(current(job))
    .returning({ id: generation.id });
  return rows.length > 0;
}

async function endAttempt(
  db: Db,
  id: number,
  r: { outcome: "succeeded" | "failed"; errorCode?: string; detail?: string },
): Promise<void> {
  await db
    .update(generationAttempt)
    .set({
      outcome: r.outcome,
      errorCode: r.errorCode ?? null,
      detail: r.detail?.slice(0, 500) ?? null,
      finishedAt: sql`now()`,
    })
    .where(eq(generationAttempt.id, id));
}

/**
 * An input the job was given that cannot be read: gone (its asset deleted, or no object under its key: a storage
 * other than the one it was saved to), or `transient` when the storage failed to answer.
 */
class InputUnreadable extends Error {
  readonly key: string | null;
  readonly transient: boolean;
  constructor(message: string, key: string | null, transient = false) {
    super(message);
    this.key = key;
    this.transient = transient;
  }
}

interface InputImage {
  bytes: Uint8Array;
  mediaType: string;
}

interface JobInputs {
  inputImage?: InputImage;
  /** The input image is one the user uploaded (not a result): what the job makes is a composite with it. */
  uploaded?: boolean;
  mask?: InputImage;
  endImage?: InputImage;
  origin?: Origin;
}

/**
 * The images the job's tool reads: its input image (never run without one: when it cannot be read,
 * InputUnreadable), the mask (scaled to the input's size; for an extension, made from its padding with the larger
 * canvas), the end frame, and, when the input is an offline demo result, what drew it.
 */
async function loadInputs(deps: RunDeps, job: Generation): Promise<JobInputs> {
  const spec = toolSpec(job.tool);
  if (!spec.image) return {};
  // The asset's row goes when its owner deletes it (the column is then set null).
  const { role, ...loaded } = await loadAsset(deps, job.inputAssetId, "input image");
  let inputImage: InputImage = loaded;
  const out: JobInputs = { uploaded: role === "input" };
  if (spec.extend && job.params.extend) {
    const extended = await extendCanvas(inputImage, job.params.extend);
    inputImage = extended.image;
    out.mask = extended.mask;
  }
  if (spec.mask) out.mask = await fitMask(await loadAsset(deps, job.maskAssetId, "mask"), inputImage);
  if (spec.endImage && job.endAssetId) out.endImage = await loadAsset(deps, job.endAssetId, "end image");
  out.inputImage = inputImage;
  if (job.parentId && job.inputAssetId) out.origin = await demoOrigin(deps.db, job.parentId, job.inputAssetId);
  return out;
}

/** What drew an input image that is a result: its provider, prompt, seed and place among the outputs. */
async function demoOrigin(db: Db, parentId: string, assetId: string): Promise<JobInputs["origin"]> {
  const [row] = await db
    .select({
      prompt: generation.prompt,
      negativePrompt: generation.negativePrompt,
      params: generation.params,
      provider: generation.provider,
      position: asset.position,
    })
    .from(asset)
    .innerJoin(generation, eq(generation.id, asset.generationId))
    .where(and(eq(asset.id, assetId), eq(generation.id, parentId)));
  if (!row?.provider) return undefined;
  return {
    provider: row.provider,
    prompt: row.prompt,
    ...(row.negativePrompt ? { negativePrompt: row.negativePrompt } : {}),
    ...(row.params.seed !== undefined ? { seed: row.params.seed } : {}),
    position: row.position,
  };
}

async function loadAsset(
  deps: RunDeps,
  id: string | null,
  what: string,
): Promise<InputImage & { role: "output" | "input" }> {
  if (!id) throw new InputUnreadable(`the ${what} was deleted`, null);
  const [input] = await deps.db
    .select({ key: asset.storageKey, mimeType: asset.mimeType, role: asset.role })
    .from(asset)
    .where(eq(asset.id, id));
  if (!input) throw new InputUnreadable(`${what} asset ${id} was deleted`, null);
  try {
    const file = await deps.storage.get(input.key);
    if (!file) throw new InputUnreadable(`storage holds no object ${input.key}`, input.key);
    return {
      bytes: new Uint8Array(await new Response(file.body).arrayBuffer()),
      mediaType: input.mimeType,
      role: input.role,
    };
  } catch (error) {
    if (error instanceof InputUnreadable) throw error;
    throw new InputUnreadable(`storage failed reading ${input.key}: ${(error as Error).message}`, input.key, true);
  }
}

/** Ends a run that produced nothing: failed with its reason, and the hold released, in one transaction. */
async function finish(deps: RunDeps, job: Generation, r: { failure: FailureCode; detail: string }): Promise<void> {
  const ended = await deps.db.transaction((tx) =>
    endGenerationInTx(tx, deps, { where: current(job), ending: { status: "failed", failure: r.failure } }),
  );
  if (ended) deps.logger.warn({ generationId: job.id, code: r.failure, detail: r.detail }, "generation failed");
}

/**
 * The visible label a job's images get: the console's, when it is on for every output, or for models that ask for it
 * and the job's model (as defined now) does; none when the owner's plan lifts it (the machine-readable mark stays).
 */
async function labelFor(deps: RunDeps, job: Generation): Promise<VisibleLabel | null> {
  const label = deps.settings?.current().label;
  if (!label?.enabled || job.kind !== "image") return null;
  if (label.scope === "models") {
    const definition = deps.models.entry(job.modelId)?.definition;
    if (definition?.kind !== "image" || !definition.label) return null;
  }
  if (job.userId && (await currentPlan(deps.db, job.userId)).unlocks.noLabel) return null;
  return { text: label.text, position: label.position };
}
