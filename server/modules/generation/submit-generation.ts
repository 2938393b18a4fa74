import { createHash, randomUUID } from "node:crypto";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { apiKey, asset, creditBalance, generation, user } from "#server/db/schema/index.ts";
import { checkPrompt, safetyLevelOf, type RequestSource } from "#server/modules/safety/check-prompt.ts";
import type { Locale } from "#common/locales.ts";
import { promptLanguage } from "#server/modules/explore/prompt-language.ts";
import { shownPublicly } from "#server/modules/explore/shown-publicly.ts";
import type { SafetyLevel } from "#common/safety.ts";
import { holdInTx, type Tx } from "#server/modules/credits/ledger.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import { AppError, requestError } from "#server/errors.ts";
import { DEFAULT_SAFETY, type SettingsStore } from "#server/modules/settings/settings-store.ts";
import type { Storage } from "#server/storage/storage.ts";
import { costOf, type CatalogModel, type ModelSnapshot } from "#config/models.ts";
import {
  currentPlan,
  requireApiAllowed,
  requireModelAllowed,
  resultsMustBePublic,
} from "#server/modules/billing/entitlements.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { checkParameters } from "#common/model-parameters.ts";
import {
  nearestRatio,
  paddingTo,
  submitSchema,
  type GenerationParams,
  type SubmitRequest,
} from "#common/generation.ts";
import { EXTEND_MAX_CANVAS, UPSCALE_FACTORS, kindOfTool, takes, toolSpec } from "#common/tools.ts";
import { enqueueGenerationInTx, warmGenerationQueue } from "./queue.ts";
import { fetchImageUrl, imageUrlOptions } from "./fetch-image-url.ts";
import { saveInputImage } from "./save-input-image.ts";
import { checkWebhookUrl } from "#server/modules/webhooks/webhook-url.ts";
import { requestTopUp } from "#server/modules/billing/auto-topup.ts";

export interface SubmitDeps {
  db: Db;
  boss: PgBoss;
  env: Env;
  storage: Storage;
  /** The console's settings: in maintenance, no generation starts. */
  settings?: Pick<SettingsStore, "current">;
  /** The offered models. */
  models: ModelRegistry;
}

export interface SubmitOptions {
  /** Who asks; administrators are also offered the models visible to them only. */
  user: { id: string; role?: string | null };
  /** The request as received; parsed and checked here. */
  input: unknown;
  source?: "web" | "api";
  /** The API key that asked for it (its owner's credit history names it). */
  apiKeyId?: string;
  /** The client's key: the same key with the same request returns the first job. */
  idempotencyKey?: string;
  /** Where to POST the generation when it ends (public API). */
  webhookUrl?: string;
  /** Through what it came, as a refused prompt is recorded (the studios, either API, the chat); `source` by default. */
  channel?: RequestSource;
  /** The language the request was made in: the block list of that language applies. */
  locale?: Locale;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Refuses a job beyond what the plan runs at once, counted in the submission's transaction under the account's
 * balance row lock (the hold took it; a free job takes it here), so two submissions at once cannot both pass.
 */
async function requireRoomForJob(tx: Tx, userId: string, atOnce: number, locked: boolean) {
  if (!locked)
    await tx
      .select({ userId: creditBalance.userId })
      .from(creditBalance)
      .where(eq(creditBalance.userId, userId))
      .for("update");
  const [open] = await tx
    .select({ n: count() })
    .from(generation)
    .where(and(eq(generation.userId, userId), inArray(generation.status, ["queued", "processing"])));
  if ((open?.n ?? 0) >= atOnce)
    throw new AppError("too_many_jobs", `the plan runs ${atOnce} jobs at once`, { values: { limit: atOnce } });
}

/** Whether the account chose, in its public profile, to have its new results start public. */
async function publishesByDefault(db: Db, userId: string): Promise<boolean> {
  const [row] = await db.select({ on: user.publishByDefault }).from(user).where(eq(user.id, userId));
  return row?.on ?? false;
}

async function keySafetyLevel(db: Db, apiKeyId: string): Promise<SafetyLevel | null> {
  const [row] = await db.select({ level: apiKey.safetyLevel }).from(apiKey).where(eq(apiKey.id, apiKeyId));
  return row?.level ?? null;
}

/**
 * The one way a generation starts, for the pages and the public API: checks the request against the model,
 * holds its cost, and creates the generation with its queued job, all in one transaction, then returns at once.
 */
export async function submitGeneration(
  deps: SubmitDeps,
  options: SubmitOptions,
): Promise<{ id: string; repeated: boolean }> {
  if (deps.settings?.current().maintenance.enabled) throw new AppError("maintenance", "new generations are paused");
  const { request, model, params, cost } = checkGeneration(deps.models, options.user, options.input);
  // What the account's plan allows: the API, a model some plans reserve to their subscribers, how many jobs at once
  // and its place in the queue; checked before anything is held or saved.
  const mine = await currentPlan(deps.db, options.user.id);
  const [mustBePublic, publishByDefault] = await Promise.all([
    resultsMustBePublic(deps.db, deps.settings?.current(), mine, options.user),
    publishesByDefault(deps.db, options.user.id),
  ]);
  if (options.source === "api") await requireApiAllowed(deps.db, options.user, mine, options.locale);
  await requireModelAllowed(deps.db, options.user, model, options.locale, mine);

  const key = options.idempotencyKey;
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw new AppError("idempotency_key_invalid", "the idempotency key must be 1 to 255 visible ASCII characters");
  }
  const webhookUrl = options.webhookUrl === undefined ? null : checkWebhookUrl(options.webhookUrl, deps.env);
  const requestHash = createHash("sha256")
    .update(JSON.stringify(webhookUrl ? { ...request, webhookUrl } : request))
    .digest("hex");
  if (key) {
    const earlier = await byKey(deps.db, options.user.id, key, requestHash);
    if (earlier) return earlier;
  }

