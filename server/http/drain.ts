import type { Context, MiddlewareHandler } from "hono";
import { serviceUnavailable } from "#server/http/api-error.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";

/**
 * The HTTP side of a drain. While the process is draining, every answer carries `Connection: close`, so that a client
 * holding a kept-alive connection opens its next one anew (and its load balancer sends it to a process that stays).
 * Once the port is closed, a request that still arrives on an open connection is not worked: 503 with `Retry-After`,
 * in the same shape as while starting. `/readyz` keeps giving its own answer (`draining`).
 */
export function drainConnections(state: ServerState): MiddlewareHandler<AppEnv> {
  const draining: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (state.closed && c.req.path !== "/readyz") {
      c.set("expectedFailure", true);
      return serviceUnavailable(c, { Connection: "close" });
    }
    await next();
    closeAfterAnswer(c);
  };
  // While serving normally, no extra promise per request: straight on.
  return (c, next) => (state.draining ? draining(c, next) : next());
}

function closeAfterAnswer(c: Context<AppEnv>) {
  try {
    c.res.headers.set("Connection", "close");
  } catch {
    // Headers of a response made elsewhere may be immutable: the same answer, with headers of its own.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set("Connection", "close");
  }
}
