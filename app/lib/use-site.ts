import { useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "#app/root.tsx";

/** The public site configuration and the signed-in user, as the root loaded them. */
export function useRoot() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  if (!root) throw new Error("root data missing");
  return root;
}
