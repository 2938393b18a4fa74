import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ServerState } from "#server/http/state.ts";
import { AppError } from "#server/errors.ts";
import { apiKey } from "#server/api/v1/authenticate.ts";
import type { ApiEnv, KeyEnv } from "#server/api/v1/env.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { chatCompletions } from "./chat-completions.ts";
import { openaiError } from "./errors.ts";
import { imagesRoutes } from "./images.ts";
import { videosRoutes } from "./videos.ts";
import { retrySafe, type RetryEnv } from "./retries.ts";
import type { ApiLimits } from "#server/modules/api-keys/verify-api-key.ts";

/** The header that says what a request cost, in credits. */
const CHARGED = "x-atelier-credits-charged";

/**
 * When the catalogue's models are said to have been created (OpenAI's `created`, Unix seconds): the same for every
 * model and every request, so that a client's cache of the list never churns.
 */
const CATALOG_CREATED = 1_767_225_600;

/** A model in OpenAI's shape, with Atelier's own details beside (the SDKs ignore fields they do not know). */
type ListedModel = { id: string; object: "model"; created: number; owned_by: string; atelier: Record<string, unknown> };

function catalogue<E extends KeyEnv>(c: Context<E>): ListedModel[] {
  const models: ModelRegistry = c.var.runtime.models;
  const media = listModels(models).map((m) => ({
    id: m.id,
    object: "model" as const,
    created: CATALOG_CREATED,
    owned_by: "atelier",
    atelier: { kind: m.kind, name: m.name, tools: m.tools, price: m.price, offline: m.offline },
  }));
  const chat = models.chat().map((m) => ({
    id: m.id,
    object: "model" as const,
    created: CATALOG_CREATED,
    owned_by: "atelier",
    atelier: {
      kind: "chat",
      name: m.name,
      price: { unit: "million_tokens", input: m.price.inputPerMillion, output: m.price.outputPerMillion },
      vision: m.vision,
      tools: m.tools,
      offline: Boolean(m.offline),
    },
  }));
  return [...media, ...chat];
}

/**
 * The OpenAI-compatible API, `/v1`: the official OpenAI SDKs (and the tools built on them) work against Atelier with
 * only a base URL and an Atelier API key. The same keys, rate limits and ledger as `/api/v1`; OpenAI's shapes and
 * error envelope.
 */
export function openaiApi(state: ServerState, options: { origin: string; waitMs: number; limits: ApiLimits }) {
  const key = apiKey(state, options);
  const safe = retrySafe({ waitMs: options.waitMs });
  const images = imagesRoutes(options);
  const videos = videosRoutes({ origin: options.origin });
  const api = new Hono<ApiEnv>();
  // What a request cost, on every answer (0 unless its handler says): a stream says it in its usage chunk.
  api.use("*", async (c, next) => {
    await next();
    const streamed = (c.res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    if (!streamed && !c.res.headers.has(CHARGED)) c.res.headers.set(CHARGED, "0");
  });
  // Every path asks for a key first, an unknown one too (then it is not found).
  api.use("*", key);
  const routes = new Hono<RetryEnv>()
    .get("/models", (c) => c.json({ object: "list", data: catalogue(c) }))
    .get("/models/:id{.+}", (c) => {
      const model = catalogue(c).find((m) => m.id === c.req.param("id"));
      if (!model) throw new AppError("unknown_model", `The model '${c.req.param("id")}' does not exist`);
      return c.json(model);
    })
    .post("/chat/completions", safe, chatCompletions)
    .post("/images/generations", safe, images.generations)
    .post("/images/edits", safe, images.edits)
    .post("/videos", safe, videos.create)
    .get("/videos", videos.list)
    .get("/videos/:id", videos.retrieve)
    .delete("/videos/:id", safe, videos.remove)
    .get("/videos/:id/content", videos.content)
    .all("*", () => {
      throw new AppError("not_found", "Unknown request URL. Please check the URL and the method.");
    });
  api.route("/", routes as unknown as Hono<ApiEnv>);
  api.onError((error, c) => {
    if (error instanceof AppError) return openaiError(c, error);
    if (error instanceof HTTPException && error.status < 500)
      return openaiError(c, new AppError("bad_request", error.message));
    throw error;
  });
  return api;
}
