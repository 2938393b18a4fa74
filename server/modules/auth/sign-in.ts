import { resetRateLimit } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { answerFloor, authErrorCode, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS } from "./policy.ts";

export type SignInResult =
  | { ok: true; cookies: Headers; preferredLocale: string | null }
  | RateLimited
  | { ok: false; reason: "invalid_credentials" | "email_not_verified" | "banned" | "failed" };

/**
 * Signs in with an e-mail address and a password. Attempts are limited per address and per account; a success
 * clears the account's count. Refusals never answer faster than the floor, so their timing tells nothing.
 */
export async function signIn(options: AuthAttempt & { email: string; password: string }): Promise<SignInResult> {
  const started = Date.now();
  const limited = await countAttempt(options.db, [
    { key: `sign-in:ip:${options.clientIp}`, rule: RATE_LIMITS.signInPerIp },
    { key: `sign-in:email:${options.email}`, rule: RATE_LIMITS.signInPerEmail },
  ]);
  if (limited) {
    await answerFloor(started, options.floorMs);
    return limited;
  }
  try {
    const { headers, response } = await options.auth.api.signInEmail({
      body: { email: options.email, password: options.password, rememberMe: true },
      headers: options.headers,
      returnHeaders: true,
    });
    await resetRateLimit({ db: options.db, key: `sign-in:email:${options.email}` });
    const preferredLocale = (response.user as { locale?: string | null }).locale ?? null;
    return { ok: true, cookies: headers, preferredLocale };
  } catch (error) {
    const code = authErrorCode(error);
    await answerFloor(started, options.floorMs);
    if (code === "EMAIL_NOT_VERIFIED") return { ok: false, reason: "email_not_verified" };
    if (code === "BANNED_USER") return { ok: false, reason: "banned" };
    if (code === "INVALID_EMAIL_OR_PASSWORD" || code === "INVALID_EMAIL") {
      return { ok: false, reason: "invalid_credentials" };
    }
    options.logger.error({ err: (error as Error).message, code }, "sign-in failed");
    return { ok: false, reason: "failed" };
  }
}
