import { redirect } from "react-router";
import type { Route } from "./+types/logout";
import { cookiesOf } from "#app/lib/auth.server.ts";
import { localizedPath, serverContextOf } from "#app/lib/request.server.ts";
import { flashCookie } from "#server/http/cookies.ts";

/** Signing out is a POST (a link or an image could not sign anyone out); a GET just goes home. */
export function loader({ request }: Route.LoaderArgs) {
  return redirect(localizedPath(request, "/"));
}

export async function action({ context, request }: Route.ActionArgs) {
  const { runtime, session, authHeaders } = serverContextOf(context);
  const out = new Headers();
  if (session.viewer) {
    const { headers } = await runtime.auth.api.signOut({ headers: authHeaders, returnHeaders: true });
    cookiesOf(headers, out);
  }
  out.append("Set-Cookie", flashCookie("logoutSuccess"));
  return redirect(localizedPath(request, "/"), { headers: out });
}
