import type { Context } from "hono";
import { z } from "zod";
import { AppError } from "#server/errors.ts";
import { demoFields } from "#common/demo.ts";
import { MAX_SEED, PROMPT_MAX, VIDEO_STYLES, type VideoAspectRatio } from "#common/generation.ts";
import { getGeneration, type GenerationView } from "#server/modules/generation/get-generation.ts";
import { cursorAfter, listGenerations } from "#server/modules/generation/list-generations.ts";
import { deleteGeneration } from "#server/modules/generation/delete-generation.ts";
import { filesOfGeneration } from "#server/modules/generation/find-media.ts";
import { sendStored } from "#server/http/media.ts";
import type { KeyEnv } from "#server/api/v1/env.ts";
import type { RetryEnv } from "./retries.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { checkGeneration } from "#server/modules/generation/submit-generation.ts";
import { fieldError, modelFor, parseFields, ratioOfSize, readSent, startedJob, submitJob } from "./jobs.ts";

/** OpenAI's video fields, with Atelier's `style` and `seed` beside. */
const videoFields = z.looseObject({
  prompt: z.string().min(1).max(PROMPT_MAX),
  model: z.string().max(120).nullish(),
  seconds: z.union([z.string().regex(/^\d{1,3}$/), z.number().int()]).nullish(),
  size: z.string().max(20).nullish(),
  style: z.enum(VIDEO_STYLES).nullish(),
  seed: z.coerce.number().int().min(0).max(MAX_SEED).nullish(),
});

const listQuery = z.strictObject({
  after: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(["asc", "desc"]).default("desc"),
});

/** The size a ratio's video is said to have before it exists (OpenAI's sizes are in pixels). */
const SIZES: Record<VideoAspectRatio, string> = { "16:9": "1280x720", "9:16": "720x1280", "1:1": "720x720" };

const STATUSES = {
  queued: "queued",
  processing: "in_progress",
  succeeded: "completed",
  failed: "failed",
  canceled: "failed",
} as const;

const seconds = (iso: string | null) => (iso ? Math.floor(Date.parse(iso) / 1000) : null);

/** A video job in OpenAI's `Video` shape, with Atelier's details beside. */
function videoOf(view: GenerationView, origin: string) {
  const output = view.outputs[0];
  return {
    id: view.id,
    object: "video" as const,
    model: view.model.id,
    status: STATUSES[view.status],
    progress: view.status === "succeeded" ? 100 : view.progress,
    created_at: seconds(view.createdAt)!,
    completed_at: view.status === "succeeded" ? seconds(view.finishedAt) : null,
    expires_at: null,
    prompt: view.prompt,
    remixed_from_video_id: null,
    seconds: String(view.params.duration ?? 5),
    size:
      output?.width && output.height
        ? `${output.width}x${output.height}`
        : SIZES[view.params.aspectRatio as VideoAspectRatio],
    error:
      view.status === "canceled"
        ? { code: "canceled", message: "The video was canceled." }
        : view.error
          ? { code: view.error.code, message: view.error.message }
          : null,
    atelier: {
      style: view.params.style ?? null,
      aspect_ratio: view.params.aspectRatio,
      credits_held: view.creditsHeld,
      credits_charged: view.creditsCharged,
      eta_seconds: view.etaSeconds,
      ...demoFields(view.model.offline, origin),
    },
  };
}

/** What a video cost so far, on every answer about one: held while it runs, charged when it succeeds. */
function costHeaders<E extends KeyEnv>(c: Context<E>, view: GenerationView) {
  c.header("x-atelier-credits-charged", String(view.creditsCharged ?? 0));
  if (view.status === "queued" || view.status === "processing")
    c.header("x-atelier-credits-held", String(view.creditsHeld));
}

/** One of the key owner's videos (someone else's, or an image, does not exist here). */
async function videoView<E extends KeyEnv>(c: Context<E>, id: string): Promise<GenerationView> {
  const { database, env } = c.var.runtime;
  const view = await getGeneration({ db: database.db, env, id, viewerId: c.var.apiUserId });
  if (!view.mine || view.kind !== "video") throw new AppError("not_found", `No video found with id '${id}'`);
  return view;
}

/**
 * OpenAI's video job API onto Atelier's video generations: create (multipart or JSON; with an `input_reference`
 * file, from that first frame, the `image-to-video` tool), retrieve, list (a cursor
 * page by id), delete, and the content (`video` or `thumbnail`).
 */
