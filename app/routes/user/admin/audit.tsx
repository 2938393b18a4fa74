import { Input, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/audit";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { pageOf } from "#app/lib/paging.ts";
import { PagedTable } from "#app/components/billing/paged-table.tsx";
import { DayRange, FilterForm, FilterSelect } from "#app/components/admin/filter-form.tsx";
import { ChangeList } from "#app/components/admin/change-list.tsx";
import { auditSearchSchema, listAdminActions } from "#server/modules/audit/list-admin-actions.ts";
import { ACTION_AREAS } from "#common/admin.ts";
import type { AdminAction } from "#server/db/schema/index.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

const PAGE_SIZE = 50;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const params = new URL(request.url).searchParams;
  const search = auditSearchSchema.parse(Object.fromEntries(params));
  const page = pageOf(params.get("page"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:audit.title"),
    noindex: true,
  }));
  const actions = await listAdminActions({ db, search, page, pageSize: PAGE_SIZE });
  return { seo, i18n, locale, search, actions: { ...actions, page, pageSize: PAGE_SIZE } };
}

export default function Audit({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname, search: query } = useLocation();
  const { search, actions } = loaderData;
  const locale = loaderData.locale as Locale;
  const columns: TableColumnsType<AdminAction> = [
    { title: t("audit.columns.when"), dataIndex: "createdAt", render: (v: string) => formatDate(locale, v) },
    {
      title: t("audit.columns.who"),
      dataIndex: "actor",
      render: (actor: string, row) => (
        <span className="admin-stack">
          <span>{actor === "cli" ? t("audit.commandLine") : actor}</span>
          {row.ip && <Typography.Text type="secondary">{row.ip}</Typography.Text>}
        </span>
      ),
    },
    {
      title: t("audit.columns.what"),
      dataIndex: "action",
      render: (action: string) => (
        <span data-action={action}>{t(`audit.actions.${action}`, { defaultValue: action })}</span>
      ),
    },
    {
      title: t("audit.columns.target"),
      key: "target",
      render: (_: unknown, row) => {
        const label = row.targetLabel ?? row.targetId ?? "—";
        return row.targetType === "user" && row.targetId ? (
          <Link to={hrefIn(pathname, `/user/admin/users/${row.targetId}`)}>{label}</Link>
        ) : (
          label
        );
      },
    },
    {
      title: t("audit.columns.change"),
      key: "change",
      render: (_: unknown, row) => <ChangeList before={row.before} after={row.after} locale={locale} />,
    },
    { title: t("audit.columns.reason"), dataIndex: "reason", render: (v: string | null) => v ?? "—" },
  ];
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("audit.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("audit.subtitle")}</Typography.Paragraph>
      <FilterForm key={query} label={t("audit.filtersLabel")}>
        <FilterSelect
          name="area"
          label={t("audit.area")}
          value={search.area}
          options={ACTION_AREAS.map((a) => ({ value: a, label: t(`audit.areas.${a}`) }))}
        />
        <label className="admin-filter">
          <span>{t("audit.actor")}</span>
          <Input name="actor" defaultValue={search.actor} />
        </label>
        <label className="admin-filter">
          <span>{t("audit.target")}</span>
          <Input name="target" defaultValue={search.target} />
        </label>
        <DayRange from={search.from} to={search.to} />
      </FilterForm>
      <Typography.Paragraph type="secondary" className="admin-count">
        {t("audit.count", { count: actions.total, formatted: formatNumber(locale, actions.total) })}
      </Typography.Paragraph>
      <PagedTable paged={actions} param="page" columns={columns} empty={t("audit.empty")} />
    </div>
  );
}
