import { redirect } from "react-router";
import type { Route } from "./+types/index";
import { pathFor } from "#common/locales.ts";

export function loader({ request }: Route.LoaderArgs) {
  return redirect(pathFor(new URL(request.url).pathname, "/dashboard/video/5afe14a8"));
}
