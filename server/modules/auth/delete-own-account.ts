import type { Storage } from "#server/storage/storage.ts";
import { deleteAccount } from "#server/modules/users/delete-account.ts";
import { listSignInMethods } from "#server/modules/users/list-sign-in-methods.ts";
import type { Viewer } from "#common/viewer.ts";
import { authErrorCode, type AuthAttempt } from "./attempts.ts";

export type DeleteOwnAccountResult =
  { ok: true; cookies: Headers } | { ok: false; reason: "wrong_password" | "email_mismatch" };

/**
 * Deletes the signed-in user's account and everything in it, once they have proved it is them: their password
 * when they have one, else their e-mail address typed again. Their session ends with it (the cookies that clear
 * it are in the result).
 */
export async function deleteOwnAccount(
  o: Omit<AuthAttempt, "clientIp"> & { storage: Storage; viewer: Viewer; password: string; email: string },
): Promise<DeleteOwnAccountResult> {
  const methods = await listSignInMethods({ db: o.db, userId: o.viewer.id });
  if (methods.includes("credential")) {
    const valid = await o.auth.api
      .verifyPassword({ body: { password: o.password }, headers: o.headers })
      .then(() => true)
      .catch((error: unknown) => {
        const code = authErrorCode(error);
        if (code !== "INVALID_PASSWORD") o.logger.error({ code }, "password check failed");
        return false;
      });
    if (!valid) return { ok: false, reason: "wrong_password" };
  } else if (o.email.trim().toLowerCase() !== o.viewer.email.toLowerCase()) {
    return { ok: false, reason: "email_mismatch" };
  }
  const { headers } = await o.auth.api.signOut({ headers: o.headers, returnHeaders: true });
  await deleteAccount({ db: o.db, storage: o.storage, userId: o.viewer.id, logger: o.logger });
  return { ok: true, cookies: headers };
}
