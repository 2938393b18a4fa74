import type { Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";
import type { Env } from "#server/env.ts";

/**
 * How long a client may take to send a request: its headers within HEADERS_TIMEOUT_SECONDS, all of it within
 * REQUEST_TIMEOUT_SECONDS (a body trickling in a byte a second is cut with 408). Node checks the clocks every
 * `connectionsCheckingInterval`, kept short so that a limit is kept to within seconds.
 */
export function serverTimeouts(env: Env): ServerOptions {
  const requestTimeout = env.REQUEST_TIMEOUT_SECONDS * 1000;
  const headersTimeout = Math.min(env.HEADERS_TIMEOUT_SECONDS * 1000, requestTimeout);
  return {
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: Math.min(5_000, Math.ceil(headersTimeout / 2)),
  };
}

/**
 * Closes, at once and without an answer, a connection beyond `max` from one address, so that one client cannot hold
 * every socket. Behind a proxy every connection comes from the proxy, which is the one to bound them: the caller
 * leaves this off there.
 */
export function limitConnectionsPerAddress(server: Server, max: number) {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
