import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`
 * under the secret's bytes, one per secret, separated by spaces (a receiver accepts the message if any matches).
 */
export function signWebhook(options: { id: string; timestamp: number; body: string; secrets: string[] }): string {
  return options.secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
      const mac = createHmac("sha256", key)
        .update(`${options.id}.${options.timestamp}.${options.body}`)
        .digest("base64");
      return `v1,${mac}`;
    })
    .join(" ");
}
