import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "#server/http/request-context.ts";
import { matchLocale } from "#server/http/locale.ts";
import { AppError } from "#server/errors.ts";
import { serverT } from "#server/i18n/translations.ts";
import { isLocale, LOCALE_COOKIE, type Locale } from "#common/locales.ts";

/** The language of an API answer: the page's (`X-Locale`, sent by the pages), the locale cookie, then the browser's. */
export function requestLocale<E extends AppEnv>(c: Context<E>): Locale {
  const asked = c.req.header("x-locale");
  if (isLocale(asked)) return asked;
  const cookie = getCookie(c, LOCALE_COOKIE);
  if (isLocale(cookie)) return cookie;
  return matchLocale(c.req.header("accept-language"));
}

/** Codes whose detail tells the caller which field is wrong; the others keep their detail in the log only. */
const DETAILED = new Set([
  "invalid_options",
  "unknown_field",
  "prompt_invalid",
  "idempotency_mismatch",
  "input_url_refused",
  "input_url_failed",
]);

/** The public API's paths: its fields are snake_case, and every refusal of a request says what was wrong. */
const isPublicApi = <E extends AppEnv>(c: Context<E>) => c.req.path === "/api/v1" || c.req.path.startsWith("/api/v1/");

/**
 * Every JSON error the server answers, in one shape: `{ error: { code, message, requestId, detail? } }` — a stable
 * code, the catalogue message in the caller's language, the request id to quote to support and, where it helps a
 * developer, what was wrong. The public API spells the id `request_id` (its fields are snake_case) and details
 * every client error; elsewhere only the codes that name a field carry their detail.
 */
export function errorResponse<E extends AppEnv>(
  c: Context<E>,
  error: AppError,
  headers: Record<string, string> = {},
): Response {
  const t = serverT(requestLocale(c), ["common", "messages"]);
  const publicApi = isPublicApi(c);
  const body: Record<string, string> = { code: error.code, message: t(error.messageKey, error.values) };
  body[publicApi ? "request_id" : "requestId"] = c.get("requestId");
  const detailed = publicApi ? error.status < 500 : DETAILED.has(error.code);
  if (detailed && error.message !== error.code) body.detail = error.message;
  return c.json({ error: body }, error.status as 400, headers);
}

/** Not ready yet (starting) or no longer (draining): the caller may come back in a few seconds. */
export const serviceUnavailable = <E extends AppEnv>(c: Context<E>, headers: Record<string, string> = {}) =>
  errorResponse(c, new AppError("service_unavailable", "starting or stopping"), { "Retry-After": "5", ...headers });

/** No such route in a JSON area (an API, the webhooks). */
export const noRoute = <E extends AppEnv>(c: Context<E>) =>
  errorResponse(c, new AppError("not_found", `no route ${c.req.method} ${c.req.path}`));
