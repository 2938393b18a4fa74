import type { Context } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Env } from "#server/env.ts";

/**
 * The client's address: the socket's peer, or the header a reverse proxy writes when CLIENT_IP_HEADER names one.
 * For a list (X-Forwarded-For) the last entry is the one our proxy added; earlier ones are the client's to forge.
 */
export function clientIp(c: Context, env: Env): string {
  if (env.CLIENT_IP_HEADER) {
    const value = c.req.header(env.CLIENT_IP_HEADER);
    const last = value?.split(",").at(-1)?.trim();
    if (last) return last.slice(0, 64);
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
