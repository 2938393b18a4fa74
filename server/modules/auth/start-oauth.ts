import type { Env } from "#server/env.ts";
import { oauthProviders, type Auth } from "./auth.ts";

/**
 * Starts signing in with a provider: better-auth makes the state and PKCE verifier (kept in the cookies returned),
 * and the browser is to go to the provider's address. `unknown_provider` for one this server does not offer;
 * `no_redirect` when the provider gave no address to go to.
 */
export async function startOAuth(options: {
  auth: Auth;
  env: Env;
  headers: Headers;
  provider: string | undefined;
  /** Where the provider sends the browser back: after a success, and after a refusal. */
  callbackURL: string;
  errorCallbackURL: string;
}): Promise<{ ok: true; url: string; cookies: Headers } | { ok: false; reason: "unknown_provider" | "no_redirect" }> {
  const provider = oauthProviders(options.env).find((p) => p.id === options.provider);
  if (!provider) return { ok: false, reason: "unknown_provider" };
  // Generic OpenID providers are registered as social providers too: one way in for all of them.
  const { headers, response } = await options.auth.api.signInSocial({
    body: {
      provider: provider.id as "github",
      callbackURL: options.callbackURL,
      errorCallbackURL: options.errorCallbackURL,
      newUserCallbackURL: options.callbackURL,
      disableRedirect: true,
    },
    headers: options.headers,
    returnHeaders: true,
  });
  const url = (response as { url?: string }).url;
  return url ? { ok: true, url, cookies: headers } : { ok: false, reason: "no_redirect" };
}
