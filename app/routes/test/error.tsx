import { data } from "react-router";
import type { Route } from "./+types/error";
import { requestInfoContext } from "#app/context.ts";

/**
 * `/__test/error/<status>` throws a response with that status; `/__test/error/crash` throws an unexpected error
 * whose message must never reach the page. Only with TEST_ROUTES on.
 */
export function loader({ params, context }: Route.LoaderArgs) {
  if (!context.get(requestInfoContext).testRoutes) throw data(null, { status: 404 });
  if (params.status === "crash") throw new Error("internal detail: connection string postgres://secret");
  const status = Number(params.status);
  if (!Number.isInteger(status) || status < 400 || status > 599) throw data(null, { status: 404 });
  throw data(null, { status });
}

export default function TestError() {
  return null;
}
