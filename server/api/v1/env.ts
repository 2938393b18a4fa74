import { OpenAPIHono } from "@hono/zod-openapi";
import type { RuntimeEnv } from "#server/http/runtime-gate.ts";
import { errorResponse } from "#server/http/api-error.ts";
import { AppError } from "#server/errors.ts";

/** What every public API request may carry once its key was looked at. */
export type ApiEnv = RuntimeEnv & {
  Variables: {
    /** The rate-limit headers of the request's key, for its answer (set once the key was counted). */
    apiLimits?: Record<string, string>;
    /** The request failed validation: its handler never ran, so an idempotency key keeps no answer for it. */
    invalidRequest?: boolean;
  };
};
/** A request whose key was verified and counted: its owner. */
export type KeyEnv = ApiEnv & { Variables: { apiUserId: string } };
/** A request whose handler checks the key itself, in the statement that reads what it asks for. */
export type BearerEnv = ApiEnv & { Variables: { apiBearer: string } };

/**
 * A sub-app of the public API. A request that fails its route's schema is `invalid_options` (`prompt_invalid` for
 * the prompt), naming the field.
 */
export function apiApp() {
  return new OpenAPIHono<ApiEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const field = issue?.path.join(".") ?? "";
      const code = field === "prompt" ? "prompt_invalid" : "invalid_options";
      c.set("invalidRequest", true);
      return errorResponse(c, new AppError(code, `${field || "request"}: ${issue?.message ?? "invalid"}`));
    },
  });
}
