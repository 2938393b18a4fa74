import { createHash } from "node:crypto";
import { OpenAPIHono, createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv, ServerState } from "#server/http/app.ts";
import { errorResponse, noRoute, serviceUnavailable } from "#server/http/api-error.ts";
import { AppError } from "#server/errors.ts";
import { verifyApiKey, type VerifiedKey } from "#server/modules/api-keys/verify-api-key.ts";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
} from "#server/modules/api-keys/idempotency.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { pollGeneration } from "#server/modules/generation/poll-generation.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { cancelGeneration } from "#server/modules/generation/cancel-generation.ts";
import { deleteGeneration } from "#server/modules/generation/delete-generation.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import {
  BalanceSchema,
  CreateImageMultipartSchema,
  CreateImageSchema,
  CreateVideoSchema,
  ErrorSchema,
  GenerationListSchema,
  GenerationSchema,
  IdParam,
  LedgerQuery,
  LedgerSchema,
  ListGenerationsQuery,
  ModelSchema,
  WebhookEventSchema,
  WebhookHeaders,
} from "./schemas.ts";
import { WEBHOOK_EVENTS } from "#server/db/schema/webhooks.ts";
import { WEBHOOK_MAX_ATTEMPTS } from "#server/modules/webhooks/queue-webhook.ts";
import { WEBHOOK_TIMEOUT_MS } from "#server/modules/webhooks/deliver-webhook.ts";
import { checkWebhookUrl } from "#server/modules/webhooks/webhook-url.ts";
import { presentEntry, presentGeneration, presentModel } from "./present.ts";

export const API_VERSION = "1.0.0";

type V1 = Context<AppEnv>;

const errorDocument = (description: string) => ({
  content: { "application/json": { schema: ErrorSchema } },
  description,
});
const COMMON_ERRORS = {
  401: errorDocument(
    "No key, an unknown or deleted key (`invalid_api_key`), or a deactivated one (`api_key_inactive`).",
  ),
  429: errorDocument("Too many requests for this key (`rate_limited`); wait `Retry-After` seconds."),
} as const;
const WRITE_ERRORS = {
  ...COMMON_ERRORS,
  400: errorDocument(
    "Malformed request (`bad_request`), unknown model (`unknown_model`), refused image URL (`input_url_refused`) or webhook URL (`webhook_url_refused`).",
  ),
  402: errorDocument("Not enough available credits (`insufficient_credits`)."),
  409: errorDocument("A request with this `Idempotency-Key` is still running (`idempotency_in_flight`)."),
  413: errorDocument("Body or input image too large."),
  415: errorDocument("Not JSON or multipart (`unsupported_media_type`), or the file is not an image."),
  422: errorDocument(
    "Invalid options (`invalid_options`, `prompt_invalid`), missing input image, or an `Idempotency-Key` reused with another request (`idempotency_mismatch`).",
  ),
} as const;
const idempotencyHeader = z.object({
  "idempotency-key": z.string().optional().openapi({
    description:
      "Makes the request safe to retry: the same key with the same request returns the first answer (header `Idempotent-Replayed: true`) for 24 hours.",
    example: "order-1234-image-1",
  }),
});

const generationResponse = (description: string) => ({
  content: { "application/json": { schema: GenerationSchema } },
  description,
});

const route = <R extends RouteConfig>(r: R) => createRoute({ security: [{ bearer: [] }], ...r });

