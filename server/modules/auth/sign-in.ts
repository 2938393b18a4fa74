import { eq } from "drizzle-orm";
import { user } from "#server/db/schema/index.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { queueMail } from "#server/modules/mail/queue-mail.ts";
import { consumeRateLimit } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { isLocale, localizedUrl, DEFAULT_LOCALE } from "#common/locales.ts";
import {
  answerFloor,
  authErrorCode,
  countAttempt,
  reserveAttempt,
  type AuthAttempt,
  type RateLimited,
} from "./attempts.ts";
import { deviceCookie, knownDevice } from "./device-cookie.ts";
import { RATE_LIMITS } from "./policy.ts";

export type SignInResult =
  | { ok: true; cookies: Headers; preferredLocale: string | null }
  | RateLimited
  | Locked
  | { ok: false; reason: "invalid_credentials" | "email_not_verified" | "banned" | "failed" };

/** Refused unchecked: this account's sign-ins from browsers it does not know (or from this one) are paused. */
export type Locked = Omit<RateLimited, "reason"> & { reason: "locked" };

export interface SignInOptions extends AuthAttempt {
  email: string;
  password: string;
  /** The queue the owner's warning goes through when their account is being guessed at. */
  boss: PgBoss;
  /** This site's address, for the warning's link to the password reset page. */
  siteUrl: string;
}

/**
 * Signs in with an e-mail address and a password. Guesses at one account are bounded wherever they come from, and
 * nobody can lock its owner out of the browsers they use (device cookies, `device-cookie.ts`):
 * - a browser that has signed in to the account before (a known device) has an allowance of failures of its own;
 *   past it, that browser is refused for a while, and nobody else is;
 * - every other attempt on the account, from any number of addresses, shares one small budget of failures; past it
 *   they are all refused, unchecked, until the window ends, and the owner is told by e-mail (at most once a day).
 *   The owner gets in from a known browser meanwhile, or from any browser by choosing a new password (the reset
 *   makes that browser known);
 * - one address is also limited across all accounts.
 * Each attempt is counted before its password is checked (one atomic update), so however many arrive at once, on
 * however many instances, no more are checked than the budget allows; a right password gives its count back, and
 * clears nothing else: the owner's sign-in from a new browser leaves the guessers' budget spent. Every success
 * gives the browser a fresh device token. Refusals never answer faster than the floor.
 */
export async function signIn(options: SignInOptions): Promise<SignInResult> {
  const started = Date.now();
  const { db, auth, clientIp } = options;
  const email = options.email.trim().toLowerCase();
  const device = knownDevice(auth, options.headers, email);
  if (!device) {
    const limited = await countAttempt(db, [{ key: `sign-in:ip:${clientIp}`, rule: RATE_LIMITS.signInPerIp }]);
    if (limited) {
      await answerFloor(started, options.floorMs);
      return limited;
    }
  }
  const reserved = device
    ? await reserveAttempt(db, `sign-in:device:${device}`, RATE_LIMITS.signInPerKnownDevice)
    : await reserveAttempt(db, `sign-in:unknown-devices:${email}`, RATE_LIMITS.signInUnknownDevicesPerAccount);
  if (!reserved.ok) {
    await answerFloor(started, options.floorMs);
    return { ...reserved, reason: "locked" };
  }
  try {
    const { headers, response } = await auth.api.signInEmail({
      body: { email, password: options.password, rememberMe: true },
      headers: options.headers,
      returnHeaders: true,
    });
    await reserved.refund();
    headers.append("Set-Cookie", deviceCookie(auth, options.headers, email));
    const preferredLocale = (response.user as { locale?: string | null }).locale ?? null;
    return { ok: true, cookies: headers, preferredLocale };
  } catch (error) {
    const code = authErrorCode(error);
    if (code === "INVALID_EMAIL_OR_PASSWORD" || code === "INVALID_EMAIL") {
      if (!device && reserved.count === RATE_LIMITS.signInUnknownDevicesPerAccount.max) {
        await warnOwner(options, email);
      }
      await answerFloor(started, options.floorMs);
      return { ok: false, reason: "invalid_credentials" };
    }
    // The password was right (or never checked): only failures stay counted.
    await reserved.refund();
    await answerFloor(started, options.floorMs);
    if (code === "EMAIL_NOT_VERIFIED") return { ok: false, reason: "email_not_verified" };
    if (code === "BANNED_USER") return { ok: false, reason: "banned" };
    options.logger.error({ err: (error as Error).message, code }, "sign-in failed");
    return { ok: false, reason: "failed" };
  }
}

/** Tells the owner their account is being guessed at and sign-ins from unknown browsers are paused (once a day). */
async function warnOwner(options: SignInOptions, email: string) {
  const { db } = options;
  const [owner] = await db
    .select({ name: user.name, locale: user.locale })
    .from(user)
    .where(eq(user.email, email))
    .limit(1);
  if (!owner) return;
  const alert = await consumeRateLimit({
    db,
    key: `sign-in:alert:${email}`,
    rule: RATE_LIMITS.signInAlertPerAccount,
  });
  if (!alert.allowed) return;
  const locale = isLocale(owner.locale) ? owner.locale : DEFAULT_LOCALE;
  await queueMail({
    boss: options.boss,
    mail: {
      to: email,
      kind: "signInAttempts",
      locale,
      name: owner.name,
      url: localizedUrl(options.siteUrl, "/auth/update-password", locale),
    },
  });
  options.logger.warn(
    "sign-ins on one account from unknown browsers paused after repeated failures; its owner was told",
  );
}
