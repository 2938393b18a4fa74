import { answerFloor, authErrorCode, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS } from "./policy.ts";

export type SignUpResult = { ok: true } | RateLimited | { ok: false; reason: "failed" };

/**
 * Creates an account waiting for its address to be confirmed, and sends the confirmation link (which returns to
 * `returnTo`). A taken address gets the same answer in the same time (its owner is told by e-mail), so sign-up
 * reveals no accounts. Sign-ups are limited per client address.
 */
export async function signUp(
  o: AuthAttempt & { name: string; email: string; password: string; locale: string; returnTo: string },
): Promise<SignUpResult> {
  const started = Date.now();
  const limited = await countAttempt(o.db, [{ key: `sign-up:ip:${o.clientIp}`, rule: RATE_LIMITS.signUpPerIp }]);
  if (limited) return limited;
  try {
    await o.auth.api.signUpEmail({
      body: { name: o.name, email: o.email, password: o.password, locale: o.locale, callbackURL: o.returnTo },
      headers: o.headers,
    });
  } catch (error) {
    o.logger.error({ err: (error as Error).message, code: authErrorCode(error) }, "sign-up failed");
    await answerFloor(started, o.floorMs);
    return { ok: false, reason: "failed" };
  }
  await answerFloor(started, o.floorMs);
  return { ok: true };
}
