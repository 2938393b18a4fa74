import { createMiddleware } from "hono/factory";
import type { Viewer } from "#common/viewer.ts";
import type { ServerState } from "#server/http/state.ts";
import { runtimeReady, type RuntimeEnv } from "#server/http/runtime-gate.ts";
import { sessionOf } from "#server/http/auth.ts";
import { AppError } from "#server/errors.ts";

/** What the internal API's handlers are given: the ready runtime and the signed-in viewer. */
export type SignedInEnv = RuntimeEnv & { Variables: { viewer: Viewer } };

/**
 * The guard of every internal route: the runtime gate, then the session. Without a session the answer is 401 with a
 * code the browser turns into the right message (sign in first, or the session has expired).
 */
export function signedIn(state: ServerState) {
  const ready = runtimeReady<SignedInEnv>(state);
  return createMiddleware<SignedInEnv>((c, next) =>
    ready(c, async () => {
      const session = await sessionOf(c);
      for (const cookie of session.setCookies) c.header("Set-Cookie", cookie, { append: true });
      if (!session.viewer) throw new AppError(session.expired ? "session_expired" : "unauthorized");
      c.set("viewer", session.viewer);
      await next();
    }),
  );
}

/** The body of a JSON request, or `bad_request`. */
export async function jsonBody(c: { req: { json(): Promise<unknown> } }): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new AppError("bad_request", "the body is not JSON");
  }
}
