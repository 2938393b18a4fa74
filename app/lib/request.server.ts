import { data, type RouterContext } from "react-router";
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

const BAD_REQUEST = { status: 400, statusText: "Bad Request" };

/**
 * The form a page action was sent. Any other body (JSON, text, none at all, a multipart body that does not parse) is
 * the sender's mistake: a 400 with the error page, thrown from the action so that the page around it still renders
 * in its language, never an error of ours with a stack in the log. Every page action reads its form through this.
 */
export async function formOf(request: Request): Promise<FormData> {
  const type = request.headers.get("content-type")?.split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") throw data(null, BAD_REQUEST);
  try {
    return await request.formData();
  } catch {
    throw data(null, BAD_REQUEST);
  }
}
