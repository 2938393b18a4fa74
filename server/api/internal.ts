import { Hono, type MiddlewareHandler } from "hono";
import type { AppEnv, ServerState } from "#server/http/app.ts";
import { sessionOf } from "#server/http/auth.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";

/**
 * The internal API the pages call with their session cookie. Every route needs a session (`signedIn`): without one
 * the answer is 401 with a code the browser turns into the right message (sign in first, or the session has expired).
 */
export function internalApi(state: ServerState) {
  const api = new Hono<AppEnv>();
  const signedIn: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (!state.runtime) {
      return c.json({ error: { code: "service_unavailable", message: "Service temporarily unavailable" } }, 503);
    }
    const session = await sessionOf(c, state);
    for (const cookie of session.setCookies) c.header("Set-Cookie", cookie, { append: true });
    if (!session.viewer) {
      return session.expired
        ? c.json(
            { error: { code: "session_expired", message: "Your login session has expired, please log in again" } },
            401,
          )
        : c.json({ error: { code: "unauthorized", message: "Please login first" } }, 401);
    }
    c.set("viewer", session.viewer);
    return next();
  };

  api.get("/me", signedIn, async (c) => {
    const viewer = c.get("viewer")!;
    const credits = await getBalance(state.runtime!.database.db, viewer.id);
    return c.json({ user: viewer, credits });
  });

  return api;
}
