import type { OpenAPIHono } from "@hono/zod-openapi";
import { WEBHOOK_EVENTS } from "#server/db/schema/webhooks.ts";
import { WEBHOOK_MAX_ATTEMPTS } from "#server/modules/webhooks/queue-webhook.ts";
import { WEBHOOK_TIMEOUT_MS } from "#server/modules/webhooks/deliver-webhook.ts";
import type { ApiEnv } from "./env.ts";
import { WebhookEventSchema, WebhookHeaders } from "./schemas.ts";

export const API_VERSION = "1.0.0";

/** The document's own fields; its operations and schemas come from the routes registered on the application. */
export const documentFields = (origin: string) => ({
  openapi: "3.1.0",
  info: {
    title: "Atelier API",
    version: API_VERSION,
    description:
      "Create images and videos with the models of this server, spending your account's credits. Authenticate with `Authorization: Bearer <API key>`. Errors are JSON with a stable `code`. Each key, and each account over all its keys, may make a limited number of requests per minute (`RateLimit` and `RateLimit-Policy` headers; `429` with `Retry-After` beyond it). POST requests accept an `Idempotency-Key`. Give a generation a `webhook_url` to be told when it ends (see Webhooks).",
  },
  servers: [{ url: `${origin}/api/v1` }],
});

/**
 * What the OpenAPI document says beyond the operations: how to authenticate (`bearer`), and the webhooks a
 * generation's `webhook_url` receives.
 */
export function describeApi(api: OpenAPIHono<ApiEnv>) {
  api.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key made on the API keys page of the dashboard (`atl_…`).",
  });
  const whenEnded = {
    "generation.succeeded": "A generation succeeded: `data.outputs` holds its files.",
    "generation.failed": "A generation failed: `data.error` says why; its credits were returned.",
    "generation.canceled": "A generation was canceled; its credits were returned.",
  } as const;
  for (const event of WEBHOOK_EVENTS) {
    api.openAPIRegistry.registerWebhook({
      method: "post",
      path: event,
      tags: ["Webhooks"],
      summary: event,
      description: `${whenEnded[event]} Sent to the \`webhook_url\` of the request that created the generation, signed the Standard Webhooks way with your signing secret (API keys page). Answer 2xx within ${WEBHOOK_TIMEOUT_MS / 1000} seconds; any other answer, a redirect or no answer is retried ${WEBHOOK_MAX_ATTEMPTS - 1} times, each wait about twice the one before (at most an hour), within a day. A generation deleted before it ends sends nothing.`,
      request: {
        headers: WebhookHeaders,
        body: { required: true, content: { "application/json": { schema: WebhookEventSchema } } },
      },
      responses: { 200: { description: "Any 2xx answer acknowledges the message." } },
    });
  }
}