const routes = {
  models: route({
    method: "get",
    path: "/models",
    tags: ["Models"],
    summary: "List models",
    description: "The models this server offers, with their prices in credits and the options each takes.",
    responses: {
      200: {
        content: {
          "application/json": { schema: z.object({ object: z.literal("list"), data: z.array(ModelSchema) }) },
        },
        description: "The models.",
      },
      ...COMMON_ERRORS,
    },
  }),
  createImage: route({
    method: "post",
    path: "/images",
    tags: ["Generations"],
    summary: "Create an image generation",
    description:
      "Text to image, or image to image with an input image: a file in `multipart/form-data` (field `image`) or an https `image_url`. The cost is reserved at once and charged when the images are ready (returned if it fails). The generation runs in the background: poll it, or read it when you are notified.",
    request: {
      headers: idempotencyHeader,
      body: {
        // Each media type's validator runs only for its own Content-Type (with `required`, both would run).
        content: {
          "application/json": { schema: CreateImageSchema },
          "multipart/form-data": { schema: CreateImageMultipartSchema },
        },
      },
    },
    responses: { 201: generationResponse("Created and queued."), ...WRITE_ERRORS },
  }),
  createVideo: route({
    method: "post",
    path: "/videos",
    tags: ["Generations"],
    summary: "Create a video generation",
    description: "Text to video in one of five styles. Runs in the background like images.",
    request: {
      headers: idempotencyHeader,
      body: { required: true, content: { "application/json": { schema: CreateVideoSchema } } },
    },
    responses: { 201: generationResponse("Created and queued."), ...WRITE_ERRORS },
  }),
  list: route({
    method: "get",
    path: "/generations",
    tags: ["Generations"],
    summary: "List generations",
    description: "Your generations, newest first, a page at a time (`next_cursor`).",
    request: { query: ListGenerationsQuery },
    responses: {
      200: { content: { "application/json": { schema: GenerationListSchema } }, description: "One page." },
      422: errorDocument("A filter or cursor is not valid (`invalid_options`)."),
      ...COMMON_ERRORS,
    },
  }),
  get: route({
    method: "get",
    path: "/generations/{id}",
    tags: ["Generations"],
    summary: "Get a generation",
    description: "Status, progress and estimated time left while it runs; outputs once it succeeded.",
    request: { params: IdParam },
    responses: {
      200: generationResponse("The generation."),
      404: errorDocument("No generation of yours has this id (`not_found`)."),
      ...COMMON_ERRORS,
    },
  }),
  cancel: route({
    method: "post",
    path: "/generations/{id}/cancel",
    tags: ["Generations"],
    summary: "Cancel a generation",
    description: "Stops a queued or running generation and returns its reserved credits. Canceling twice is fine.",
    request: { params: IdParam, headers: idempotencyHeader },
    responses: {
      200: generationResponse("Canceled."),
      404: errorDocument("No generation of yours has this id (`not_found`)."),
      409: errorDocument("It has already finished (`not_cancelable`), or the idempotency key is in use."),
      ...COMMON_ERRORS,
    },
  }),
  remove: route({
    method: "delete",
    path: "/generations/{id}",
    tags: ["Generations"],
    summary: "Delete a generation",
    description: "Deletes the generation and its files. A running one is canceled first (its credits returned).",
    request: { params: IdParam },
    responses: {
      204: { description: "Deleted." },
      404: errorDocument("No generation of yours has this id (`not_found`)."),
      ...COMMON_ERRORS,
    },
  }),
  balance: route({
    method: "get",
    path: "/credits",
    tags: ["Credits"],
    summary: "Get the credit balance",
    responses: {
      200: { content: { "application/json": { schema: BalanceSchema } }, description: "The balance." },
      ...COMMON_ERRORS,
    },
  }),
  ledger: route({
    method: "get",
    path: "/credits/ledger",
    tags: ["Credits"],
    summary: "List credit movements",
    description: "Every change of the balance, newest first: grants, purchases, holds, charges, releases, refunds.",
    request: { query: LedgerQuery },
    responses: {
      200: { content: { "application/json": { schema: LedgerSchema } }, description: "One page." },
      422: errorDocument("Invalid page (`invalid_options`)."),
      ...COMMON_ERRORS,
    },
  }),
};

/** The document's own fields; its operations and schemas come from the routes registered on the application. */
const documentFields = (origin: string) => ({
  openapi: "3.1.0",
  info: {
    title: "Atelier API",
    version: API_VERSION,
    description:
      "Create images and videos with the models of this server, spending your account's credits. Authenticate with `Authorization: Bearer <API key>`. Errors are JSON with a stable `code`. Each key may make a limited number of requests per minute (`RateLimit` and `RateLimit-Policy` headers; `429` with `Retry-After` beyond it). POST requests accept an `Idempotency-Key`. Give a generation a `webhook_url` to be told when it ends (see Webhooks).",
  },
  servers: [{ url: `${origin}/api/v1` }],
});

