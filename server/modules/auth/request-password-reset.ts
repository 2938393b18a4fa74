import { answerFloor, authErrorCode, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS } from "./policy.ts";

/**
 * Sends a password reset link to the address if it has an account. The answer is the same, in the same time,
 * whether or not it has one; requests are limited per client address and per e-mail address.
 */
export async function requestPasswordReset(
  options: AuthAttempt & { email: string },
): Promise<{ ok: true } | RateLimited> {
  const started = Date.now();
  const limited = await countAttempt(options.db, [
    { key: `reset:ip:${options.clientIp}`, rule: RATE_LIMITS.resetPerIp },
    { key: `reset:email:${options.email}`, rule: RATE_LIMITS.resetPerEmail },
  ]);
  if (limited) {
    await answerFloor(started, options.floorMs);
    return limited;
  }
  await options.auth.api
    .requestPasswordReset({ body: { email: options.email }, headers: options.headers })
    .catch((error: unknown) => {
      options.logger.error({ code: authErrorCode(error) }, "password reset request failed");
    });
  await answerFloor(started, options.floorMs);
  return { ok: true };
}