  // Checked before anything is held, saved or queued: a refused prompt costs nothing.
  // A caller without the console's settings gets the checks an installation starts with.
  const settings = deps.settings?.current() ?? { safety: DEFAULT_SAFETY };
  const keyLevel = options.apiKeyId ? await keySafetyLevel(deps.db, options.apiKeyId) : null;
  const level = safetyLevelOf({ settings, model, keyLevel });
  const promptFindings = await checkPrompt(
    { db: deps.db, models: deps.models, settings },
    {
      userId: options.user.id,
      source: options.channel ?? options.source ?? "web",
      modelId: model.id,
      prompt: request.prompt,
      level,
      locale: options.locale,
    },
  );

  const inputs = await inputsFor(deps, options.user.id, request, params);
  const id = randomUUID();
  await warmGenerationQueue(deps.boss);
  try {
    await deps.db.transaction(async (tx) => {
      // A model an operator made free holds nothing.
      const { holdId } =
        cost > 0
          ? await holdInTx(tx, {
              userId: options.user.id,
              amount: cost,
              reference: `job:${id}`,
              idempotencyKey: `hold:job:${id}`,
            })
          : { holdId: null };
      const atOnce = mine.unlocks.concurrentJobs;
      if (atOnce !== null) await requireRoomForJob(tx, options.user.id, atOnce, cost > 0);
      // A remix counts on its source while the source is shown publicly; otherwise it is simply not linked.
      const [source] = request.remixOf
        ? await tx
            .update(generation)
            .set({ remixCount: sql`${generation.remixCount} + 1` })
            .where(and(eq(generation.id, request.remixOf), shownPublicly))
            .returning({ id: generation.id })
        : [];
      await tx.insert(generation).values({
        id,
        userId: options.user.id,
        kind: model.kind,
        tool: request.tool,
        modelId: model.id,
        prompt: request.prompt,
        promptLang: promptLanguage(request.prompt, options.locale),
        negativePrompt: "negativePrompt" in request && request.negativePrompt ? request.negativePrompt : null,
        params: inputs.params,
        modelSnapshot: snapshotOf(model),
        inputAssetId: inputs.input?.id ?? null,
        maskAssetId: inputs.mask?.id ?? null,
        endAssetId: inputs.end?.id ?? null,
        parentId: inputs.params.parentId ?? null,
        remixOfId: source?.id ?? null,
        creditsHeld: cost,
        holdId,
        source: options.source ?? "web",
        apiKeyId: options.apiKeyId ?? null,
        idempotencyKey: key ?? null,
        requestHash,
        webhookUrl,
        timeoutSeconds: model.timeoutSeconds,
        safety: { level, prompt: promptFindings },
        // Public from the start when the operator made results public for plans without private results, or when
        // the account chose to publish its new results (either way through the checks before publication).
        ...(mustBePublic || publishByDefault ? { visibility: "public" as const } : {}),
      });
      await enqueueGenerationInTx(
        deps.boss,
        tx,
        { generationId: id },
        { timeoutSeconds: model.timeoutSeconds, priority: mine.unlocks.priority },
      );
    });
  } catch (error) {
    // Two requests with one key at once: the loser's transaction (hold included) rolled back whole.
    if (key && isUniqueViolation(error)) {
      const winner = await byKey(deps.db, options.user.id, key, requestHash);
      if (winner) return winner;
    }
    throw error;
  }
  // What was held may have taken the account below its automatic top-up's threshold. The job is queued after the
  // commit and the submission never fails for it: the minute's look queues what a failure here missed.
  if (cost > 0) await requestTopUp({ db: deps.db, boss: deps.boss, userId: options.user.id }).catch(() => false);
  return { id, repeated: false };
}

