import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "#server/http/app.ts";
import { matchLocale } from "#server/http/locale.ts";
import { AppError } from "#server/errors.ts";
import { serverT } from "#server/i18n/translations.ts";
import { isLocale, LOCALE_COOKIE, type Locale } from "#common/locales.ts";

/** The language of an API answer: the page's (`X-Locale`, sent by the pages), the locale cookie, then the browser's. */
export function requestLocale(c: Context<AppEnv>): Locale {
  const asked = c.req.header("x-locale");
  if (isLocale(asked)) return asked;
  const cookie = getCookie(c, LOCALE_COOKIE);
  if (isLocale(cookie)) return cookie;
  return matchLocale(c.req.header("accept-language"));
}

/** Codes whose detail tells the caller which field is wrong; the others keep their detail in the log only. */
const DETAILED = new Set([
  "invalid_options",
  "prompt_invalid",
  "idempotency_mismatch",
  "input_url_refused",
  "input_url_failed",
]);

/**
 * An error as JSON: a stable code, the catalogue message in the caller's language, the request id to quote to
 * support and, where it helps a developer, which field was wrong.
 */
export function errorResponse(c: Context<AppEnv>, error: AppError): Response {
  const t = serverT(requestLocale(c), ["common", "messages"]);
  const body: { code: string; message: string; requestId: string; detail?: string } = {
    code: error.code,
    message: t(error.messageKey),
    requestId: c.get("requestId"),
  };
  if (DETAILED.has(error.code) && error.message !== error.code) body.detail = error.message;
  return c.json({ error: body }, error.status as 400);
}

/** Runs a handler, answering an AppError with its JSON; anything else goes on to the app's error handler. */
export async function answering(c: Context<AppEnv>, handler: () => Promise<Response>): Promise<Response> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof AppError) return errorResponse(c, error);
    throw error;
  }
}
