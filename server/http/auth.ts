import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "#server/http/request-context.ts";
import type { RuntimeEnv } from "#server/http/runtime-gate.ts";
import { errorResponse, noRoute } from "#server/http/api-error.ts";
import { AppError } from "#server/errors.ts";
import { CLIENT_IP_HEADER } from "#server/modules/auth/policy.ts";
import { resolveSession, type ResolvedSession } from "#server/modules/auth/resolve-session.ts";

/** The request's headers as better-auth should see them: with our idea of the client's address, not the client's. */
export function authHeaders(headers: Headers, ip: string): Headers {
  const copy = new Headers(headers);
  copy.set(CLIENT_IP_HEADER, ip);
  return copy;
}

/** better-auth endpoints reachable over HTTP: the OAuth returns and session reads. Forms go through page actions. */
const OPEN_AUTH_PATHS = [
  /^\/api\/auth\/callback\/[\w-]+$/,
  /^\/api\/auth\/get-session$/,
  /^\/api\/auth\/ok$/,
  /^\/api\/auth\/error$/,
];

export const authRoutes: MiddlewareHandler<RuntimeEnv> = async (c) => {
  if (!OPEN_AUTH_PATHS.some((p) => p.test(c.req.path))) {
    return noRoute(c);
  }
  const raw = c.req.raw;
  const request = new Request(raw.url, {
    method: raw.method,
    headers: authHeaders(raw.headers, c.get("clientIp")),
    body: raw.method === "GET" || raw.method === "HEAD" ? undefined : await raw.arrayBuffer(),
  });
  return c.var.runtime.auth.handler(request);
};

/** The session of this request, looked up once. */
export async function sessionOf<E extends RuntimeEnv>(c: Context<E>): Promise<ResolvedSession> {
  const known = c.get("session");
  if (known) return known;
  const runtime = c.var.runtime;
  const resolved = await resolveSession({
    auth: runtime.auth,
    db: runtime.database.db,
    headers: authHeaders(c.req.raw.headers, c.get("clientIp")),
  });
  c.set("session", resolved);
  return resolved;
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Cookie-authenticated writes must come from our own pages: a browser says where a request comes from in
 * Sec-Fetch-Site, or at least in Origin. Requests with neither come from programs, not from a victim's browser.
 */
export function sameOriginWrites(siteUrl: string): MiddlewareHandler<AppEnv> {
  const siteOrigin = new URL(siteUrl).origin;
  return async (c, next) => {
    if (!UNSAFE.has(c.req.method)) return next();
    const fetchSite = c.req.header("sec-fetch-site");
    const origin = c.req.header("origin");
    const requestOrigin = new URL(c.req.url).origin;
    const forwardedHost = c.req.header("host");
    const hostOrigin = forwardedHost ? `${new URL(c.req.url).protocol}//${forwardedHost}` : requestOrigin;
    let allowed: boolean;
    if (fetchSite) allowed = fetchSite === "same-origin" || fetchSite === "none";
    else if (origin) allowed = origin === requestOrigin || origin === hostOrigin || origin === siteOrigin;
    else allowed = true;
    if (!allowed) {
      return errorResponse(c, new AppError("forbidden", "cross-site request"));
    }
    return next();
  };
}
