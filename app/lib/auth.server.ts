import { data, redirect, type RouterContext } from "react-router";
import { isAPIError } from "better-auth/api";
import { serverContext } from "#app/server-context.server.ts";
import { requestInfoContext } from "#app/context.ts";
import { consumeRateLimits, type RateLimitRule } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { verifyTurnstile } from "#server/modules/auth/verify-turnstile.ts";
import { AUTH_ANSWER_FLOOR_MS } from "#server/modules/auth/policy.ts";
import {
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_SECONDS,
  isLocale,
  localeOfPath,
  pathFor,
  stripLocale,
  type Locale,
} from "#common/locales.ts";
import { safeReturnPath, signInHref } from "#common/return-path.ts";
import type { Viewer } from "#common/viewer.ts";
import { FLASH_COOKIE, type FlashKey } from "#common/flash.ts";

type Ctx = { get: <T>(ctx: RouterContext<T>) => T };

export function server(context: Ctx) {
  return context.get(serverContext);
}

export const pathLocale = (request: Request) => localeOfPath(new URL(request.url).pathname);

/** The sign-in page for this request's language, returning to `returnTo` afterwards. */
export function signInUrl(request: Request, returnTo: string, reason?: "expired") {
  return signInHref(new URL(request.url).pathname, returnTo, reason);
}

/** The signed-in user, or a trip to sign-in that comes back to this page (saying why when the session expired). */
export function requireViewer(context: Ctx, request: Request): Viewer {
  const { session } = server(context);
  if (session.viewer) return session.viewer;
  const url = new URL(request.url);
  throw redirect(signInUrl(request, `${url.pathname}${url.search}`, session.expired ? "expired" : undefined));
}

export function requireAdmin(context: Ctx, request: Request): Viewer {
  const viewer = requireViewer(context, request);
  if (viewer.role !== "admin") throw data({ messageKey: "error.403" }, { status: 403 });
  return viewer;
}

/** A cookie that makes the next page show one toast. */
export function flashCookie(key: FlashKey) {
  return `${FLASH_COOKIE}=${key}.${Date.now().toString(36)}; Path=/; Max-Age=60; SameSite=Lax`;
}

export function localeCookie(locale: Locale) {
  return `${LOCALE_COOKIE}=${locale}; Path=/; Max-Age=${LOCALE_COOKIE_MAX_AGE_SECONDS}; SameSite=Lax`;
}

/** Where to go after signing in: the safe return path, in the user's preferred language when they have one. */
export function afterSignIn(returnTo: unknown, preferred: string | null | undefined, request: Request) {
  const path = safeReturnPath(returnTo);
  const locale = isLocale(preferred) ? preferred : pathLocale(request);
  const url = new URL(path, "http://x");
  return {
    locale,
    to: `${pathFor(new URL(request.url).pathname, stripLocale(url.pathname), locale)}${url.search}${url.hash}`,
  };
}

/** Copies the Set-Cookie headers of a better-auth answer. */
export function cookiesOf(headers: Headers | undefined, into = new Headers()) {
  for (const cookie of headers?.getSetCookie() ?? []) into.append("Set-Cookie", cookie);
  return into;
}

/** better-auth's error code, if that is what was thrown. */
export function authErrorCode(error: unknown): string | undefined {
  if (!isAPIError(error)) return undefined;
  const body = error.body as { code?: string } | undefined;
  return body?.code ?? String(error.status);
}

/** Waits until `floor` ms have passed since `started`, so that fast and slow paths answer alike. */
export async function answerFloor(started: number, floor = AUTH_ANSWER_FLOOR_MS) {
  const left = started + floor - Date.now();
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}

export interface Limited {
  formError: "error.tooMany";
  minutes: number;
}

/** Counts this attempt against each rule; the answer when one is exceeded. */
export async function limit(
  context: Ctx,
  checks: Array<{ key: string; rule: RateLimitRule }>,
): Promise<Limited | null> {
  const { runtime } = server(context);
  const result = await consumeRateLimits(runtime.database.db, checks);
  if (result.allowed) return null;
  return { formError: "error.tooMany", minutes: Math.max(1, Math.ceil(result.retryAfter / 60)) };
}

/** The bot check, when Turnstile is configured. */
export async function botCheckPassed(context: Ctx, form: FormData) {
  const { runtime, clientIp } = server(context);
  return verifyTurnstile({
    secret: runtime.env.TURNSTILE_SECRET_KEY,
    verifyUrl: runtime.env.TURNSTILE_VERIFY_URL,
    token: form.get("cf-turnstile-response") as string | null,
    ip: clientIp,
    logger: runtime.logger,
  });
}

export function siteOf(context: Ctx) {
  return context.get(requestInfoContext).site;
}

/** A path in this request's language, keeping its prefix style. */
export function here(request: Request, to: string) {
  return pathFor(new URL(request.url).pathname, to);
}
