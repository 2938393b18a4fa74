import { Input, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/users";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { pageOf } from "#app/lib/paging.ts";
import { PagedTable } from "#app/components/billing/paged-table.tsx";
import { FilterForm, FilterSelect } from "#app/components/admin/filter-form.tsx";
import { UserTags } from "#app/components/admin/user-tags.tsx";
import { searchUsers, userSearchSchema, type UserRow } from "#server/modules/users/search-users.ts";
import { USER_SORTS } from "#common/admin.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

const PAGE_SIZE = 25;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const params = new URL(request.url).searchParams;
  const search = userSearchSchema.parse(Object.fromEntries(params));
  const page = pageOf(params.get("page"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:users.title"),
    noindex: true,
  }));
  const users = await searchUsers({ db, search, page, pageSize: PAGE_SIZE });
  return { seo, i18n, locale, search, users: { ...users, page, pageSize: PAGE_SIZE } };
}

export default function Users({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname, search: query } = useLocation();
  const { search, users } = loaderData;
  const locale = loaderData.locale as Locale;
  const yesNo = [
    { value: "yes", label: t("filters.yes") },
    { value: "no", label: t("filters.no") },
  ];
  const columns: TableColumnsType<UserRow> = [
    {
      title: t("users.columns.user"),
      dataIndex: "email",
      render: (email: string, row) => (
        <Link to={hrefIn(pathname, `/user/admin/users/${row.id}`)} className="admin-user-link">
          <strong>{row.name}</strong>
          <span>{email}</span>
        </Link>
      ),
    },
    { title: t("users.columns.status"), key: "status", render: (_: unknown, row) => <UserTags user={row} /> },
    {
      title: t("users.columns.balance"),
      dataIndex: "balance",
      align: "right",
      render: (value: number) => formatNumber(locale, value),
    },
    {
      title: t("users.columns.paid"),
      dataIndex: "paid",
      render: (paid: boolean) => (paid ? <Tag color="gold">{t("users.paying")}</Tag> : "—"),
    },
    {
      title: t("users.columns.joined"),
      dataIndex: "createdAt",
      render: (value: string) => formatDate(locale, value, { dateOnly: true }),
    },
  ];
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("users.title")}
      </Typography.Title>
      <FilterForm key={query} label={t("users.filtersLabel")}>
        <label className="admin-filter admin-filter-grow">
          <span>{t("users.search")}</span>
          <Input name="q" type="search" defaultValue={search.q} placeholder={t("users.searchPlaceholder")} />
        </label>
        <FilterSelect
          name="role"
          label={t("users.role")}
          value={search.role}
          options={[
            { value: "user", label: t("users.roles.user") },
            { value: "admin", label: t("users.roles.admin") },
          ]}
        />
        <FilterSelect name="banned" label={t("users.banned")} value={search.banned} options={yesNo} />
        <FilterSelect name="verified" label={t("users.verified")} value={search.verified} options={yesNo} />
        <FilterSelect name="paid" label={t("users.paid")} value={search.paid} options={yesNo} />
        <FilterSelect
          name="sort"
          label={t("users.sort")}
          value={search.sort ?? "newest"}
          any={false}
          options={USER_SORTS.map((s) => ({ value: s, label: t(`users.sorts.${s}`) }))}
        />
      </FilterForm>
      <Typography.Paragraph type="secondary" className="admin-count">
        {t("users.count", { count: users.total, formatted: formatNumber(locale, users.total) })}
      </Typography.Paragraph>
      <PagedTable paged={users} param="page" columns={columns} empty={t("users.empty")} />
    </div>
  );
}