export function videosRoutes(options: { origin: string }) {
  const create = async (c: Context<RetryEnv>) => {
    const { fields, files } = await readSent(c);
    const request = parseFields(videoFields, fields);
    const references = files.get("input_reference") ?? [];
    if (references.length > 1) throw fieldError("input_reference", "input_reference: one image, the first frame");
    if (references.length === 0 && fields.input_reference !== undefined)
      throw fieldError("input_reference", "input_reference: send the first frame as a file (multipart/form-data)");
    const fromImage = references.length === 1;
    const tool = fromImage ? "image-to-video" : "text-to-video";
    const model = modelFor(c, request.model, tool);
    const durations = model.options.durations ?? [5];
    const duration = request.seconds == null ? durations[0]! : Number(request.seconds);
    if (!(durations as readonly number[]).includes(duration))
      throw fieldError("seconds", `seconds: this model makes videos of ${durations.join(" or ")} seconds`);
    const input = {
      tool,
      model: model.id,
      prompt: request.prompt,
      duration,
      aspectRatio: ratioOfSize(model, request.size),
      ...(request.style ? { style: request.style } : {}),
      ...(request.seed != null ? { seed: request.seed } : {}),
    };
    let id: string;
    if (fromImage) {
      // A retry after a lost answer finds the job already started, without keeping the image again.
      const started = await startedJob(c);
      // Checked before the image is kept, so that a refusal leaves no file behind.
      if (!started) checkGeneration(c.var.runtime.models, {}, input);
      const { database, storage } = c.var.runtime;
      const bytes = new Uint8Array(await references[0]!.arrayBuffer());
      id =
        started ??
        (await submitJob(c, {
          ...input,
          inputAssetId: (await saveInputImage({ db: database.db, storage, userId: c.var.apiUserId, bytes })).id,
        }));
    } else id = await submitJob(c, input);
    const view = await videoView(c, id);
    costHeaders(c, view);
    return c.json(videoOf(view, options.origin));
  };

  const retrieve = async (c: Context<KeyEnv>) => {
    const view = await videoView(c, c.req.param("id")!);
    costHeaders(c, view);
    return c.json(videoOf(view, options.origin));
  };

  const list = async (c: Context<KeyEnv>) => {
    const query = parseFields(listQuery, c.req.query());
    const db = c.var.runtime.database.db;
    const userId = c.var.apiUserId;
    const cursor = query.after ? await cursorAfter({ db, userId, id: query.after, kind: "video" }) : undefined;
    const page = await listGenerations({
      db,
      userId,
      query: { kind: "video", limit: query.limit, ...(cursor ? { cursor } : {}) },
      oldestFirst: query.order === "asc",
    });
    const data = page.items.map((view) => videoOf(view, options.origin));
    return c.json({
      object: "list",
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: page.nextCursor !== null,
    });
  };

  const remove = async (c: Context<RetryEnv>) => {
    const id = c.req.param("id")!;
    await videoView(c, id);
    const { database, storage } = c.var.runtime;
    await deleteGeneration({ db: database.db, storage, userId: c.var.apiUserId, id });
    return c.json({ id, object: "video.deleted", deleted: true });
  };

  const content = async (c: Context<KeyEnv>) => {
    const variant = c.req.query("variant") ?? "video";
    if (variant !== "video" && variant !== "thumbnail")
      throw fieldError("variant", "variant: video or thumbnail (no spritesheet is made here)");
    const view = await videoView(c, c.req.param("id")!);
    if (view.status !== "succeeded")
      throw new AppError(
        "bad_request",
        `The video is ${STATUSES[view.status].replace("_", " ")}: it has no content yet`,
      );
    const { database, storage } = c.var.runtime;
    const [file] = await filesOfGeneration({ db: database.db, userId: c.var.apiUserId, generationId: view.id });
    const key = variant === "thumbnail" ? file?.thumbKey : file?.storageKey;
    if (!key) throw new AppError("not_found", `The video has no ${variant}`);
    return sendStored(c, storage, key, {
      cacheControl: "private, no-store",
      download: `${view.id}.${variant === "thumbnail" ? "webp" : key.split(".").pop()}`,
    });
  };

  return { create, retrieve, list, remove, content };
}
