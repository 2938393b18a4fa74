import { data, redirect } from "react-router";
import type { Route } from "./+types/oauth";
import { cookiesOf } from "#app/lib/auth.server.ts";
import { localizedPath, serverContextOf } from "#app/lib/request.server.ts";
import { oauthProviders } from "#server/modules/auth/auth.ts";
import { safeReturnPath } from "#common/return-path.ts";

/**
 * Starts signing in with a provider: better-auth makes the state and PKCE verifier (kept in a cookie), and the
 * browser goes to the provider. It comes back through /api/auth/.../callback to /auth/callback.
 */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { runtime, authHeaders } = serverContextOf(context);
  const provider = oauthProviders(runtime.env).find((p) => p.id === params.provider);
  if (!provider) throw data(null, { status: 404 });
  const next = safeReturnPath(new URL(request.url).searchParams.get("redirect"));
  const callbackURL = `${localizedPath(request, "/auth/callback")}?${new URLSearchParams({ next }).toString()}`;
  const errorCallbackURL = `${localizedPath(request, "/auth/login")}?${new URLSearchParams({ redirect: next, error: "oauth" }).toString()}`;
  // Generic OpenID providers are registered as social providers too: one way in for all of them.
  const { headers, response } = await runtime.auth.api.signInSocial({
    body: {
      provider: provider.id as "github",
      callbackURL,
      errorCallbackURL,
      newUserCallbackURL: callbackURL,
      disableRedirect: true,
    },
    headers: authHeaders,
    returnHeaders: true,
  });
  const url = (response as { url?: string }).url;
  if (!url) throw data(null, { status: 502 });
  return redirect(url, { headers: cookiesOf(headers) });
}
