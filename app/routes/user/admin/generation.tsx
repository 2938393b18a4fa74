import { Button, Card, Descriptions, Space, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { data, Form, Link, useLocation } from "react-router";
import type { Route } from "./+types/generation";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf, pathLocale } from "#app/lib/request.server.ts";
import { allRows, PagedTable } from "#app/components/billing/paged-table.tsx";
import { ReasonForm, ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { GENERATION_STATUS_COLORS } from "#app/components/admin/status-colors.ts";
import { getGenerationRecord } from "#server/modules/generation/search-generations.ts";
import { hideGeneration, refundGeneration } from "#server/modules/generation/moderate-generation.ts";
import { AppError } from "#server/errors.ts";
import { setFeatured } from "#server/modules/explore/set-featured.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const record = await getGenerationRecord({ db, id: params.id });
  if (!record) throw data({ messageKey: "error.404" }, { status: 404 });
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:generation.title"),
    noindex: true,
  }));
  return { seo, i18n, locale, ...record };
}

export async function action({ context, request, params }: Route.ActionArgs) {
  const { db, actor, runtime } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = form.get("intent");
  if (intent === "feature" || intent === "unfeature") {
    try {
      await setFeatured({ db, id: params.id, featured: intent === "feature", actor });
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found")
        throw data({ messageKey: "error.404" }, { status: 404 });
      if (error instanceof AppError && error.code === "conflict")
        return data<AdminResult>({ intent, error: "generation.notFeaturable" }, { status: 409 });
      throw error;
    }
    // The home page and explore kept in memory show what is featured.
    runtime.publicPages.changed();
    return {
      intent,
      ok: intent === "feature" ? "generation.featuredNow" : "generation.unfeaturedNow",
    } satisfies AdminResult;
  }
  if (intent !== "refund" && intent !== "hide") throw data({ messageKey: "error.400" }, { status: 400 });
  const reason = String(form.get("reason") ?? "").trim();
  if (!reason || reason.length > 500)
    return data<AdminResult>({ intent, error: "user.reasonRequired", field: `${intent}-reason` }, { status: 400 });
  try {
    if (intent === "hide") {
      await hideGeneration({ db, id: params.id, reason, actor });
      // The home page's showcase in memory may show it.
      runtime.publicPages.changed();
      return { intent, ok: "generation.hiddenNow" } satisfies AdminResult;
    }
    const { credits } = await refundGeneration({ db, id: params.id, reason, actor });
    return {
      intent,
      ok: "generation.refundedNow",
      values: { count: credits, formatted: formatNumber(pathLocale(request), credits) },
    } satisfies AdminResult;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found")
      throw data({ messageKey: "error.404" }, { status: 404 });
    if (error instanceof AppError && error.code === "conflict")
      return data<AdminResult>(
        { intent, error: intent === "hide" ? "generation.alreadyHidden" : "generation.notRefundable" },
        { status: 409 },
      );
    throw error;
  }
}

/** A provider, and the connection of it that served when it is not the environment's (named as the provider). */
const servedBy = (provider: string, connection: string | null) =>
  connection && connection !== provider ? `${connection} (${provider})` : provider;

