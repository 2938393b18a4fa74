import { Input, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/orders";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { pageOf } from "#app/lib/paging.ts";
import { PagedTable } from "#app/components/billing/paged-table.tsx";
import { DayRange, FilterForm, FilterSelect } from "#app/components/admin/filter-form.tsx";
import { ORDER_STATUS_COLORS } from "#app/components/admin/status-colors.ts";
import { orderSearchSchema, searchOrders, type AdminOrderRow } from "#server/modules/payments/search-orders.ts";
import { ORDER_STATUSES } from "#common/orders.ts";
import { formatDate, formatMoney, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

const PAGE_SIZE = 25;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const params = new URL(request.url).searchParams;
  const search = orderSearchSchema.parse(Object.fromEntries(params));
  const page = pageOf(params.get("page"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:orders.title"),
    noindex: true,
  }));
  const orders = await searchOrders({ db, search, page, pageSize: PAGE_SIZE });
  return { seo, i18n, locale, search, orders: { ...orders, page, pageSize: PAGE_SIZE } };
}

export default function AdminOrders({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname, search: query } = useLocation();
  const { search, orders } = loaderData;
  const locale = loaderData.locale as Locale;
  const columns: TableColumnsType<AdminOrderRow> = [
    {
      title: t("orders.columns.date"),
      dataIndex: "createdAt",
      render: (v: string, row) => (
        <Link to={hrefIn(pathname, `/user/admin/orders/${row.id}`)}>{formatDate(locale, v)}</Link>
      ),
    },
    {
      title: t("orders.columns.buyer"),
      dataIndex: "email",
      render: (email: string | null, row) =>
        email && row.userId ? (
          <Link to={hrefIn(pathname, `/user/admin/users/${row.userId}`)}>{email}</Link>
        ) : (
          <Typography.Text type="secondary">{t("orders.deletedAccount")}</Typography.Text>
        ),
    },
    {
      title: t("user.columns.credits"),
      dataIndex: "credits",
      align: "right",
      render: (v: number) => formatNumber(locale, v),
    },
    {
      title: t("user.columns.amount"),
      dataIndex: "amount",
      align: "right",
      render: (v: number, row) => formatMoney(locale, v, row.currency),
    },
    {
      title: t("user.columns.status"),
      dataIndex: "status",
      render: (v: string, row) => (
        <span>
          <Tag color={ORDER_STATUS_COLORS[v]}>{t(`orderStatus.${v}`)}</Tag>
          {row.disputeStatus && <Tag color="red">{t(`orders.dispute.${row.disputeStatus}`)}</Tag>}
        </span>
      ),
    },
    { title: t("orders.columns.provider"), dataIndex: "provider" },
  ];
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("orders.title")}
      </Typography.Title>
      <FilterForm key={query} label={t("orders.filtersLabel")}>
        <label className="admin-filter admin-filter-grow">
          <span>{t("users.search")}</span>
          <Input name="q" type="search" defaultValue={search.q} placeholder={t("orders.searchPlaceholder")} />
        </label>
        <FilterSelect
          name="status"
          label={t("user.columns.status")}
          value={search.status}
          options={ORDER_STATUSES.map((s) => ({ value: s, label: t(`orderStatus.${s}`) }))}
        />
        <FilterSelect
          name="provider"
          label={t("orders.columns.provider")}
          value={search.provider}
          options={[{ value: "stripe", label: "Stripe" }]}
        />
        <DayRange from={search.from} to={search.to} />
      </FilterForm>
      <Typography.Paragraph type="secondary" className="admin-count">
        {t("orders.count", { count: orders.total, formatted: formatNumber(locale, orders.total) })}
      </Typography.Paragraph>
      <PagedTable paged={orders} param="page" columns={columns} empty={t("orders.empty")} />
    </div>
  );
}
