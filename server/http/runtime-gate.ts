import { createMiddleware } from "hono/factory";
import type { Runtime } from "#server/runtime.ts";
import type { ServerState } from "#server/http/state.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import { serviceUnavailable } from "#server/http/api-error.ts";

/** What the runtime gate gives the handlers behind it. */
export type RuntimeVariables = { runtime: Runtime };
export type RuntimeEnv = AppEnv & { Variables: RuntimeVariables };

/**
 * The gate in front of everything that needs the database, storage or queue: while the process is starting (the
 * runtime is not open yet) the answer is 503 with `Retry-After`; once it is open, handlers read `c.var.runtime`.
 */
export const runtimeReady = <E extends RuntimeEnv = RuntimeEnv>(state: ServerState) =>
  createMiddleware<E>(async (c, next) => {
    const runtime = state.runtime;
    if (!runtime) return serviceUnavailable(c);
    c.set("runtime", runtime);
    await next();
  });
