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
  o: AuthAttempt & { boss: PgBoss; viewer: Viewer; current: string; password: string; settingsUrl: string },
): Promise<ChangePasswordResult> {
  const limited = await countAttempt(o.db, [
    { key: `change-password:user:${o.viewer.id}`, rule: RATE_LIMITS.changePasswordPerUser },
  ]);
  if (limited) return limited;
  try {
    const { headers } = await o.auth.api.changePassword({
      body: { currentPassword: o.current, newPassword: o.password, revokeOtherSessions: true },
      headers: o.headers,
      returnHeaders: true,
    });
    await queueMail({
      boss: o.boss,
      mail: {
        to: o.viewer.email,
        kind: "passwordChanged",
        locale: o.viewer.locale,
        name: o.viewer.name,
        url: o.settingsUrl,
      },
    });
    return { ok: true, cookies: headers };
  } catch (error) {
    const code = authErrorCode(error);
    if (code === "INVALID_PASSWORD") return { ok: false, reason: "wrong_password" };
    if (code === "CREDENTIAL_ACCOUNT_NOT_FOUND") return { ok: false, reason: "no_password" };
    o.logger.error({ code }, "password change failed");
    return { ok: false, reason: "failed" };
  }
}
