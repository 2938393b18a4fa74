import type { Logger } from "pino";
import type { Auth } from "./auth.ts";
import { authErrorCode } from "./attempts.ts";

/**
 * Confirms an address from the link sent to it, which also starts a session: the session's cookies and the
 * account's own language come back. A link that is unknown, used or expired is `link_invalid` (and logged).
 */
export async function verifyEmail(options: {
  auth: Auth;
  headers: Headers;
  logger: Logger;
  token: string;
}): Promise<{ ok: true; cookies: Headers; locale: string | null } | { ok: false; reason: "link_invalid" }> {
  try {
    const { headers } = await options.auth.api.verifyEmail({
      query: { token: options.token },
      headers: options.headers,
      returnHeaders: true,
    });
    // The answer names no account: its language is read through the session the link started.
    const cookie = headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const started = cookie ? await options.auth.api.getSession({ headers: new Headers({ cookie }) }) : null;
    const locale = (started?.user as { locale?: string | null } | undefined)?.locale ?? null;
    return { ok: true, cookies: headers, locale };
  } catch (error) {
    options.logger.info({ code: authErrorCode(error) }, "e-mail verification link rejected");
    return { ok: false, reason: "link_invalid" };
  }
}
