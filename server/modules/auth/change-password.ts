import type { PgBoss } from "#server/jobs/boss.ts";
import { queueMail } from "#server/modules/mail/queue-mail.ts";
import type { Viewer } from "#common/viewer.ts";
import { authErrorCode, countAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS } from "./policy.ts";

export type ChangePasswordResult =
  { ok: true; cookies: Headers } | RateLimited | { ok: false; reason: "wrong_password" | "no_password" | "failed" };

/**
 * Changes the signed-in user's password after checking the current one, ends their other sessions (this one gets
 * a fresh cookie), and tells them by e-mail with a link to `settingsUrl`. Attempts are limited per account.
 */
export async function changePassword(
  options: AuthAttempt & { boss: PgBoss; viewer: Viewer; current: string; password: string; settingsUrl: string },
): Promise<ChangePasswordResult> {
  const limited = await countAttempt(options.db, [
    { key: `change-password:user:${options.viewer.id}`, rule: RATE_LIMITS.changePasswordPerUser },
  ]);
  if (limited) return limited;
  try {
    const { headers } = await options.auth.api.changePassword({
      body: { currentPassword: options.current, newPassword: options.password, revokeOtherSessions: true },
      headers: options.headers,
      returnHeaders: true,
    });
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
    if (code === "CREDENTIAL_ACCOUNT_NOT_FOUND") return { ok: false, reason: "no_password" };
    options.logger.error({ code }, "password change failed");
    return { ok: false, reason: "failed" };
  }
}
