import { Outlet, useLoaderData } from "react-router";
import type { Route } from "./+types/layout";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { pageI18n } from "#server/i18n/translations.ts";
import { AdminNav } from "#app/components/admin/admin-nav.tsx";
import { countReviewQueue } from "#server/modules/safety/list-review-queue.ts";

// Each page and action below checks the role again itself: loaders run side by side and actions alone, so this
// layout's check guards what it renders, not what they do.
export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  return { i18n: pageI18n(request, ["admin"]).i18n, waiting: await countReviewQueue({ db }) };
}

/** The console's pages under one navigation. */
export default function AdminLayout() {
  const { waiting } = useLoaderData<typeof loader>();
  return (
    <div className="admin">
      <AdminNav counts={{ review: waiting }} />
      <Outlet />
    </div>
  );
}