export default function AdminGeneration({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  const locale = loaderData.locale as Locale;
  const { generation: g, attempts } = loaderData;
  const result = actionData as AdminResult | undefined;
  const refundable = g.status === "succeeded" && (g.creditsCharged ?? 0) > 0 && !g.refundedAt;
  type AttemptRow = (typeof attempts)[number];
  const attemptColumns: TableColumnsType<AttemptRow> = [
    { title: t("generation.run"), dataIndex: "run", align: "right" },
    {
      title: t("generation.provider"),
      dataIndex: "provider",
      render: (v: string, row) => `${servedBy(v, row.connection)} · ${row.providerModel}`,
    },
    {
      title: t("user.columns.status"),
      dataIndex: "outcome",
      render: (v: string | null) =>
        v === "interrupted" ? (
          <Tag color="warning">{t("generation.interrupted")}</Tag>
        ) : v ? (
          <Tag color={GENERATION_STATUS_COLORS[v]}>{t(`generationStatus.${v}`)}</Tag>
        ) : (
          "—"
        ),
    },
    {
      title: t("generation.error"),
      key: "error",
      render: (_: unknown, row) =>
        row.errorCode ? (
          <span className="admin-stack">
            <code>{row.errorCode}</code>
            {row.detail && <Typography.Text type="secondary">{row.detail}</Typography.Text>}
          </span>
        ) : (
          "—"
        ),
    },
    { title: t("audit.columns.when"), dataIndex: "startedAt", render: (v: string) => formatDate(locale, v) },
  ];
  return (
    <div className="page-wide">
      <p className="admin-back">
        <Link to={hrefIn(pathname, "/user/admin/generations")}>← {t("generation.back")}</Link>
      </p>
      <Typography.Title level={1} className="page-title">
        {t("generation.title")}
      </Typography.Title>
      <Space size={4} wrap className="admin-user-head">
        <Tag color={GENERATION_STATUS_COLORS[g.status]}>{t(`generationStatus.${g.status}`)}</Tag>
        {g.visibility === "public" && <Tag color="blue">{t("generations.public")}</Tag>}
        {g.hiddenAt && <Tag color="red">{t("generations.hidden")}</Tag>}
        {g.refundedAt && <Tag color="gold">{t("generations.refunded")}</Tag>}
      </Space>
      <div className="admin-user-grid">
        <Card title={t("order.details")}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label={t("generations.columns.owner")}>
              <Link to={hrefIn(pathname, `/user/admin/users/${g.userId}`)}>{g.email}</Link>
            </Descriptions.Item>
            <Descriptions.Item label={t("user.columns.model")}>
              <code>{g.modelId}</code>
            </Descriptions.Item>
            <Descriptions.Item label={t("user.columns.prompt")}>{g.prompt}</Descriptions.Item>
            {g.parentId && (
              <Descriptions.Item label={t("generation.parent")}>
                <Link to={hrefIn(pathname, `/user/admin/generations/${g.parentId}`)}>
                  <code>{g.parentId}</code>
                </Link>
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t("generation.source")}>
              {g.source === "api" ? "API" : t("generation.web")}
            </Descriptions.Item>
            <Descriptions.Item label={t("user.columns.credits")}>
              {formatNumber(locale, g.creditsCharged ?? g.creditsHeld)}
            </Descriptions.Item>
            <Descriptions.Item label={t("user.columns.date")}>{formatDate(locale, g.createdAt)}</Descriptions.Item>
            <Descriptions.Item label={t("generation.finished")}>
              {g.finishedAt ? formatDate(locale, g.finishedAt) : "—"}
            </Descriptions.Item>
            <Descriptions.Item label={t("generation.provider")}>
              {g.provider ? `${servedBy(g.provider, g.connection)} · ${g.providerModel}` : "—"}
            </Descriptions.Item>
            {g.errorCode && (
              <Descriptions.Item label={t("generation.error")}>
                <span className="admin-stack">
                  <code>{g.errorCode}</code>
                  {g.errorMessage && <span>{g.errorMessage}</span>}
                </span>
              </Descriptions.Item>
            )}
          </Descriptions>
        </Card>
        <Card title={t("user.actions")} className="admin-actions">
          <ResultNotice result={result} />
          <Space orientation="vertical" size={20} className="admin-action-list">
            {refundable ? (
              <ReasonForm
                intent="refund"
                id="refund-reason"
                label={t("generation.refund", {
                  count: g.creditsCharged ?? 0,
                  formatted: formatNumber(locale, g.creditsCharged ?? 0),
                })}
                button={t("order.refundButton")}
              />
            ) : (
              <Typography.Text type="secondary">
                {t(g.refundedAt ? "generation.alreadyRefunded" : "generation.nothingToRefund")}
              </Typography.Text>
            )}
            {g.featuredAt ||
            (g.visibility === "public" && g.status === "succeeded" && !g.hiddenAt && g.review !== "flagged") ? (
              <Form method="post" className="admin-inline-form">
                <Typography.Text>
                  {g.featuredAt
                    ? t("generation.featuredSince", { date: formatDate(locale, g.featuredAt) })
                    : t("generation.featureHint")}
                </Typography.Text>
                <Button htmlType="submit" name="intent" value={g.featuredAt ? "unfeature" : "feature"}>
                  {t(g.featuredAt ? "generation.unfeature" : "generation.feature")}
                </Button>
              </Form>
            ) : null}
            {g.hiddenAt ? (
              <Typography.Text type="secondary">
                {t("generation.hiddenSince", { date: formatDate(locale, g.hiddenAt) })}
              </Typography.Text>
            ) : (
              <ReasonForm
                intent="hide"
                id="hide-reason"
                label={t("generation.hide")}
                button={t("generation.hideButton")}
                hint={t("generation.hideHint")}
                danger
              />
            )}
          </Space>
        </Card>
      </div>
      <Typography.Title level={2} className="section-title">
        {t("generation.attempts")}
      </Typography.Title>
      <PagedTable
        paged={allRows(attempts)}
        param="attempts"
        columns={attemptColumns}
        empty={t("generation.noAttempts")}
      />
    </div>
  );
}
