import { eq } from "drizzle-orm";
import { user } from "#server/db/schema/index.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { queueMail } from "#server/modules/mail/queue-mail.ts";
import { consumeRateLimit, rateLimitCount, resetRateLimit } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { isLocale, localizedUrl, DEFAULT_LOCALE } from "#common/locales.ts";
import { answerFloor, authErrorCode, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS, signInDelayMs } from "./policy.ts";

export type SignInResult =
  | { ok: true; cookies: Headers; preferredLocale: string | null }
  | RateLimited
  | { ok: false; reason: "invalid_credentials" | "email_not_verified" | "banned" | "failed" };

export interface SignInOptions extends AuthAttempt {
  email: string;
  password: string;
  /** The queue the owner's warning goes through when their account is being guessed at. */
  boss: PgBoss;
  /** This site's address, for the warning's link to the password reset page. */
  siteUrl: string;
  /** How the account's slow-down waits (a timer unless given: tests record the waits instead). */
  wait?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Signs in with an e-mail address and a password, slowing guessers down without ever locking the owner out:
 * - one address is limited across all accounts, and on one account (past that it is refused for a while);
 * - failures on an account from anywhere refuse nobody: past a few, every attempt on it waits longer (up to
 *   seconds), and the owner is told by e-mail, at most once a day;
 * - the right password from an address that has not been guessing always gets in.
 * A success clears that address's count on the account and the account's failures. Refusals never answer faster
 * than the floor, so their timing tells nothing; the slow-down is the same for known and unknown addresses.
 */
export async function signIn(options: SignInOptions): Promise<SignInResult> {
  const started = Date.now();
  const { db, email, clientIp } = options;
  const accountAddressKey = `sign-in:account-address:${email}:${clientIp}`;
  const failuresKey = `sign-in:failures:${email}`;
  const limited = await countAttempt(db, [
    { key: `sign-in:ip:${clientIp}`, rule: RATE_LIMITS.signInPerIp },
    { key: accountAddressKey, rule: RATE_LIMITS.signInPerAccountAddress },
  ]);
  if (limited) {
    await answerFloor(started, options.floorMs);
    return limited;
  }
  const delay = signInDelayMs(await rateLimitCount({ db, key: failuresKey }));
  if (delay > 0) await (options.wait ?? sleep)(delay);
  try {
    const { headers, response } = await options.auth.api.signInEmail({
      body: { email, password: options.password, rememberMe: true },
      headers: options.headers,
      returnHeaders: true,
    });
    await resetRateLimit({ db, key: accountAddressKey });
    await resetRateLimit({ db, key: failuresKey });
    const preferredLocale = (response.user as { locale?: string | null }).locale ?? null;
    return { ok: true, cookies: headers, preferredLocale };
  } catch (error) {
    const code = authErrorCode(error);
    if (code === "INVALID_EMAIL_OR_PASSWORD" || code === "INVALID_EMAIL") {
      await recordFailure(options, failuresKey);
      await answerFloor(started, options.floorMs);
      return { ok: false, reason: "invalid_credentials" };
    }
    await answerFloor(started, options.floorMs);
    if (code === "EMAIL_NOT_VERIFIED") return { ok: false, reason: "email_not_verified" };
    if (code === "BANNED_USER") return { ok: false, reason: "banned" };
    options.logger.error({ err: (error as Error).message, code }, "sign-in failed");
    return { ok: false, reason: "failed" };
  }
}

/** Counts a wrong password against the account; the failure that reaches the limit warns its owner (once a day). */
async function recordFailure(options: SignInOptions, failuresKey: string) {
  const { db, email } = options;
  const failures = await consumeRateLimit({ db, key: failuresKey, rule: RATE_LIMITS.signInFailuresPerAccount });
  if (failures.count !== RATE_LIMITS.signInFailuresPerAccount.max) return;
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
  options.logger.warn({ failures: failures.count }, "repeated failed sign-ins on one account; its owner was told");
}
