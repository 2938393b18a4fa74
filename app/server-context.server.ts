import { createContext } from "react-router";
import type { Runtime } from "#server/runtime.ts";
import type { ResolvedSession } from "#server/modules/auth/resolve-session.ts";

/** Server-only: what loaders and actions use to reach the modules, and who is asking. */
export interface ServerContext {
  runtime: Runtime;
  session: ResolvedSession;
  clientIp: string;
  /** The request's headers with the trusted client address, as better-auth calls need them. */
  authHeaders: Headers;
}

export const serverContext = createContext<ServerContext>();
