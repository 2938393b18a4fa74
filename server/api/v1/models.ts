import type { ServerState } from "#server/http/state.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import { apiKey } from "./authenticate.ts";
import { apiApp } from "./env.ts";
import { presentModel } from "./present.ts";
import { routes } from "./routes.ts";
import type { ApiLimits } from "#server/modules/api-keys/verify-api-key.ts";

/** `/models`: what this server offers, with prices and options. */
export function modelsApi(state: ServerState, options: { limits: ApiLimits }) {
  return apiApp().openapi({ ...routes.models, middleware: apiKey(state, options) }, (c) =>
    c.json(
      {
        object: "list" as const,
        data: listModels(c.var.runtime.models).map(presentModel),
      },
      200,
    ),
  );
}
