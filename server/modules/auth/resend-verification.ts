import { answerFloor, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS } from "./policy.ts";

/**
 * Sends the address's confirmation link again. The answer is the same, in the same time, whether or not the
 * address has an account waiting for confirmation; attempts are limited per address and per client.
 */
export async function resendVerification(
  options: AuthAttempt & { email: string },
): Promise<{ ok: true } | RateLimited> {
  const started = Date.now();
  const limited = await countAttempt(options.db, [
    { key: `verify:ip:${options.clientIp}`, rule: RATE_LIMITS.verifyPerIp },
    { key: `verify:email:${options.email}`, rule: RATE_LIMITS.verifyPerEmail },
  ]);
  if (limited) return limited;
  await options.auth.api
    .sendVerificationEmail({ body: { email: options.email }, headers: options.headers })
    .catch(() => undefined);
  await answerFloor(started, options.floorMs);
  return { ok: true };
}
