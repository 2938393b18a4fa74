import { OpenAPIHono } from "@hono/zod-openapi";
import type { RuntimeEnv } from "#server/http/runtime-gate.ts";
import { errorResponse } from "#server/http/api-error.ts";
import { requestError } from "#server/errors.ts";

/** What every public API request may carry once its key was looked at. */
export type ApiEnv = RuntimeEnv & {
  Variables: {
    /** The rate-limit headers of the request's key, for its answer (set once the key was counted). */
    apiLimits?: Record<string, string>;
    /** The request failed validation: its handler never ran, so an idempotency key keeps no answer for it. */
    invalidRequest?: boolean;
  };
};
/** A request whose key was verified and counted: its owner, and the key (what it starts is told by its key). */
export type KeyEnv = ApiEnv & { Variables: { apiUserId: string; apiKeyId: string } };
/** A request whose handler checks the key itself, in the statement that reads what it asks for. */
export type BearerEnv = ApiEnv & { Variables: { apiBearer: string } };

/**
 * A sub-app of the public API. A request that fails its route's schema is refused naming the field: `unknown_field`
 * (400) for a field it does not take, `prompt_invalid` for the prompt, `invalid_options` for any other.
 */
export function apiApp() {
  return new OpenAPIHono<ApiEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      c.set("invalidRequest", true);
      return errorResponse(c, requestError(result.error.issues[0]));
    },
  });
}
