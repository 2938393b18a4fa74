import { redirect } from "react-router";
import type { Route } from "./+types/logout";
import { cookiesOf, flashCookie, here, server } from "#app/lib/auth.server.ts";

/** Signing out is a POST (a link or an image could not sign anyone out); a GET just goes home. */
export function loader({ request }: Route.LoaderArgs) {
  return redirect(here(request, "/"));
}

export async function action({ context, request }: Route.ActionArgs) {
  const { runtime, session, authHeaders } = server(context);
  const out = new Headers();
  if (session.viewer) {
    const { headers } = await runtime.auth.api.signOut({ headers: authHeaders, returnHeaders: true });
    cookiesOf(headers, out);
  }
  out.append("Set-Cookie", flashCookie("logoutSuccess"));
  return redirect(here(request, "/"), { headers: out });
}
