import { Hono } from "hono";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";
import { meRoutes } from "./me.ts";
import { generationRoutes } from "./generations.ts";
import { keyRoutes } from "./keys.ts";
import { chatRoutes } from "./chat.ts";

/**
 * The internal API the pages call with their session cookie, one sub-app per resource. Every route is behind
 * `signedIn` (the runtime gate, then the session); an AppError a handler throws is answered by the application's
 * `onError`, in the one JSON error shape.
 */
export function internalApi(state: ServerState) {
  return new Hono<AppEnv>()
    .route("/", meRoutes(state))
    .route("/", generationRoutes(state))
    .route("/", keyRoutes(state))
    .route("/", chatRoutes(state));
}
