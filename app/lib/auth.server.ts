import { data, redirect } from "react-router";
import { pathLocale, serverContextOf, signInUrl, type Ctx } from "#app/lib/request.server.ts";
import type { AuthAttempt, RateLimited } from "#server/modules/auth/attempts.ts";
import type { AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { verifyTurnstile } from "#server/modules/auth/verify-turnstile.ts";
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

/**
 * As requireViewer, for administrators only: anyone else gets the 403 page. With the administrator as the audit
 * log's actor (their account and the address they act from).
 */
export function requireAdmin(context: Ctx, request: Request) {
  const signedIn = requireViewer(context, request);
  if (signedIn.viewer.role !== "admin") throw data({ messageKey: "error.403" }, { status: 403 });
  const actor: AdminActor = {
    id: signedIn.viewer.id,
    label: signedIn.viewer.email,
    ip: serverContextOf(context).clientIp,
  };
  return { ...signedIn, actor };
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

/** What the sign-in forms' use cases are given from this request. */
export function authAttemptOf(context: Ctx): AuthAttempt {
  const { runtime, authHeaders, clientIp } = serverContextOf(context);
  return { auth: runtime.auth, db: runtime.database.db, logger: runtime.logger, headers: authHeaders, clientIp };
}

/** The form's message for a refusal after too many attempts. */
export const tooMany = (limited: RateLimited) => ({ formError: "error.tooMany" as const, minutes: limited.minutes });

/** The status and `Retry-After` of an answer refused for too many attempts. */
export const retryLater = (limited: Pick<RateLimited, "retryAfter">) => ({
  status: 429,
  headers: { "Retry-After": String(limited.retryAfter) },
});

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