/**
 * A request parsed and checked against its model, and what it costs: what submitting holds and what a quote (the
 * public API's, the chat's confirmation) says, by the same code. Reads nothing but the catalog and writes nothing.
 */
export function checkGeneration(
  models: Pick<ModelRegistry, "findMedia">,
  user: { role?: string | null },
  input: unknown,
): { request: SubmitRequest; model: CatalogModel; params: GenerationParams; cost: number } {
  const parsed = submitSchema.safeParse(input);
  if (!parsed.success) throw requestError(parsed.error.issues[0]);
  const request = parsed.data;
  const model = models.findMedia(request.model, { admin: user.role === "admin" });
  if (!model || model.kind !== kindOfTool(request.tool)) throw new AppError("unknown_model", request.model);
  const params = checkOptions(model, request);
  return { request, model, params, cost: costOf(model, { ...params, tool: request.tool }) };
}

/** What a job keeps of its model: an edit of the model after this never changes the job or its charge. */
function snapshotOf(m: CatalogModel): ModelSnapshot {
  return {
    name: m.name,
    kind: m.kind,
    tools: m.tools,
    bindings: m.bindings,
    price: m.price,
    options: m.options,
    ...(m.parameters ? { parameters: m.parameters } : {}),
    expectedSeconds: m.expectedSeconds,
    timeoutSeconds: m.timeoutSeconds,
  };
}

async function byKey(db: Db, userId: string, key: string, requestHash: string) {
  const [row] = await db
    .select({ id: generation.id, requestHash: generation.requestHash })
    .from(generation)
    .where(and(eq(generation.userId, userId), eq(generation.idempotencyKey, key)));
  if (!row) return null;
  if (row.requestHash !== requestHash) {
    throw new AppError("idempotency_mismatch", "this idempotency key was used with a different request");
  }
  return { id: row.id, repeated: true };
}

