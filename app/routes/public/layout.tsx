import { Outlet, data, isRouteErrorResponse, type ShouldRevalidateFunctionArgs } from "react-router";
import type { Route } from "./+types/layout";
import { DefaultLayout } from "#app/components/layout/default-layout.tsx";
import { NotFound } from "#app/components/not-found.tsx";
import { isLocale } from "#common/locales.ts";

export function loader({ params }: Route.LoaderArgs) {
  // `/xx/pricing` is not English under a strange prefix: it is a page that does not exist.
  if (params.lang !== undefined && !isLocale(params.lang)) throw data(null, { status: 404 });
  return null;
}

// The loader only checks the language prefix: nothing to ask the server again while it stays the same (a page that
// changes only its query, such as the API reference switching to its interactive view, then makes no request).
export function shouldRevalidate({ currentParams, nextParams, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return currentParams.lang !== nextParams.lang && defaultShouldRevalidate;
}

export default function PublicLayout() {
  return (
    <DefaultLayout>
      <Outlet />
    </DefaultLayout>
  );
}

/** A missing page keeps the site around it; every other error replaces the app with the full-screen error page. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  if (!isRouteErrorResponse(error) || error.status !== 404) throw error;
  return (
    <DefaultLayout>
      <NotFound />
    </DefaultLayout>
  );
}
