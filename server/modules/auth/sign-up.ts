import { answerFloor, authErrorCode, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS } from "./policy.ts";

export type SignUpResult = { ok: true } | RateLimited | { ok: false; reason: "failed" };

/**
 * Creates an account waiting for its address to be confirmed, and sends the confirmation link (which returns to
 * `returnTo`). A taken address gets the same answer in the same time (its owner is told by e-mail), so sign-up
 * reveals no accounts. Sign-ups are limited per client address.
 */
export async function signUp(
  options: AuthAttempt & { name: string; email: string; password: string; locale: string; returnTo: string },
): Promise<SignUpResult> {
  const started = Date.now();
  const limited = await countAttempt(options.db, [
    { key: `sign-up:ip:${options.clientIp}`, rule: RATE_LIMITS.signUpPerIp },
  ]);
  if (limited) return limited;
  try {
    await options.auth.api.signUpEmail({
      body: {
        name: options.name,
        email: options.email,
        password: options.password,
        locale: options.locale,
        callbackURL: options.returnTo,
      },
      headers: options.headers,
    });
  } catch (error) {
    options.logger.error({ err: (error as Error).message, code: authErrorCode(error) }, "sign-up failed");
    await answerFloor(started, options.floorMs);
    return { ok: false, reason: "failed" };
  }
  await answerFloor(started, options.floorMs);
  return { ok: true };
}
