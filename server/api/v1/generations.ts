import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { ServerState } from "#server/http/state.ts";
import { AppError } from "#server/errors.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { quoteGeneration } from "#server/modules/generation/quote-generation.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { pollGeneration } from "#server/modules/generation/poll-generation.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { cancelGeneration } from "#server/modules/generation/cancel-generation.ts";
import { deleteGeneration } from "#server/modules/generation/delete-generation.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { checkWebhookUrl } from "#server/modules/webhooks/webhook-url.ts";
import { admit, apiKey, deferredApiKey } from "./authenticate.ts";
import { idempotent } from "./idempotency.ts";
import { apiApp, type KeyEnv } from "./env.ts";
import { presentGeneration } from "./present.ts";
import { routes } from "./routes.ts";
import type { ApiLimits } from "#server/modules/api-keys/verify-api-key.ts";
import type { CreateImageSchema, CreateVideoSchema } from "./schemas.ts";
import type { z } from "@hono/zod-openapi";

type ImageBody = Omit<z.output<typeof CreateImageSchema>, "options"> & { options?: unknown };

/** An image request's tool: image to image when it has an input image. */
const imageTool = (fields: ImageBody, hasFile: boolean) =>
  hasFile || fields.image_url ? ("image-to-image" as const) : ("text-to-image" as const);

/** `POST /images`' body as a generation request (what creating it and quoting it both check). */
function imageInput(fields: ImageBody, tool: "text-to-image" | "image-to-image", inputAssetId?: string) {
  if (tool === "text-to-image" && fields.strength !== undefined) {
    throw new AppError("invalid_options", "strength: only for image to image (send image or image_url)", {
      key: "generation.errors.strengthWithoutImage",
    });
  }
  return {
    tool,
    model: fields.model,
    prompt: fields.prompt,
    ...(fields.negative_prompt ? { negativePrompt: fields.negative_prompt } : {}),
    aspectRatio: fields.aspect_ratio,
    count: fields.count,
    ...(fields.seed !== undefined ? { seed: fields.seed } : {}),
    ...(fields.resolution !== undefined ? { resolution: fields.resolution } : {}),
    ...(fields.options !== undefined ? { options: fields.options } : {}),
    ...(tool === "image-to-image"
      ? {
          ...(fields.strength !== undefined ? { strength: fields.strength } : {}),
          ...(inputAssetId ? { inputAssetId } : { inputUrl: fields.image_url }),
        }
      : {}),
  };
}

/** `POST /videos`' body as a generation request. */
function videoInput(body: z.output<typeof CreateVideoSchema>) {
  return {
    tool: "text-to-video",
    model: body.model,
    prompt: body.prompt,
    style: body.style,
    duration: body.duration,
    aspectRatio: body.aspect_ratio,
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(body.resolution !== undefined ? { resolution: body.resolution } : {}),
    ...(body.audio !== undefined ? { audio: body.audio } : {}),
    ...(body.options !== undefined ? { options: body.options } : {}),
  };
}

/** A multipart form's `options`: a JSON object in text. */
function optionsOfForm(text: string | undefined): unknown {
  if (text === undefined || text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("bad_request", "options: a JSON object of the model's settings");
  }
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

  /** The price of a request for the key's owner, as creating it would hold it. */
  const quote = (c: Context<KeyEnv>, input: Record<string, unknown>) => ({
    object: "quote" as const,
    ...quoteGeneration({ models: c.var.runtime.models }, { user: { id: c.var.apiUserId }, input }),
  });

  return (
    apiApp()
      .openapi({ ...routes.createImage, middleware: write }, async (c) => {
        const multipart = (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
        const body = multipart ? c.req.valid("form") : c.req.valid("json");
        const file = multipart ? (body as { image?: unknown }).image : undefined;
        const bytes = file instanceof File ? new Uint8Array(await file.arrayBuffer()) : null;
        if (file !== undefined && !bytes) throw new AppError("input_image_required", "image: expected a file");
        const { image: _image, ...sent } = body as typeof body & { image?: unknown };
        const fields: ImageBody = multipart ? { ...sent, options: optionsOfForm(sent.options as string) } : sent;
        const tool = imageTool(fields, Boolean(bytes));
        // Read (a strength without an image refused) before the upload is stored, to leave no unused file behind.
        imageInput(fields, tool);
        const { database, env, storage } = c.var.runtime;
        if (fields.webhook_url !== undefined) checkWebhookUrl(fields.webhook_url, env);
        const inputAssetId = bytes
          ? (await saveInputImage({ db: database.db, storage, userId: c.var.apiUserId, bytes })).id
          : undefined;
        return submit(c, imageInput(fields, tool, inputAssetId), fields.webhook_url);
      })
      .openapi({ ...routes.createVideo, middleware: write }, async (c) => {
        const body = c.req.valid("json");
        return submit(c, videoInput(body), body.webhook_url);
      })
      .openapi({ ...routes.quoteImage, middleware: key }, (c) => {
        const fields = c.req.valid("json");
        return c.json(quote(c, imageInput(fields, imageTool(fields, false))), 200);
      })
      .openapi({ ...routes.quoteVideo, middleware: key }, (c) => c.json(quote(c, videoInput(c.req.valid("json"))), 200))
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
