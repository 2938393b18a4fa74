import type { Logger } from "pino";

export interface VerifyTurnstileOptions {
  secret: string | undefined;
  verifyUrl: string;
  token: string | null | undefined;
  ip: string;
  logger: Logger;
}

/**
 * Checks a Turnstile token with Cloudflare. No secret configured: nothing to check. A token that is missing,
 * rejected or cannot be checked fails closed: the form asks the visitor to try again.
 */
export async function verifyTurnstile({ secret, verifyUrl, token, ip, logger }: VerifyTurnstileOptions) {
  if (!secret) return true;
  if (!token || token.length > 2048) return false;
  try {
    const response = await fetch(verifyUrl, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ secret, response: token, remoteip: ip }),
      signal: AbortSignal.timeout(10_000),
    });
    const result = (await response.json()) as { success?: boolean; "error-codes"?: string[] };
    if (!result.success) logger.info({ codes: result["error-codes"] }, "bot check rejected");
    return result.success === true;
  } catch (error) {
    logger.warn({ err: (error as Error).message }, "bot check could not be verified");
    return false;
  }
}
