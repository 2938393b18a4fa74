import type { PgBoss } from "#server/jobs/boss.ts";
import { queueMail } from "#server/modules/mail/queue-mail.ts";
import type { Viewer } from "#common/viewer.ts";
import { authErrorCode, reserveAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS, passwordCheckKey } from "./policy.ts";

export type ChangePasswordResult =
  { ok: true; cookies: Headers } | RateLimited | { ok: false; reason: "wrong_password" | "no_password" | "failed" };

/**
 * Changes the signed-in user's password after checking the current one, ends their other sessions (this one gets
 * a fresh cookie), and tells them by e-mail with a link to `settingsUrl`. Wrong current passwords are bounded per
 * account (`passwordCheckPerUser`, shared with deleting the account), counted before the check.
 */
export async function changePassword(
  options: AuthAttempt & { boss: PgBoss; viewer: Viewer; current: string; password: string; settingsUrl: string },
): Promise<ChangePasswordResult> {
  const reserved = await reserveAttempt(
    options.db,
    passwordCheckKey(options.viewer.id),
    RATE_LIMITS.passwordCheckPerUser,
  );
  if (!reserved.ok) return reserved;
  try {
    const { headers } = await options.auth.api.changePassword({
      body: { currentPassword: options.current, newPassword: options.password, revokeOtherSessions: true },
      headers: options.headers,
      returnHeaders: true,
    });
    await reserved.refund();
    await queueMail({
      boss: options.boss,
      mail: {
        to: options.viewer.email,
        kind: "passwordChanged",
        locale: options.viewer.locale,
        name: options.viewer.name,
        url: options.settingsUrl,
      },
    });
    return { ok: true, cookies: headers };
  } catch (error) {
    const code = authErrorCode(error);
    if (code === "INVALID_PASSWORD") return { ok: false, reason: "wrong_password" };
    await reserved.refund();
    if (code === "CREDENTIAL_ACCOUNT_NOT_FOUND") return { ok: false, reason: "no_password" };
    options.logger.error({ code }, "password change failed");
    return { ok: false, reason: "failed" };
  }
}
