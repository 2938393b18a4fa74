import { authErrorCode, type AuthAttempt } from "./attempts.ts";
import { deviceCookie } from "./device-cookie.ts";

/**
 * Sets a new password with the token of a reset link. Every session of the account ends with it (the owner signs in
 * again) and the owner is told by e-mail. An unknown, used or expired token is `link_invalid`, one answer for all.
 * The browser that did it has shown it reads the owner's mail: it becomes a known device of the account (its cookie is
 * in `cookies`), so that it can sign in even while sign-ins from unknown browsers are paused.
 */
export async function resetPassword(
  options: Omit<AuthAttempt, "clientIp"> & { token: string; password: string },
): Promise<{ ok: true; cookies: Headers } | { ok: false; reason: "link_invalid" }> {
  try {
    const email = await accountOfToken(options.auth, options.token);
    await options.auth.api.resetPassword({
      body: { newPassword: options.password, token: options.token },
      headers: options.headers,
    });
    const cookies = new Headers();
    if (email) cookies.append("Set-Cookie", deviceCookie(options.auth, options.headers, email));
    return { ok: true, cookies };
  } catch (error) {
    const code = authErrorCode(error);
    if (code !== "INVALID_TOKEN") options.logger.error({ code }, "password reset failed");
    return { ok: false, reason: "link_invalid" };
  }
}

/** The e-mail address of the account a reset token is for (where the authentication library keeps it), if any. */
async function accountOfToken(auth: AuthAttempt["auth"], token: string): Promise<string | null> {
  if (!token) return null;
  const context = await auth.$context;
  const verification = await context.internalAdapter.findVerificationValue(`reset-password:${token}`);
  if (!verification) return null;
  const user = await context.internalAdapter.findUserById(verification.value);
  return user?.email.toLowerCase() ?? null;
}
