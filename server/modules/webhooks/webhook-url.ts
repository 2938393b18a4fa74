import type { Env } from "#server/env.ts";
import { AppError } from "#server/errors.ts";
import { checkOutboundUrlStatically, OutboundError, type OutboundPolicy } from "#server/net/outbound.ts";

export const WEBHOOK_URL_MAX = 2048;

/** Where webhooks may go: the public internet over https, or anywhere when the operator allows private networks. */
export function webhookPolicy(env: Pick<Env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS">): OutboundPolicy {
  return env.WEBHOOK_ALLOW_PRIVATE_NETWORKS ? { allowHttp: true, allowAddress: () => true } : {};
}

/**
 * Checks a webhook URL when a request brings it: its form, and that it does not name a local or private address
 * outright. Host names are resolved, and checked again, at every delivery (an answer may change in between).
 */
export function checkWebhookUrl(raw: string, env: Pick<Env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS">): string {
  if (raw.length > WEBHOOK_URL_MAX) throw new AppError("webhook_url_refused", `longer than ${WEBHOOK_URL_MAX}`);
  try {
    return checkOutboundUrlStatically(raw, webhookPolicy(env)).href;
  } catch (error) {
    if (error instanceof OutboundError) throw new AppError("webhook_url_refused", error.message);
    throw error;
  }
}
