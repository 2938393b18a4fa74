import { Hono } from "hono";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import { signedIn } from "./signed-in.ts";

/** `/api/me` (the viewer and their credits) and `/api/models` (what the studios offer). */
export function meRoutes(state: ServerState) {
  const guard = signedIn(state);
  return new Hono<AppEnv>()
    .get("/me", guard, async (c) => {
      const credits = await getBalance({ db: c.var.runtime.database.db, userId: c.var.viewer.id });
      return c.json({ user: c.var.viewer, credits });
    })
    .get("/models", guard, (c) =>
      c.json({ models: listModels(c.var.runtime.models, { admin: c.var.viewer.role === "admin" }) }),
    );
}