/** The model's own limits, for the parameters its tool takes: ratios, counts, durations, styles, scales. */
function checkOptions(model: CatalogModel, r: SubmitRequest): GenerationParams {
  const { options } = model;
  const tool = r.tool;
  /** A setting this model does not take: the detail for developers, the catalogue message for people. */
  const refuse = (detail: string, key: string, values: Record<string, string | number> = {}) =>
    new AppError("invalid_options", detail, {
      key: `generation.errors.${key}`,
      values: { model: model.name, ...values },
    });
  if (!model.tools.includes(tool)) throw refuse(`${model.id} does not do ${tool}`, "toolUnsupported");
  if (r.aspectRatio !== undefined && !options.aspectRatios.includes(r.aspectRatio)) {
    const allowed = options.aspectRatios.join(", ");
    throw refuse(`aspectRatio: ${model.id} takes ${allowed}`, "aspectRatioUnsupported", { allowed });
  }
  if (r.seed !== undefined && !options.seed) throw refuse(`seed: ${model.id} takes none`, "seedUnsupported");
  if (r.resolution !== undefined && !options.resolutions?.includes(r.resolution)) {
    const allowed = options.resolutions?.join(", ") ?? "";
    if (!allowed) throw refuse(`resolution: ${model.id} takes none`, "resolutionUnsupported");
    throw refuse(`resolution: ${model.id} takes ${allowed}`, "resolutionNotOffered", { allowed });
  }
  const advanced = checkParameters(model.parameters, r.options);
  if (!advanced.ok) {
    throw refuse(advanced.detail, advanced.reason === "unknown" ? "settingUnknown" : "settingInvalid", {
      setting: model.parameters?.find((f) => f.name === advanced.field)?.label ?? advanced.field,
    });
  }
  if (r.count !== undefined && r.count > options.maxCount) {
    throw refuse(`count: at most ${options.maxCount}`, "countTooHigh", { max: options.maxCount });
  }
  if (r.negativePrompt && !options.negativePrompt) {
    throw refuse(`negativePrompt: ${model.id} takes none`, "negativePromptUnsupported");
  }
  if (r.duration !== undefined && options.durations && !options.durations.includes(r.duration)) {
    const allowed = options.durations.join(", ");
    throw refuse(`duration: ${model.id} takes ${allowed}`, "durationUnsupported", { allowed });
  }
  if (r.style !== undefined && options.styles && !options.styles.includes(r.style)) {
    const allowed = options.styles.join(", ");
    throw refuse(`style: ${model.id} takes ${allowed}`, "styleUnsupported", { allowed });
  }
  if (r.audio && !options.audio) throw refuse(`audio: ${model.id} makes no sound`, "audioUnsupported");
  const scales = options.scales ?? UPSCALE_FACTORS;
  if (r.scale !== undefined && !scales.includes(r.scale)) {
    const allowed = scales.join(", ");
    throw refuse(`scale: ${model.id} takes ${allowed}`, "scaleUnsupported", { allowed });
  }
  if (toolSpec(tool).extend && !r.extendTo && !(r.extend && Object.values(r.extend).some((n) => n > 0))) {
    throw new AppError("invalid_options", "extend: a new ratio (extendTo) or pixels on at least one side", {
      key: "generation.errors.extendRequired",
    });
  }
  return {
    // Tools whose output takes its input's shape record the input's nearest ratio once it is read.
    aspectRatio: r.aspectRatio ?? (kindOfTool(tool) === "video" ? "16:9" : "1:1"),
    count: r.count ?? 1,
    seed: r.seed,
    // Left out, a model's first resolution: the one the studio shows first, priced and sent as asked for, so the
    // provider never makes its own (maybe dearer) default at the price of the cheapest.
    ...(takes(tool, "resolution") && (r.resolution !== undefined || options.resolutions)
      ? { resolution: r.resolution ?? options.resolutions![0]! }
      : {}),
    ...(Object.keys(advanced.values).length > 0 ? { options: advanced.values } : {}),
    ...(r.style !== undefined ? { style: r.style } : {}),
    ...(r.duration !== undefined ? { duration: r.duration } : {}),
    ...(takes(tool, "audio") && options.audio ? { audio: r.audio ?? false } : {}),
    ...(r.strength !== undefined && options.strength ? { strength: r.strength } : {}),
    ...(r.scale !== undefined ? { scale: r.scale } : {}),
    ...(r.extend ? { extend: r.extend } : {}),
  };
}

/** An image a request gave: its asset, its size, and the generation it came out of (when it is a result). */
interface GivenImage {
  id: string;
  width: number;
  height: number;
  generationId: string | null;
}

/**
 * Reads the images a request gives (input, mask, end frame: each one of the user's own images, or fetched from a
 * URL now) and completes the parameters that depend on them: the shape of tools that follow their input, the
 * canvas an extension makes, and the generation it was made from. Nothing is written but the fetched images.
 */
