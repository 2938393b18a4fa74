import { redirect } from "react-router";
import type { Route } from "./+types/index";
import { pathFor } from "#common/locales.ts";
import { toolPath } from "#common/tools.ts";

export function loader({ request }: Route.LoaderArgs) {
  return redirect(pathFor(new URL(request.url).pathname, toolPath("text-to-video")));
}
