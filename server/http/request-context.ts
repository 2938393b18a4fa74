import { randomUUID } from "node:crypto";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { Logger } from "pino";
import type { Env } from "#server/env.ts";
import { recordRequest } from "#server/metrics.ts";
import { clientIp } from "#server/http/client-ip.ts";
import type { ResolvedSession } from "#server/modules/auth/resolve-session.ts";

/** What every request carries, set by `requestContext` before anything else runs. */
export type RequestVariables = {
  requestId: string;
  /** The request's logger, bound to its id. */
  logger: Logger;
  clientIp: string;
  /** The route name the metrics record (`page`, `media`…); by default the matched path. */
  route?: string;
  /** Made by `nonceFor` when a page is rendered; answers that render no page have none. */
  nonce?: string;
  /** The answer was built with every header it needs (request id, security): the middlewares leave it be. */
  headersComplete?: boolean;
  /** The answer's 5xx status is the designed one (readiness while starting or draining): not logged as a failure. */
  expectedFailure?: boolean;
};

/** The environment of the whole application: the request's context, and its session once looked up. */
export type AppEnv = { Variables: RequestVariables & SessionVariables };

/** The session of the request, looked up once by `sessionOf` (`server/http/auth.ts`) and kept here. */
export type SessionVariables = { session?: ResolvedSession };

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The first middleware: the request's id (the caller's `X-Request-Id` when it is a sane one), its logger and client
 * address; once answered, its metrics, and a warning for an unexpected failure.
 */
export function requestContext(options: { env: Env; logger: Logger }) {
  const debugLogs = options.logger.isLevelEnabled("debug");
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = process.hrtime.bigint();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    c.set("logger", lazyChild(options.logger, requestId));
    c.set("clientIp", clientIp(c, options.env));
    await next();
    if (!c.get("headersComplete")) c.res.headers.set("X-Request-Id", requestId);
    const route = c.get("route") ?? routePath(c);
    // A client that left before its answer (its connection closed) ends the work it asked for: React Router answers
    // such a page with its error page. Neither a failure to log nor a 500 to count: 499, as proxies record it.
    const gone = c.req.raw.signal.aborted;
    const status = gone ? 499 : c.res.status;
    recordRequest(c.req.method, route, status, started);
    if (status >= 500 && !c.get("expectedFailure")) {
      c.get("logger").warn({ method: c.req.method, path: c.req.path, status }, "request failed");
    } else if (debugLogs) {
      c.get("logger").debug({ method: c.req.method, path: c.req.path, status: c.res.status }, "request");
    }
  });
}

/**
 * The request's logger, made on first use: most answers log nothing, and a pino child costs a serialisation of its
 * bindings and a redaction set-up.
 */
function lazyChild(logger: Logger, requestId: string): Logger {
  let child: Logger | undefined;
  return new Proxy({} as Logger, {
    get(_, property) {
      child ??= logger.child({ requestId });
      const value = Reflect.get(child, property, child) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(child) : value;
    },
  });
}
