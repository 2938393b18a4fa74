import { requestLocale } from "#server/http/api-error.ts";
import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { ServerState } from "#server/http/state.ts";
import { AppError } from "#server/errors.ts";
import { checkGeneration, submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { quoteGeneration } from "#server/modules/generation/quote-generation.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { pollGeneration } from "#server/modules/generation/poll-generation.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { cancelGeneration } from "#server/modules/generation/cancel-generation.ts";
import { deleteGeneration } from "#server/modules/generation/delete-generation.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { checkImageUrl, imageUrlOptions } from "#server/modules/generation/fetch-image-url.ts";
import { takes, toolSpec, type GenerationTool, type ToolKind, type ToolParam, type ToolSpec } from "#common/tools.ts";
import { checkWebhookUrl } from "#server/modules/webhooks/webhook-url.ts";
import { admit, apiKey, deferredApiKey } from "./authenticate.ts";
import { idempotent } from "./idempotency.ts";
import { apiApp, type KeyEnv } from "./env.ts";
import { presentGeneration } from "./present.ts";
import { routes } from "./routes.ts";
import type { ApiLimits } from "#server/modules/api-keys/verify-api-key.ts";

/** A create or quote request's validated body, JSON or multipart (the route's schema has checked it). */
const bodyOf = (c: Context<KeyEnv>): Record<string, unknown> => {
  const multipart = (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
  const req = c.req as unknown as { valid(target: "form" | "json"): Record<string, unknown> };
  return req.valid(multipart ? "form" : "json");
};

/** What a create (or quote) request sent, whatever its content type, before it is mapped onto a tool's request. */
interface Sent {
  fields: Record<string, unknown>;
  files: Partial<Record<ImageField, Uint8Array>>;
}

/** The images a request may give: each as a file in a multipart form, or its https address in `{field}_url`. */
const IMAGE_FIELDS = ["image", "mask", "end_image"] as const;
type ImageField = (typeof IMAGE_FIELDS)[number];

/** Where each image goes in a generation request, and whether a tool takes it. */
const IMAGE_INPUTS: Record<ImageField, { asset: string; url: string; takes: (spec: ToolSpec) => boolean }> = {
  image: { asset: "inputAssetId", url: "inputUrl", takes: (spec) => spec.image },
  mask: { asset: "maskAssetId", url: "maskUrl", takes: (spec) => spec.mask },
  end_image: { asset: "endAssetId", url: "endUrl", takes: (spec) => spec.endImage },
};

/** The API's fields and the generation request's, for the common parameters (each taken by some tools). */
const PARAMS: [string, ToolParam][] = [
  ["negative_prompt", "negativePrompt"],
  ["aspect_ratio", "aspectRatio"],
  ["count", "count"],
  ["seed", "seed"],
  ["strength", "strength"],
  ["style", "style"],
  ["duration", "duration"],
  ["resolution", "resolution"],
  ["audio", "audio"],
  ["options", "options"],
];

/** A multipart form's JSON field (`options`, `extend`): an object in text. */
function jsonOfForm(field: string, text: unknown): unknown {
  if (typeof text !== "string" || text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("bad_request", `${field}: a JSON object in text`);
  }
}

/** Reads a create or quote request: JSON, or a multipart form with its files (text fields turned into values). */
async function readSent(c: Context<KeyEnv>, body: Record<string, unknown>): Promise<Sent> {
  const multipart = (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
  if (!multipart) return { fields: body, files: {} };
  const fields: Record<string, unknown> = { ...body };
  const files: Sent["files"] = {};
  for (const name of IMAGE_FIELDS) {
    const value = fields[name];
    delete fields[name];
    if (value === undefined) continue;
    if (!(value instanceof File)) {
      throw new AppError(name === "mask" ? "mask_required" : "input_image_required", `${name}: expected a file`);
    }
    files[name] = new Uint8Array(await value.arrayBuffer());
  }
  for (const name of ["options", "extend"]) if (name in fields) fields[name] = jsonOfForm(name, fields[name]);
  if (typeof fields.scale === "string") fields.scale = Number(fields.scale);
  if (typeof fields.duration === "string") fields.duration = Number(fields.duration);
  if (typeof fields.audio === "string") fields.audio = fields.audio === "true";
  return { fields, files };
}

/** A field the request's tool does not take, named as the request named it. */
const notTaken = (field: string, tool: GenerationTool) =>
  new AppError("unknown_field", `${field}: ${tool} does not take it`, { values: { field } });

/**
 * `POST /images` and `/videos`' body as a generation request of its tool (what creating it and quoting it both
 * check): the tool asked for, or the kind's default (from text, or from an image when one is given); the images as
 * the ids of the files already kept (`assets`) or as the URLs to fetch. A field the tool does not take is refused
 * by its name; a missing image or mask before any file is kept.
 */
function requestOf(kind: ToolKind, sent: Sent, assets: Partial<Record<ImageField, string>> = {}) {
  const f = sent.fields;
  const given = (name: ImageField) => sent.files[name] !== undefined || f[`${name}_url`] !== undefined;
  const fallback = kind === "image" ? "text-to-image" : "text-to-video";
  const fromImage = kind === "image" ? "image-to-image" : "image-to-video";
  const tool = (f.tool as GenerationTool | undefined) ?? (given("image") ? fromImage : fallback);
  const spec = toolSpec(tool);
  if (tool === "text-to-image" && f.strength !== undefined) {
    throw new AppError("invalid_options", "strength: only for image to image (send image or image_url)", {
      key: "generation.errors.strengthWithoutImage",
    });
  }
  const input: Record<string, unknown> = { tool, model: f.model };
  if (f.prompt !== undefined) {
    if (spec.prompt === "none") throw notTaken("prompt", tool);
    input.prompt = f.prompt;
  }
  for (const [field, param] of PARAMS) {
    if (f[field] === undefined) continue;
    if (!takes(tool, param)) throw notTaken(field, tool);
    input[param] = f[field];
  }
  for (const name of IMAGE_FIELDS) {
    const where = IMAGE_INPUTS[name];
    const url = f[`${name}_url`] as string | undefined;
    if (!given(name)) continue;
    if (!where.takes(spec)) throw notTaken(sent.files[name] ? name : `${name}_url`, tool);
    if (sent.files[name] && url !== undefined) {
      throw new AppError("bad_request", `${name}: send the file or ${name}_url, not both`);
    }
    if (assets[name]) input[where.asset] = assets[name];
    else if (url !== undefined) input[where.url] = url;
  }
  if (spec.image && !given("image")) throw new AppError("input_image_required", `${tool} needs image or image_url`);
  if (spec.mask && !given("mask")) throw new AppError("mask_required", `${tool} needs mask or mask_url`);
  if (f.scale !== undefined) {
    if (!spec.scale) throw notTaken("scale", tool);
    input.scale = f.scale;
  }
  for (const [field, name] of [
    ["extend_to", "extendTo"],
    ["extend", "extend"],
  ] as const) {
    if (f[field] === undefined) continue;
    if (!spec.extend) throw notTaken(field, tool);
    input[name] = f[field];
  }
  if (f.variation_of !== undefined) input.variationOf = f.variation_of;
  return input;
}

/** `/images`, `/videos` and `/generations…`: creating generations, reading, canceling and deleting them. */
export function generationsApi(state: ServerState, options: { origin: string; limits: ApiLimits }) {
  const key = apiKey(state, options);
  const write: [MiddlewareHandler<KeyEnv>, MiddlewareHandler<KeyEnv>] = [key, idempotent];

  const generationJson = async (c: Context<KeyEnv>, id: string) => {
    const { database, env } = c.var.runtime;
    const view = await getGeneration({ db: database.db, env, id, viewerId: c.var.apiUserId });
    return presentGeneration(view, options.origin, c.var.runtime.mediaLinks);
  };

  /** Queues a generation for the key's owner and answers it, 201 with its address. */
  const submit = async (c: Context<KeyEnv>, input: Record<string, unknown>, webhookUrl: string | undefined) => {
    const { database, env, storage, boss } = c.var.runtime;
    const idempotencyKey = c.req.header("idempotency-key");
    const { id } = await submitGeneration(
      { db: database.db, boss, env, storage, settings: c.var.runtime.settings, models: c.var.runtime.models },
      {
        user: { id: c.var.apiUserId },
        input,
        source: "api",
        apiKeyId: c.var.apiKeyId,
        locale: requestLocale(c),
        // The job itself is idempotent on the key too, so a retry after a crash finds it.
        idempotencyKey: idempotencyKey
          ? `api:${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 48)}`
          : undefined,
        webhookUrl,
      },
    );
    c.header("Location", `/api/v1/generations/${id}`);
    return c.json(await generationJson(c, id), 201);
  };

  /**
   * A create request read and checked, without keeping anything: its tool and fields, the images it must have, and
   * the model's limits and price (`checkGeneration`, what submitting runs too).
   */
  const checked = async (c: Context<KeyEnv>, kind: ToolKind, body: Record<string, unknown>) => {
    const sent = await readSent(c, body);
    const input = requestOf(kind, sent);
    checkGeneration(c.var.runtime.models, {}, input);
    // An address no fetch may reach is refused before anything is fetched or kept.
    for (const name of IMAGE_FIELDS) {
      const url = sent.fields[`${name}_url`];
      if (typeof url === "string") checkImageUrl(url, imageUrlOptions(c.var.runtime.env));
    }
    const webhookUrl = sent.fields.webhook_url as string | undefined;
    if (webhookUrl !== undefined) checkWebhookUrl(webhookUrl, c.var.runtime.env);
    return { sent, input, webhookUrl };
  };

  /** Creates a generation of a kind: checked first, so that a refused request keeps none of its files. */
  const create = async (c: Context<KeyEnv>, kind: ToolKind, body: Record<string, unknown>) => {
    const { sent, webhookUrl } = await checked(c, kind, body);
    const { database, storage } = c.var.runtime;
    const assets: Partial<Record<ImageField, string>> = {};
    for (const name of IMAGE_FIELDS) {
      const bytes = sent.files[name];
      if (!bytes) continue;
      const saved = await saveInputImage({
        db: database.db,
        storage,
        userId: c.var.apiUserId,
        bytes,
        mask: name === "mask",
      });
      assets[name] = saved.id;
    }
    return submit(c, requestOf(kind, sent, assets), webhookUrl);
  };

  /** The price of a request for the key's owner, as creating the same request would hold it. */
  const quote = async (c: Context<KeyEnv>, kind: ToolKind, body: Record<string, unknown>) => {
    const { input } = await checked(c, kind, body);
    return {
      object: "quote" as const,
      ...quoteGeneration({ models: c.var.runtime.models }, { user: { id: c.var.apiUserId }, input }),
    };
  };

  return (
    apiApp()
      .openapi({ ...routes.createImage, middleware: write }, async (c) => create(c, "image", bodyOf(c)))
      .openapi({ ...routes.createVideo, middleware: write }, async (c) => create(c, "video", bodyOf(c)))
      .openapi({ ...routes.quoteImage, middleware: key }, async (c) => c.json(await quote(c, "image", bodyOf(c)), 200))
      .openapi({ ...routes.quoteVideo, middleware: key }, async (c) => c.json(await quote(c, "video", bodyOf(c)), 200))
      .openapi({ ...routes.list, middleware: key }, async (c) => {
        const page = await listGenerations({
          db: c.var.runtime.database.db,
          userId: c.var.apiUserId,
          query: c.req.valid("query"),
        });
        return c.json(
          {
            object: "list" as const,
            data: page.items.map((g) => presentGeneration(g, options.origin, c.var.runtime.mediaLinks)),
            next_cursor: page.nextCursor,
          },
          200,
        );
      })
      // The status poll, the most frequent request: its key is checked and counted in the statement that reads it.
      .openapi({ ...routes.get, middleware: deferredApiKey(state) }, async (c) => {
        const { database, env } = c.var.runtime;
        const poll = await pollGeneration({
          db: database.counters,
          env,
          secret: c.var.apiBearer,
          limits: options.limits,
          id: c.req.valid("param").id,
        });
        admit(c, poll.key);
        if (!poll.generation) throw new AppError("not_found", "no such generation");
        return c.json(presentGeneration(poll.generation, options.origin, c.var.runtime.mediaLinks), 200);
      })
      .openapi({ ...routes.cancel, middleware: write }, async (c) => {
        const { id } = c.req.valid("param");
        const { database, boss, env } = c.var.runtime;
        await cancelGeneration({ db: database.db, boss, env, userId: c.var.apiUserId, id });
        return c.json(await generationJson(c, id), 200);
      })
      .openapi({ ...routes.remove, middleware: key }, async (c) => {
        const { database, storage } = c.var.runtime;
        await deleteGeneration({ db: database.db, storage, userId: c.var.apiUserId, id: c.req.valid("param").id });
        return c.body(null, 204);
      })
  );
}
