import type { Storage } from "#server/storage/storage.ts";
import { deleteAccount } from "#server/modules/users/delete-account.ts";
import { listSignInMethods } from "#server/modules/users/list-sign-in-methods.ts";
import type { Viewer } from "#common/viewer.ts";
import { authErrorCode, reserveAttempt, type AuthAttempt, type RateLimited } from "./attempts.ts";
import { RATE_LIMITS, passwordCheckKey } from "./policy.ts";

export type DeleteOwnAccountResult =
  { ok: true; cookies: Headers } | RateLimited | { ok: false; reason: "wrong_password" | "email_mismatch" };

/**
 * Deletes the signed-in user's account and everything in it, once they have proved it is them: their password
 * when they have one (wrong ones bounded per account, with those typed to change it), else their e-mail address
 * typed again. Their session ends with it (the cookies that clear
 * it are in the result).
 */
export async function deleteOwnAccount(
  options: Omit<AuthAttempt, "clientIp"> & { storage: Storage; viewer: Viewer; password: string; email: string },
): Promise<DeleteOwnAccountResult> {
  const methods = await listSignInMethods({ db: options.db, userId: options.viewer.id });
  if (methods.includes("credential")) {
    const reserved = await reserveAttempt(
      options.db,
      passwordCheckKey(options.viewer.id),
      RATE_LIMITS.passwordCheckPerUser,
    );
    if (!reserved.ok) return reserved;
    const valid = await options.auth.api
      .verifyPassword({ body: { password: options.password }, headers: options.headers })
      .then(() => true)
      .catch((error: unknown) => {
        const code = authErrorCode(error);
        if (code !== "INVALID_PASSWORD") options.logger.error({ code }, "password check failed");
        return false;
      });
    if (!valid) return { ok: false, reason: "wrong_password" };
    await reserved.refund();
  } else if (options.email.trim().toLowerCase() !== options.viewer.email.toLowerCase()) {
    return { ok: false, reason: "email_mismatch" };
  }
  const { headers } = await options.auth.api.signOut({ headers: options.headers, returnHeaders: true });
  await deleteAccount({ db: options.db, storage: options.storage, userId: options.viewer.id, logger: options.logger });
  return { ok: true, cookies: headers };
}
