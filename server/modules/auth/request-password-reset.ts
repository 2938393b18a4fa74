import { answerFloor, authErrorCode, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS } from "./policy.ts";

/**
 * Sends a password reset link to the address if it has an account. The answer is the same, in the same time,
 * whether or not it has one; requests are limited per client address and per e-mail address.
 */
export async function requestPasswordReset(o: AuthAttempt & { email: string }): Promise<{ ok: true } | RateLimited> {
  const started = Date.now();
  const limited = await countAttempt(o.db, [
    { key: `reset:ip:${o.clientIp}`, rule: RATE_LIMITS.resetPerIp },
    { key: `reset:email:${o.email}`, rule: RATE_LIMITS.resetPerEmail },
  ]);
  if (limited) {
    await answerFloor(started, o.floorMs);
    return limited;
  }
  await o.auth.api.requestPasswordReset({ body: { email: o.email }, headers: o.headers }).catch((error: unknown) => {
    o.logger.error({ code: authErrorCode(error) }, "password reset request failed");
  });
  await answerFloor(started, o.floorMs);
  return { ok: true };
}
