import { createHash, randomBytes } from "node:crypto";

/** Every secret starts with this, so a leaked key is recognisable (and secret scanners can match it). */
export const API_KEY_PREFIX = "atl_";
/** Characters of the secret kept in clear to tell keys apart: the prefix and 8 more. */
export const VISIBLE_LENGTH = API_KEY_PREFIX.length + 8;
export { MAX_API_KEYS, MAX_API_KEY_NAME } from "#common/api-keys.ts";

const SHAPE = /^atl_[A-Za-z0-9_-]{43}$/;

/** A new secret: 256 random bits, base64url. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** What is stored: SHA-256 of the secret (hex). With 256 bits of entropy a fast hash leaves nothing to guess. */
export function hashApiKey(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function looksLikeApiKey(value: string): boolean {
  return SHAPE.test(value);
}