async function inputsFor(deps: SubmitDeps, userId: string, r: SubmitRequest, params: GenerationParams) {
  const spec = toolSpec(r.tool);
  const image = (assetId: string | undefined, url: string | undefined, what: "input" | "mask" | "end") =>
    assetId || url ? imageFor(deps, userId, { assetId, url }, what) : Promise.resolve(null);
  const input = spec.image ? await image(r.inputAssetId, r.inputUrl, "input") : null;
  if (spec.image && !input) {
    throw new AppError("input_image_required", `${r.tool} needs an input image`);
  }
  const mask = spec.mask ? await image(r.maskAssetId, r.maskUrl, "mask") : null;
  if (spec.mask && !mask) throw new AppError("mask_required", `${r.tool} needs a mask`);
  const end = spec.endImage ? await image(r.endAssetId, r.endUrl, "end") : null;
  const out: GenerationParams = { ...params };
  if (input) {
    if (!takes(r.tool, "aspectRatio")) out.aspectRatio = nearestRatio(input.width, input.height);
    if (input.generationId) out.parentId = input.generationId;
    if (mask && Math.abs(mask.width / mask.height - input.width / input.height) > 0.02) {
      throw new AppError("invalid_options", "mask: the mask must have the input image's shape", {
        key: "generation.errors.maskShape",
      });
    }
    if (spec.extend) {
      const padding = r.extendTo ? paddingTo(input, r.extendTo) : r.extend!;
      const width = input.width + padding.left + padding.right;
      const height = input.height + padding.top + padding.bottom;
      if (width === input.width && height === input.height) {
        throw new AppError("invalid_options", "extend: the image already has this ratio", {
          key: "generation.errors.extendRequired",
        });
      }
      if (Math.max(width, height) > EXTEND_MAX_CANVAS) {
        throw new AppError("invalid_options", `extend: at most ${EXTEND_MAX_CANVAS} pixels a side`, {
          key: "generation.errors.canvasTooLarge",
          values: { max: EXTEND_MAX_CANVAS },
        });
      }
      out.extend = padding;
      out.aspectRatio = nearestRatio(width, height);
    }
    if (params.scale && Math.max(input.width, input.height) * params.scale > UPSCALE_MAX_SIDE) {
      throw new AppError("invalid_options", `scale: the result would be over ${UPSCALE_MAX_SIDE} pixels a side`, {
        key: "generation.errors.upscaleTooLarge",
        values: { max: UPSCALE_MAX_SIDE },
      });
    }
  }
  if (r.variationOf) {
    const [source] = await deps.db
      .select({ id: generation.id })
      .from(generation)
      .where(and(eq(generation.id, r.variationOf), eq(generation.userId, userId)));
    if (!source) throw new AppError("not_found", "variationOf: no such generation of yours");
    out.parentId = source.id;
  }
  return { params: out, input, mask, end };
}

/** The longest side an upscaled image may have. */
const UPSCALE_MAX_SIDE = 8192;

/** One image a request gives: one of the user's own images (uploaded or generated), or one fetched from a URL now. */
async function imageFor(
  deps: SubmitDeps,
  userId: string,
  given: { assetId?: string; url?: string },
  what: "input" | "mask" | "end",
): Promise<GivenImage> {
  if (given.assetId) {
    const [row] = await deps.db
      .select({
        id: asset.id,
        width: asset.width,
        height: asset.height,
        generationId: asset.generationId,
        role: asset.role,
      })
      .from(asset)
      .where(
        // An upload, or one of the user's own generated images ("pick from my gallery").
        and(eq(asset.id, given.assetId), eq(asset.userId, userId), eq(asset.kind, "image")),
      );
    if (!row) {
      throw what === "mask"
        ? new AppError("mask_required", "no such uploaded mask")
        : new AppError("input_image_required", "no such uploaded image");
    }
    return {
      id: row.id,
      width: row.width ?? 0,
      height: row.height ?? 0,
      generationId: row.role === "output" ? row.generationId : null,
    };
  }
  const bytes = await fetchImageUrl(given.url!, imageUrlOptions(deps.env));
  const saved = await saveInputImage({ db: deps.db, storage: deps.storage, userId, bytes, mask: what === "mask" });
  return { id: saved.id, width: saved.width ?? 0, height: saved.height ?? 0, generationId: null };
}

/** The generation a user's idempotency key already started, if any (whatever it was asked). */
export async function generationOfKey(options: { db: Db; userId: string; key: string }): Promise<string | null> {
  const [row] = await options.db
    .select({ id: generation.id })
    .from(generation)
    .where(and(eq(generation.userId, options.userId), eq(generation.idempotencyKey, options.key)));
  return row?.id ?? null;
}
