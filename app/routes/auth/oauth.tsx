import { data, redirect } from "react-router";
import type { Route } from "./+types/oauth";
import { cookiesOf } from "#app/lib/auth.server.ts";
import { localizedPath, serverContextOf } from "#app/lib/request.server.ts";
import { startOAuth } from "#server/modules/auth/start-oauth.ts";
import { safeReturnPath } from "#common/return-path.ts";

/**
 * Starts signing in with a provider (`startOAuth`): the browser goes to the provider, which sends it back through
 * /api/auth/.../callback to /auth/callback.
 */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { runtime, authHeaders } = serverContextOf(context);
  const next = safeReturnPath(new URL(request.url).searchParams.get("redirect"));
  const started = await startOAuth({
    auth: runtime.auth,
    env: runtime.env,
    headers: authHeaders,
    provider: params.provider,
    callbackURL: `${localizedPath(request, "/auth/callback")}?${new URLSearchParams({ next }).toString()}`,
    errorCallbackURL: `${localizedPath(request, "/auth/login")}?${new URLSearchParams({ redirect: next, error: "oauth" }).toString()}`,
  });
  if (!started.ok) throw data(null, { status: started.reason === "unknown_provider" ? 404 : 502 });
  return redirect(started.url, { headers: cookiesOf(started.cookies) });
}
