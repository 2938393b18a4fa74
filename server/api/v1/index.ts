import { HTTPException } from "hono/http-exception";
import type { ServerState } from "#server/http/state.ts";
import { errorResponse, noRoute } from "#server/http/api-error.ts";
import { AppError } from "#server/errors.ts";
import { apiKey, refuse } from "./authenticate.ts";
import { describeApi, documentFields } from "./document.ts";
import { apiApp } from "./env.ts";
import { creditsApi } from "./credits.ts";
import { generationsApi } from "./generations.ts";
import { modelsApi } from "./models.ts";
import type { ApiLimits } from "#server/modules/api-keys/verify-api-key.ts";
import { openaiDocument } from "#server/api/openai/document.ts";

/**
 * The public REST API, `/api/v1`, for API keys (`Authorization: Bearer atl_…`): one sub-app per resource, each
 * route behind its key guard (`authenticate.ts`), the POSTs behind `idempotent` too. Its OpenAPI 3.1 document is
 * made from the route definitions (`routes.ts`) at `/api/v1/openapi.json`. Every request to an operation counts
 * against its key's per-minute limit (`RateLimit` headers on every answer).
 */
export function publicApi(state: ServerState, options: { origin: string; limits: ApiLimits }) {
  const api = apiApp()
    .route("/", modelsApi(state, options))
    .route("/", generationsApi(state, options))
    .route("/", creditsApi(state, options));
  describeApi(api);
  api.get("/openapi.json", (c) => c.json(openApiDocument(options.origin)));
  // An unknown path asks for a key first, like any other, and counts against it: then it is `not_found`.
  api.all("*", apiKey(state, options), (c) => noRoute(c));

  // Whatever a route, its guard or its validation throws: an AppError is answered in the one JSON error shape (with
  // the key's challenge or rate-limit headers), and the framework's refusals of a body say what was wrong with it.
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

type OpenApiDocument = ReturnType<ReturnType<typeof publicApi>["getOpenAPI31Document"]>;
const documents = new Map<string, OpenApiDocument>();

/**
 * The OpenAPI document `/api/v1/openapi.json` serves, made without a request (the API reference page renders it on
 * the server). The application is built with no runtime: only its route definitions are read, never its handlers.
 * The OpenAI-compatible API's paths are added under their own tag, each with its own server (`/v1`).
 */
export function openApiDocument(origin: string): OpenApiDocument {
  let document = documents.get(origin);
  if (!document) {
    const own = publicApi({ draining: false }, { origin, limits: { perKey: 1, perAccount: 1 } }).getOpenAPI31Document(
      documentFields(origin),
    );
    const openai = openaiDocument(origin);
    // The groups keep the order the operations come in, the OpenAI-compatible API's after Atelier's own.
    const named = new Set((own.tags ?? []).map((t) => t.name));
    const used = Object.values(own.paths ?? {}).flatMap((item) =>
      Object.values(item ?? {}).flatMap((op) => (op as { tags?: string[] }).tags ?? []),
    );
    const tags = [...(own.tags ?? []), ...[...new Set(used)].filter((t) => !named.has(t)).map((name) => ({ name }))];
    document = {
      ...own,
      tags: [...tags, openai.tag],
      paths: { ...own.paths, ...(openai.paths as OpenApiDocument["paths"]) },
    };
    documents.set(origin, document);
  }
  return document;
}
