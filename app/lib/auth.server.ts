import { data, redirect } from "react-router";
import { isAPIError } from "better-auth/api";
import { pathLocale, serverContextOf, signInUrl, type Ctx } from "#app/lib/request.server.ts";
import { consumeRateLimits, type RateLimitRule } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { verifyTurnstile } from "#server/modules/auth/verify-turnstile.ts";
import { AUTH_ANSWER_FLOOR_MS } from "#server/modules/auth/policy.ts";
import { isLocale, pathFor, stripLocale } from "#common/locales.ts";
import { safeReturnPath } from "#common/return-path.ts";

/**
 * The signed-in user with what their page's loader or action works with (the runtime and its database), or a trip
 * to sign-in that comes back to this page (saying why when the session expired).
 */
export function requireViewer(context: Ctx, request: Request) {
  const { session, runtime } = serverContextOf(context);
  if (!session.viewer) {
    const url = new URL(request.url);
    throw redirect(signInUrl(request, `${url.pathname}${url.search}`, session.expired ? "expired" : undefined));
  }
  return { viewer: session.viewer, runtime, db: runtime.database.db };
}

/** As requireViewer, for administrators only: anyone else gets the 403 page. */
export function requireAdmin(context: Ctx, request: Request) {
  const signedIn = requireViewer(context, request);
  if (signedIn.viewer.role !== "admin") throw data({ messageKey: "error.403" }, { status: 403 });
  return signedIn;
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
  const { runtime } = serverContextOf(context);
  const result = await consumeRateLimits(runtime.database.db, checks);
  if (result.allowed) return null;
  return { formError: "error.tooMany", minutes: Math.max(1, Math.ceil(result.retryAfter / 60)) };
}

/** The bot check, when Turnstile is configured. */
export async function botCheckPassed(context: Ctx, form: FormData) {
  const { runtime, clientIp } = serverContextOf(context);
  return verifyTurnstile({
    secret: runtime.env.TURNSTILE_SECRET_KEY,
    verifyUrl: runtime.env.TURNSTILE_VERIFY_URL,
    token: form.get("cf-turnstile-response") as string | null,
    ip: clientIp,
    logger: runtime.logger,
  });
}
