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
import { DEFAULT_LOCALE, LOCALES, type Locale } from "#common/locales.ts";
import { localizeDocument } from "./document-locale.ts";

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
  // English for machines; `?lang=` gives the document in one of the site's languages (the reference page asks so).
  api.get("/openapi.json", (c) => {
    const lang = c.req.query("lang");
    const locale = LOCALES.find((l) => l === lang) ?? DEFAULT_LOCALE;
    return c.json(openApiDocument(options.origin, locale));
  });
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
const localized = new Map<string, OpenApiDocument>();

/**
 * The OpenAPI document `/api/v1/openapi.json` serves, made without a request (the API reference page renders it on
 * the server). The application is built with no runtime: only its route definitions are read, never its handlers.
 * The OpenAI-compatible API's paths are added under their own tag, each with its own server (`/v1`). In another
 * language than English, its texts are translated (`document-locale.ts`).
 */
export function openApiDocument(origin: string, locale: Locale = DEFAULT_LOCALE): OpenApiDocument {
  if (locale !== DEFAULT_LOCALE) {
    const key = `${origin}|${locale}`;
    let document = localized.get(key);
    if (!document) localized.set(key, (document = localizeDocument(openApiDocument(origin), origin, locale)));
    return document;
  }
  let document = documents.get(origin);
  if (!document) {
    const own = publicApi({ draining: false }, { origin, limits: { perKey: 1, perAccount: 1 } }).getOpenAPI31Document(
      documentFields(origin),
    );
    const openai = openaiDocument(origin);
    // The groups keep the order the operations come in, the OpenAI-compatible API's after Atelier's own, and the
    // webhooks' last (their tag is named too: a reader sees it, translated like the others).
    const named = new Set((own.tags ?? []).map((t) => t.name));
    const tagsOf = (items: object) =>
      Object.values(items).flatMap((item) =>
        Object.values((item ?? {}) as object).flatMap((op) => (op as { tags?: string[] }).tags ?? []),
      );
    const unnamed = (used: string[]) => [...new Set(used)].filter((t) => !named.has(t)).map((name) => ({ name }));
    const tags = [
      ...(own.tags ?? []),
      ...unnamed(tagsOf(own.paths ?? {})),
      openai.tag,
      ...unnamed(tagsOf(own.webhooks ?? {})),
    ];
    document = {
      ...own,
      tags,
      paths: { ...own.paths, ...(openai.paths as OpenApiDocument["paths"]) },
    };
    documents.set(origin, document);
  }
  return document;
}
