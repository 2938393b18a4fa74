import type { RateLimitRule } from "#server/modules/rate-limits/consume-rate-limit.ts";

export { PASSWORD_MIN, PASSWORD_MAX, NAME_MAX } from "#common/auth-limits.ts";
export const SESSION_DAYS = 30;
/** Last activity shown on the profile is at most this old; refreshing the session also extends it. */
export const SESSION_REFRESH_SECONDS = 15 * 60;
export const RESET_TOKEN_SECONDS = 60 * 60;
export const VERIFY_TOKEN_SECONDS = 24 * 60 * 60;
/** Answers to sign-in, sign-up and reset never come faster than this, so their timing tells nothing. */
export const AUTH_ANSWER_FLOOR_MS = 400;

/** The header the HTTP layer writes with the client's address (any incoming value is replaced). */
export const CLIENT_IP_HEADER = "x-atelier-client-ip";

export const RATE_LIMITS = {
  /** Sign-in attempts from one address, whatever the accounts. */
  signInPerIp: { window: 15 * 60, max: 30 },
  /** Sign-in attempts on one account from one address: past this, that address waits; others do not. */
  signInPerAccountAddress: { window: 15 * 60, max: 5 },
  /**
   * Failed sign-ins on one account from anywhere. They never refuse anybody: past `max`, every attempt on the
   * account waits a little longer (`signInDelayMs`), and the owner is told once a day (`signInAlertPerAccount`).
   */
  signInFailuresPerAccount: { window: 15 * 60, max: 5 },
  signInAlertPerAccount: { window: 24 * 60 * 60, max: 1 },
  signUpPerIp: { window: 60 * 60, max: 10 },
  resetPerIp: { window: 60 * 60, max: 10 },
  resetPerEmail: { window: 60 * 60, max: 3 },
  verifyPerIp: { window: 60 * 60, max: 10 },
  redeemPerUser: { window: 60 * 60, max: 10 },
  verifyPerEmail: { window: 60 * 60, max: 3 },
  changePasswordPerUser: { window: 15 * 60, max: 10 },
  /** better-auth's own HTTP endpoints (OAuth callbacks, session reads). */
  authHttpPerIp: { window: 60, max: 120 },
} satisfies Record<string, RateLimitRule>;

/**
 * The wait before checking a password on an account with `failures` recent failed sign-ins: none up to the limit,
 * then half a second, doubling with each failure, to at most eight seconds (slow for a guesser, a pause for the owner).
 */
export function signInDelayMs(failures: number): number {
  const over = failures - RATE_LIMITS.signInFailuresPerAccount.max;
  return over < 0 ? 0 : Math.min(500 * 2 ** over, 8_000);
}
