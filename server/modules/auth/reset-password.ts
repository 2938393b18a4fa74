import { authErrorCode, type AuthAttempt } from "./attempts.ts";

/**
 * Sets a new password with the token of a reset link. Every session of the account ends with it (the owner signs in
 * again) and the owner is told by e-mail. An unknown, used or expired token is `link_invalid`, one answer for all.
 */
export async function resetPassword(
  options: Omit<AuthAttempt, "clientIp"> & { token: string; password: string },
): Promise<{ ok: true } | { ok: false; reason: "link_invalid" }> {
  try {
    await options.auth.api.resetPassword({
      body: { newPassword: options.password, token: options.token },
      headers: options.headers,
    });
    return { ok: true };
  } catch (error) {
    const code = authErrorCode(error);
    if (code !== "INVALID_TOKEN") options.logger.error({ code }, "password reset failed");
    return { ok: false, reason: "link_invalid" };
  }
}