/**
 * The public REST API, `/api/v1`, for API keys (`Authorization: Bearer atl_…`). Its OpenAPI 3.1 document is made
 * from these route definitions at `/api/v1/openapi.json`. Every request counts against its key's per-minute limit
 * (`RateLimit` headers on every answer); POSTs take an `Idempotency-Key`.
 */
export function publicApi(state: ServerState, o: { origin: string; limitPerMinute: number }) {
  const api = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const field = issue?.path.join(".") ?? "";
      const code = field === "prompt" ? "prompt_invalid" : "invalid_options";
      return errorResponse(c as V1, new AppError(code, `${field || "request"}: ${issue?.message ?? "invalid"}`));
    },
  });
  const runtime = () => state.runtime!;

  api.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key made on the API keys page of the dashboard (`atl_…`).",
  });
  const whenEnded = {
    "generation.succeeded": "A generation succeeded: `data.outputs` holds its files.",
    "generation.failed": "A generation failed: `data.error` says why; its credits were returned.",
    "generation.canceled": "A generation was canceled; its credits were returned.",
  } as const;
  for (const event of WEBHOOK_EVENTS) {
    api.openAPIRegistry.registerWebhook({
      method: "post",
      path: event,
      tags: ["Webhooks"],
      summary: event,
      description: `${whenEnded[event]} Sent to the \`webhook_url\` of the request that created the generation, signed the Standard Webhooks way with your signing secret (API keys page). Answer 2xx within ${WEBHOOK_TIMEOUT_MS / 1000} seconds; any other answer, a redirect or no answer is retried ${WEBHOOK_MAX_ATTEMPTS - 1} times, each wait about twice the one before (at most an hour), within a day. A generation deleted before it ends sends nothing.`,
      request: {
        headers: WebhookHeaders,
        body: { required: true, content: { "application/json": { schema: WebhookEventSchema } } },
      },
      responses: { 200: { description: "Any 2xx answer acknowledges the message." } },
    });
  }
  api.doc31("/openapi.json", documentFields(o.origin));

  const challenge = { "WWW-Authenticate": 'Bearer realm="atelier"' };
  /** A refusal of the key (401) carries the challenge; a refusal of its rate (429) says when to come back. */
  const refuse = (c: V1, error: AppError) =>
    errorResponse(c, error, error.status === 401 ? challenge : (c.get("apiLimits") ?? {}));
  /**
   * Takes a key's verdict: the caller is known and the rate-limit headers are kept for the answer, or, beyond the
   * limit, `rate_limited` is thrown.
   */
  const admit = (c: V1, key: VerifiedKey) => {
    const limits: Record<string, string> = {
      "RateLimit-Policy": `${key.limit};w=60`,
      RateLimit: `limit=${key.limit}, remaining=${key.remaining}, reset=${key.resetSeconds}`,
    };
    if (!key.allowed) limits["Retry-After"] = String(Math.max(1, key.resetSeconds));
    c.set("apiLimits", limits);
    if (!key.allowed) throw new AppError("rate_limited", `at most ${key.limit} requests per minute per key`);
    c.set("apiUserId", key.userId);
  };
  /** The status poll checks its key in the statement that reads the generation (`pollGeneration`). */
  const checksOwnKey = (c: V1) =>
    (c.req.method === "GET" || c.req.method === "HEAD") && /^\/api\/v1\/generations\/[^/]+$/.test(c.req.path);

  const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (c.req.path.endsWith("/openapi.json")) return next();
    if (!state.runtime) {
      return serviceUnavailable(c);
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (!bearer) {
      return errorResponse(
        c,
        new AppError("invalid_api_key", "send the key as Authorization: Bearer <key>"),
        challenge,
      );
    }
    if (checksOwnKey(c)) {
      c.set("apiBearer", bearer);
    } else {
      try {
        admit(
          c,
          await verifyApiKey({ db: runtime().database.counters, secret: bearer, limitPerMinute: o.limitPerMinute }),
        );
      } catch (error) {
        if (error instanceof AppError) return refuse(c, error);
        throw error;
      }
    }
    await next();
    for (const [name, value] of Object.entries(c.get("apiLimits") ?? {})) c.res.headers.set(name, value);
    c.res.headers.set("Cache-Control", "no-store");
  };
  api.use("*", authenticate);

  const userId = (c: V1) => c.get("apiUserId")!;
  const generationJson = async (c: V1, id: string) => {
    const { database, env } = runtime();
    const view = await getGeneration({ db: database.db, env, id, viewerId: userId(c) });
    return presentGeneration(view, o.origin);
  };

  /** Runs a POST once per idempotency key (when one is sent), storing its answer for replays. */
  const once = async (c: V1, request: unknown, run: () => Promise<Response>): Promise<Response> => {
    const key = c.req.header("idempotency-key");
    const attempt = async () => {
      try {
        return await run();
      } catch (error) {
        if (error instanceof AppError) return errorResponse(c, error);
        throw error;
      }
    };
    if (key === undefined) return attempt();
    const db = runtime().database.db;
    const fingerprint = createHash("sha256")
      .update(JSON.stringify([c.req.method, c.req.path, request]))
      .digest("hex");
    const claim = await claimIdempotencyKey({ db, userId: userId(c), key, fingerprint });
    if (claim.kind === "replay") {
      return c.body(claim.body, claim.status as 201, {
        "Content-Type": "application/json",
        "Idempotent-Replayed": "true",
      });
    }
    let response: Response;
    try {
      response = await attempt();
    } catch (error) {
      await releaseIdempotencyKey({ db, userId: userId(c), key });
      throw error;
    }
    // Worth retrying (the server failed, or a limit or conflict that passes): not stored.
    if (response.status >= 500 || response.status === 409 || response.status === 429) {
      await releaseIdempotencyKey({ db, userId: userId(c), key });
    } else {
      const body = await response.clone().text();
      await completeIdempotencyKey({ db, userId: userId(c), key, status: response.status, body });
    }
    return response;
  };

  const submit = async (
    c: V1,
    input: Record<string, unknown>,
    o: { idempotencyKey: string | undefined; webhookUrl: string | undefined },
  ) => {
    const { database, env, storage, boss } = runtime();
    const { id } = await submitGeneration(
      { db: database.db, boss, env, storage },
      {
        user: { id: userId(c) },
        input,
        source: "api",
        // The job itself is idempotent on the key too, so a retry after a crash finds it.
        idempotencyKey: o.idempotencyKey
          ? `api:${createHash("sha256").update(o.idempotencyKey).digest("hex").slice(0, 48)}`
          : undefined,
        webhookUrl: o.webhookUrl,
      },
    );
    c.header("Location", `/api/v1/generations/${id}`);
    return c.json(await generationJson(c, id), 201);
  };

  api.openapi(routes.models, (c) =>
    c.json({ object: "list" as const, data: listModels(runtime().env).map(presentModel) }, 200),
  );

  api.openapi(routes.createImage, async (c) => {
    const multipart = (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
    const body = multipart ? c.req.valid("form") : c.req.valid("json");
    const file = multipart ? (body as { image?: unknown }).image : undefined;
    const bytes = file instanceof File ? new Uint8Array(await file.arrayBuffer()) : null;
    if (file !== undefined && !bytes) {
      return errorResponse(c, new AppError("input_image_required", "image: expected a file")) as never;
    }
    const fields = { ...body, image: undefined };
    const request = { ...fields, image: bytes ? createHash("sha256").update(bytes).digest("hex") : undefined };
    const toolOf = bytes || fields.image_url ? "image-to-image" : "text-to-image";
    return once(c, request, async () => {
      if (toolOf === "text-to-image" && fields.strength !== undefined) {
        throw new AppError("invalid_options", "strength: only for image to image (send image or image_url)");
      }
      // Before the upload is stored: a refused URL must not leave an unused file behind
      if (fields.webhook_url !== undefined) checkWebhookUrl(fields.webhook_url, runtime().env);
      let inputAssetId: string | undefined;
      if (bytes) {
        const { database, storage } = runtime();
        inputAssetId = (await saveInputImage({ db: database.db, storage, userId: userId(c), bytes })).id;
      }
      return submit(
        c,
        {
          tool: toolOf,
          model: fields.model,
          prompt: fields.prompt,
          ...(fields.negative_prompt ? { negativePrompt: fields.negative_prompt } : {}),
          aspectRatio: fields.aspect_ratio,
          count: fields.count,
          ...(fields.seed !== undefined ? { seed: fields.seed } : {}),
          ...(toolOf === "image-to-image"
            ? {
                ...(fields.strength !== undefined ? { strength: fields.strength } : {}),
                ...(inputAssetId ? { inputAssetId } : { inputUrl: fields.image_url }),
              }
            : {}),
        },
        { idempotencyKey: c.req.header("idempotency-key"), webhookUrl: fields.webhook_url },
      );
    }) as never;
  });

  api.openapi(routes.createVideo, async (c) => {
    const body = c.req.valid("json");
    return once(c, body, () =>
      submit(
        c,
        {
          tool: "text-to-video",
          model: body.model,
          prompt: body.prompt,
          style: body.style,
          duration: body.duration,
          aspectRatio: body.aspect_ratio,
          ...(body.seed !== undefined ? { seed: body.seed } : {}),
        },
        { idempotencyKey: c.req.header("idempotency-key"), webhookUrl: body.webhook_url },
      ),
    ) as never;
  });

  // An AppError thrown by a handler is answered by `onError` below; only POSTs catch their own (to store the answer).
  api.openapi(routes.list, async (c) => {
    const page = await listGenerations({ db: runtime().database.db, userId: userId(c), query: c.req.valid("query") });
    return c.json(
      {
        object: "list" as const,
        data: page.items.map((g) => presentGeneration(g, o.origin)),
        next_cursor: page.nextCursor,
      },
      200,
    );
  });

  api.openapi(routes.get, async (c) => {
    const { id } = c.req.valid("param");
    const bearer = c.get("apiBearer");
    // Reached with the key already checked (a path `checksOwnKey` did not recognise): an ordinary read.
    if (bearer === undefined) return c.json(await generationJson(c, id), 200);
    const { database, env } = runtime();
    const poll = await pollGeneration({
      db: database.counters,
      env,
      secret: bearer,
      limitPerMinute: o.limitPerMinute,
      id,
    });
    admit(c, poll.key);
    if (!poll.generation) throw new AppError("not_found", "no such generation");
    return c.json(presentGeneration(poll.generation, o.origin), 200);
  });

  api.openapi(routes.cancel, async (c) => {
    const { id } = c.req.valid("param");
    return once(c, { id }, async () => {
      const { database, boss, env } = runtime();
      await cancelGeneration({ db: database.db, boss, env, userId: userId(c), id });
      return c.json(await generationJson(c, id), 200);
    }) as never;
  });

  api.openapi(routes.remove, async (c) => {
    const { database, storage } = runtime();
    await deleteGeneration({ db: database.db, storage, userId: userId(c), id: c.req.valid("param").id });
    return c.body(null, 204);
  });

  api.openapi(routes.balance, async (c) => {
    const b = await getBalance({ db: runtime().database.db, userId: userId(c) });
    return c.json({ object: "balance" as const, balance: b.balance, held: b.held, available: b.available }, 200);
  });

  api.openapi(routes.ledger, async (c) => {
    const q = c.req.valid("query");
    const { rows, total } = await listEntries({
      db: runtime().database.db,
      userId: userId(c),
      page: q.page,
      pageSize: q.page_size,
    });
    return c.json(
      { object: "list" as const, data: rows.map(presentEntry), page: q.page, page_size: q.page_size, total },
      200,
    );
  });

  api.notFound((c) => noRoute(c));
  api.onError((error, c) => {
    if (error instanceof AppError) return refuse(c, error);
    if (error instanceof HTTPException) {
      if (error.status === 415) return errorResponse(c, new AppError("unsupported_media_type", error.message));
      if (error.status === 413) return errorResponse(c, new AppError("payload_too_large", error.message));
      if (error.status < 500) return errorResponse(c, new AppError("bad_request", error.message));
    }
    throw error;
  });
  return api;
}

const documents = new Map<string, ReturnType<ReturnType<typeof publicApi>["getOpenAPI31Document"]>>();

/**
 * The OpenAPI document `/api/v1/openapi.json` serves, made without a request (the API reference page renders it on
 * the server). The application is built with no runtime: only its route definitions are read, never its handlers.
 */
export function openApiDocument(origin: string) {
  let document = documents.get(origin);
  if (!document) {
    document = publicApi({ draining: false }, { origin, limitPerMinute: 1 }).getOpenAPI31Document(
      documentFields(origin),
    );
    documents.set(origin, document);
  }
  return document;
}
