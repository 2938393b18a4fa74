import { Outlet, data, isRouteErrorResponse } from "react-router";
import type { Route } from "./+types/layout";
import { DashboardLayout, SIDEBAR_COOKIE } from "#app/components/layout/dashboard-layout.tsx";
import { NotFound } from "#app/components/not-found.tsx";
import { AntdProvider } from "#app/components/antd-provider.tsx";
import { SessionWatch } from "#app/components/session-watch.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { studioOffer } from "#app/lib/studio.server.ts";
import { resourcesFor } from "#server/i18n/translations.ts";
import { readCookie } from "#common/cookies.ts";
import { isLocale, localeOfPath } from "#common/locales.ts";

export function loader({ context, request, params }: Route.LoaderArgs) {
  if (params.lang !== undefined && !isLocale(params.lang)) throw data(null, { status: 404 });
  const { viewer, runtime } = requireViewer(context, request);
  const collapsed = readCookie(request.headers.get("cookie"), SIDEBAR_COOKIE) === "collapsed";
  // What a result's actions may open, and which models take a seed (for variations).
  const studio = studioOffer(runtime, viewer);
  return {
    collapsed,
    studio,
    i18n: resourcesFor(localeOfPath(new URL(request.url).pathname), ["dashboard", "messages"]),
  };
}

export default function DashboardRoute({ loaderData }: Route.ComponentProps) {
  return (
    <AntdProvider>
      <SessionWatch />
      <DashboardLayout initialCollapsed={loaderData.collapsed}>
        <Outlet />
      </DashboardLayout>
    </AntdProvider>
  );
}

export function ErrorBoundary({ error, loaderData }: Route.ErrorBoundaryProps) {
  if (!isRouteErrorResponse(error) || error.status !== 404 || !loaderData) throw error;
  return (
    <AntdProvider>
      <DashboardLayout initialCollapsed={loaderData.collapsed}>
        <NotFound />
      </DashboardLayout>
    </AntdProvider>
  );
}
