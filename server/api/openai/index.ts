import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ServerState } from "#server/http/state.ts";
import { AppError } from "#server/errors.ts";
import { serverT } from "#server/i18n/translations.ts";
import { requestLocale } from "#server/http/api-error.ts";
import { apiKey } from "#server/api/v1/authenticate.ts";
import type { ApiEnv, KeyEnv } from "#server/api/v1/env.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import { offeredChatModels } from "#config/chat-models.ts";
import { chatCompletions } from "./chat-completions.ts";
import type { ApiLimits } from "#server/modules/api-keys/verify-api-key.ts";

/**
 * When the catalogue's models are said to have been created (OpenAI's `created`, Unix seconds): the same for every
 * model and every request, so that a client's cache of the list never churns.
 */
const CATALOG_CREATED = 1_767_225_600;

/** OpenAI's error types, by status, as its SDKs read them. */
function typeOf(error: AppError): string {
  if (error.code === "insufficient_credits") return "insufficient_quota";
  if (error.status === 401) return "invalid_request_error";
  if (error.status === 403) return "permission_error";
  if (error.status === 429) return "requests";
  if (error.status >= 500) return "server_error";
  return "invalid_request_error";
}

/** OpenAI's error codes where they differ from Atelier's. */
const CODES: Partial<Record<string, string>> = {
  insufficient_credits: "insufficient_quota",
  rate_limited: "rate_limit_exceeded",
  unknown_model: "model_not_found",
};

/**
 * An error in OpenAI's envelope, `{error: {message, type, code, param}}`, with the status its SDKs map onto their
 * error classes, the request id in `x-request-id`, and the key's rate-limit headers. Out of credits is 429
 * `insufficient_quota` with `x-should-retry: false`, so that an SDK does not retry it as it retries a rate limit.
 */
export function openaiError(c: Context<ApiEnv>, error: AppError, param: string | null = null): Response {
  const t = serverT(requestLocale(c), ["common", "messages"]);
  const code = CODES[error.code] ?? error.code;
  // OpenAI answers an unknown model with 404 and an exhausted quota with 429, where Atelier's own API says 400 and 402.
  const status = error.code === "insufficient_credits" ? 429 : error.code === "unknown_model" ? 404 : error.status;
  const headers: Record<string, string> = {
    "x-request-id": c.get("requestId"),
    "Cache-Control": "no-store",
    ...(c.get("apiLimits") ?? {}),
  };
  if (error.code === "insufficient_credits") headers["x-should-retry"] = "false";
  if (status === 401) headers["WWW-Authenticate"] = 'Bearer realm="atelier"';
  const message = error.message !== error.code ? error.message : t(error.messageKey, error.values);
  return c.json(
    { error: { message, type: typeOf(error), code, param: param ?? paramOf(error) } },
    status as 400,
    headers,
  );
}

/** The request field an error is about, when it says. */
const paramOf = (error: AppError) =>
  error.code === "unknown_model" ? "model" : typeof error.values.field === "string" ? error.values.field : null;

/** A model in OpenAI's shape, with Atelier's own details beside (the SDKs ignore fields they do not know). */
type ListedModel = { id: string; object: "model"; created: number; owned_by: string; atelier: Record<string, unknown> };

function catalogue(c: Context<KeyEnv>): ListedModel[] {
  const { env, settings } = c.var.runtime;
  const media = listModels(env, settings.current().models).map((m) => ({
    id: m.id,
    object: "model" as const,
    created: CATALOG_CREATED,
    owned_by: "atelier",
    atelier: { kind: m.kind, name: m.name, tools: m.tools, price: m.price, offline: m.offline },
  }));
  const chat = offeredChatModels(env).map((m) => ({
    id: m.id,
    object: "model" as const,
    created: CATALOG_CREATED,
    owned_by: "atelier",
    atelier: {
      kind: "chat",
      name: m.name,
      price: { unit: "million_tokens", input: m.price.inputPerMillion, output: m.price.outputPerMillion },
      vision: m.vision,
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
export function openaiApi(state: ServerState, options: { limits: ApiLimits }) {
  const key = apiKey(state, options);
  const api = new Hono<ApiEnv>();
  api.get("/models", key, (c) => c.json({ object: "list", data: catalogue(c as unknown as Context<KeyEnv>) }));
  api.get("/models/:id{.+}", key, (c) => {
    const model = catalogue(c as unknown as Context<KeyEnv>).find((m) => m.id === c.req.param("id"));
    if (!model)
      throw new AppError("unknown_model", `The model '${c.req.param("id")}' does not exist`, {
        values: { model: c.req.param("id") },
      });
    return c.json(model);
  });
  api.post("/chat/completions", key, (c) => chatCompletions(c as unknown as Context<KeyEnv>));
  // An unknown path asks for a key first, like any other: then it is not found.
  api.all("*", key, () => {
    throw new AppError("not_found", "Unknown request URL. Please check the URL and the method.");
  });
  api.onError((error, c) => {
    if (error instanceof AppError) return openaiError(c, error);
    if (error instanceof HTTPException && error.status < 500)
      return openaiError(c, new AppError("bad_request", error.message));
    throw error;
  });
  return api;
}
