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
  /** Sign-in attempts from one address, whatever the accounts (browsers known to the account aside). */
  signInPerIp: { window: 15 * 60, max: 30 },
  /**
   * Failed sign-ins on one account from browsers it does not know, whatever their addresses, all together: past
   * `max`, attempts from them are refused unchecked until the window ends (the owner is told, once a day:
   * `signInAlertPerAccount`). Browsers that have signed in to the account before are not counted here.
   */
  signInUnknownDevicesPerAccount: { window: 15 * 60, max: 3 },
  /** Failed sign-ins from one browser known to the account: past `max`, that browser is refused until the window ends. */
  signInPerKnownDevice: { window: 15 * 60, max: 5 },
  signInAlertPerAccount: { window: 24 * 60 * 60, max: 1 },
  signUpPerIp: { window: 60 * 60, max: 10 },
  resetPerIp: { window: 60 * 60, max: 10 },
  resetPerEmail: { window: 60 * 60, max: 3 },
  verifyPerIp: { window: 60 * 60, max: 10 },
  redeemPerUser: { window: 60 * 60, max: 10 },
  verifyPerEmail: { window: 60 * 60, max: 3 },
  /** Wrong passwords typed by a signed-in user (changing the password, deleting the account). */
  passwordCheckPerUser: { window: 15 * 60, max: 5 },
  /** better-auth's own HTTP endpoints (OAuth callbacks, session reads). */
  authHttpPerIp: { window: 60, max: 120 },
} satisfies Record<string, RateLimitRule>;

/** The counter of wrong passwords a signed-in user typed (`passwordCheckPerUser`). */
export const passwordCheckKey = (userId: string) => `password-check:user:${userId}`;
