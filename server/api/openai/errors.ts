import type { Context } from "hono";
import type { AppError } from "#server/errors.ts";
import { serverT } from "#server/i18n/translations.ts";
import { requestLocale } from "#server/http/api-error.ts";
import type { ApiEnv } from "#server/api/v1/env.ts";

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
export function openaiError<E extends ApiEnv>(c: Context<E>, error: AppError, param: string | null = null): Response {
  const t = serverT(requestLocale(c), ["common", "messages"]);
  const code = CODES[error.code] ?? error.code;
  // OpenAI answers an unknown model with 404 and an exhausted quota with 429, where Atelier's own API says 400 and 402.
  const status = error.code === "insufficient_credits" ? 429 : error.code === "unknown_model" ? 404 : error.status;
  const headers: Record<string, string> = {};
  if (error.code === "insufficient_credits") headers["x-should-retry"] = "false";
  if (status === 401) headers["WWW-Authenticate"] = 'Bearer realm="atelier"';
  const message = error.message !== error.code ? error.message : t(error.messageKey, error.values);
  return openaiFailure(c, status, { message, type: typeOf(error), code, param: param ?? paramOf(error) }, { headers });
}

export interface OpenaiFailure {
  message: string;
  type: string;
  code: string;
  param: string | null;
}

/**
 * An outcome that is not one of Atelier's error codes (a job that failed or is not finished yet) in the same
 * envelope, with anything Atelier adds beside `error`.
 */
export function openaiFailure<E extends ApiEnv>(
  c: Context<E>,
  status: number,
  error: OpenaiFailure,
  extra: { headers?: Record<string, string>; body?: Record<string, unknown> } = {},
): Response {
  return c.json({ error, ...extra.body }, status as 400, {
    "x-request-id": c.get("requestId"),
    "Cache-Control": "no-store",
    ...(c.get("apiLimits") ?? {}),
    ...extra.headers,
  });
}

/** The request field an error is about, when it says. */
const paramOf = (error: AppError) =>
  error.code === "unknown_model" ? "model" : typeof error.values.field === "string" ? error.values.field : null;
