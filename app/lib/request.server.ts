import type { RouterContext } from "react-router";
import { serverContext } from "#app/server-context.server.ts";
import { requestInfoContext } from "#app/context.ts";
import { localeOfPath, pathFor } from "#common/locales.ts";
import { signInHref } from "#common/return-path.ts";

/** What a loader or action is given as its context. */
export type Ctx = { get: <T>(ctx: RouterContext<T>) => T };

/** The server's per-request context: runtime, session, client address, authentication headers. */
export function serverContextOf(context: Ctx) {
  return context.get(serverContext);
}

/** The site's public configuration (name, URL, support address, sign-up bonus…). */
export function siteOf(context: Ctx) {
  return context.get(requestInfoContext).site;
}

/** The language of this request's URL. */
export const pathLocale = (request: Request) => localeOfPath(new URL(request.url).pathname);

/** A path in this request's language, keeping its prefix style. */
export function localizedPath(request: Request, to: string) {
  return pathFor(new URL(request.url).pathname, to);
}

/** The sign-in page for this request's language, returning to `returnTo` afterwards. */
export function signInUrl(request: Request, returnTo: string, reason?: "expired") {
  return signInHref(new URL(request.url).pathname, returnTo, reason);
}
