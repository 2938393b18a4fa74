import { Input, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/generations";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { pageOf } from "#app/lib/paging.ts";
import { PagedTable } from "#app/components/billing/paged-table.tsx";
import { DayRange, FilterForm, FilterSelect } from "#app/components/admin/filter-form.tsx";
import { GENERATION_STATUS_COLORS } from "#app/components/admin/status-colors.ts";
import {
  generationSearchSchema,
  searchGenerations,
  type AdminGenerationRow,
} from "#server/modules/generation/search-generations.ts";
import { GENERATION_STATUSES } from "#common/generation.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

const PAGE_SIZE = 25;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db, runtime } = requireAdmin(context, request);
  const params = new URL(request.url).searchParams;
  const search = generationSearchSchema.parse(Object.fromEntries(params));
  const page = pageOf(params.get("page"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:generations.title"),
    noindex: true,
  }));
  const generations = await searchGenerations({ db, search, page, pageSize: PAGE_SIZE });
  const models = runtime.models.entries().map((e) => ({ id: e.id, name: e.definition.name }));
  return { seo, i18n, locale, search, models, generations: { ...generations, page, pageSize: PAGE_SIZE } };
}

export default function AdminGenerations({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname, search: query } = useLocation();
  const { search, generations, models } = loaderData;
  const locale = loaderData.locale as Locale;
  const columns: TableColumnsType<AdminGenerationRow> = [
    {
      title: t("user.columns.date"),
      dataIndex: "createdAt",
      render: (v: string, row) => (
        <Link to={hrefIn(pathname, `/user/admin/generations/${row.id}`)}>{formatDate(locale, v)}</Link>
      ),
    },
    {
      title: t("generations.columns.owner"),
      dataIndex: "email",
      render: (email: string, row) => <Link to={hrefIn(pathname, `/user/admin/users/${row.userId}`)}>{email}</Link>,
    },
    { title: t("user.columns.model"), dataIndex: "modelId", render: (v: string) => <code>{v}</code> },
    {
      title: t("user.columns.prompt"),
      dataIndex: "prompt",
      render: (v: string) => <span className="admin-clip">{v}</span>,
    },
    {
      title: t("user.columns.status"),
      dataIndex: "status",
      render: (v: string, row) => (
        <span>
          <Tag color={GENERATION_STATUS_COLORS[v]}>{t(`generationStatus.${v}`)}</Tag>
          {row.visibility === "public" && <Tag color="blue">{t("generations.public")}</Tag>}
          {row.hiddenAt && <Tag color="red">{t("generations.hidden")}</Tag>}
          {row.refundedAt && <Tag color="gold">{t("generations.refunded")}</Tag>}
        </span>
      ),
    },
    {
      title: t("user.columns.credits"),
      key: "credits",
      align: "right",
      render: (_: unknown, row) => formatNumber(locale, row.creditsCharged ?? row.creditsHeld),
    },
  ];
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("generations.title")}
      </Typography.Title>
      <FilterForm key={query} label={t("generations.filtersLabel")}>
        <label className="admin-filter admin-filter-grow">
          <span>{t("generations.columns.owner")}</span>
          <Input name="user" type="search" defaultValue={search.user} placeholder={t("generations.userPlaceholder")} />
        </label>
        <FilterSelect
          name="status"
          label={t("user.columns.status")}
          value={search.status}
          options={GENERATION_STATUSES.map((s) => ({ value: s, label: t(`generationStatus.${s}`) }))}
        />
        <FilterSelect
          name="model"
          label={t("user.columns.model")}
          value={search.model}
          options={models.map((m) => ({ value: m.id, label: m.name }))}
        />
        <DayRange from={search.from} to={search.to} />
      </FilterForm>
      <Typography.Paragraph type="secondary" className="admin-count">
        {t("generations.count", { count: generations.total, formatted: formatNumber(locale, generations.total) })}
      </Typography.Paragraph>
      <PagedTable paged={generations} param="page" columns={columns} empty={t("generations.empty")} />
    </div>
  );
}
