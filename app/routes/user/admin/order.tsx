import { Card, Descriptions, Space, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { data, Link, useLocation } from "react-router";
import type { Route } from "./+types/order";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf, pathLocale } from "#app/lib/request.server.ts";
import { allRows, PagedTable } from "#app/components/billing/paged-table.tsx";
import { ReasonForm, ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { getOrderRecord } from "#server/modules/payments/search-orders.ts";
import { refundOrder } from "#server/modules/payments/refund-order.ts";
import { AppError } from "#server/errors.ts";
import { formatDate, formatMoney, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";
import { ORDER_STATUS_COLORS } from "#app/components/admin/status-colors.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { db, runtime } = requireAdmin(context, request);
  const record = await getOrderRecord({ db, orderId: params.id });
  if (!record) throw data({ messageKey: "error.404" }, { status: 404 });
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:order.title"),
    noindex: true,
  }));
  const { order } = record;
  const refundable =
    Boolean(runtime.stripe) &&
    order.status === "paid" &&
    Boolean(order.paymentIntentId) &&
    order.refundedAmount < order.amount;
  return { seo, i18n, locale, ...record, refundable };
}

export async function action({ context, request, params }: Route.ActionArgs) {
  const { db, runtime, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  if (form.get("intent") !== "refund") throw data({ messageKey: "error.400" }, { status: 400 });
  const reason = String(form.get("reason") ?? "").trim();
  if (!reason || reason.length > 500)
    return data<AdminResult>({ intent: "refund", error: "user.reasonRequired", field: "reason" }, { status: 400 });
  try {
    const { amount, currency } = await refundOrder({ db, stripe: runtime.stripe, orderId: params.id, reason, actor });
    return {
      intent: "refund",
      ok: "order.refundRequested",
      values: { amount: formatMoney(pathLocale(request), amount, currency) },
    } satisfies AdminResult;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found")
      throw data({ messageKey: "error.404" }, { status: 404 });
    if (error instanceof AppError)
      return data<AdminResult>({ intent: "refund", error: "order.notRefundable" }, { status: error.status });
    // The provider refused or could not be reached: nothing was refunded, and it can be tried again.
    runtime.logger.warn({ err: (error as Error).message, orderId: params.id }, "refund refused by the provider");
    return data<AdminResult>({ intent: "refund", error: "order.refundFailed" }, { status: 502 });
  }
}

export default function AdminOrder({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  const locale = loaderData.locale as Locale;
  const { order, events, refundable } = loaderData;
  const money = (minor: number) => formatMoney(locale, minor, order.currency);
  type EventRow = (typeof events)[number];
  const eventColumns: TableColumnsType<EventRow> = [
    { title: t("audit.columns.when"), dataIndex: "createdAt", render: (v: string) => formatDate(locale, v) },
    { title: t("order.eventType"), dataIndex: "type", render: (v: string) => <code>{v}</code> },
    { title: t("order.eventId"), dataIndex: "id", render: (v: string) => <code>{v}</code> },
  ];
  return (
    <div className="page-wide">
      <p className="admin-back">
        <Link to={hrefIn(pathname, "/user/admin/orders")}>← {t("order.back")}</Link>
      </p>
      <Typography.Title level={1} className="page-title">
        {t("order.title")}
      </Typography.Title>
      <Space size={4} wrap className="admin-user-head">
        <Tag color={ORDER_STATUS_COLORS[order.status]}>{t(`orderStatus.${order.status}`)}</Tag>
        {order.disputeStatus && <Tag color="red">{t(`orders.dispute.${order.disputeStatus}`)}</Tag>}
      </Space>
      <div className="admin-user-grid">
        <Card title={t("order.details")}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label={t("order.id")}>
              <code>{order.id}</code>
            </Descriptions.Item>
            <Descriptions.Item label={t("orders.columns.buyer")}>
              {order.email && order.userId ? (
                <Link to={hrefIn(pathname, `/user/admin/users/${order.userId}`)}>{order.email}</Link>
              ) : (
                t("orders.deletedAccount")
              )}
            </Descriptions.Item>
            <Descriptions.Item label={t("user.columns.pack")}>{order.packId}</Descriptions.Item>
            <Descriptions.Item label={t("user.columns.credits")}>
              {formatNumber(locale, order.credits)}
            </Descriptions.Item>
            <Descriptions.Item label={t("user.columns.amount")}>{money(order.amount)}</Descriptions.Item>
            <Descriptions.Item label={t("order.created")}>{formatDate(locale, order.createdAt)}</Descriptions.Item>
            <Descriptions.Item label={t("order.paid")}>
              {order.paidAt ? formatDate(locale, order.paidAt) : "—"}
            </Descriptions.Item>
            <Descriptions.Item label={t("order.refunded")}>{money(order.refundedAmount)}</Descriptions.Item>
            <Descriptions.Item label={t("order.creditsReversed")}>
              {formatNumber(locale, order.creditsReversed)}
              {order.shortfall > 0 &&
                ` (${t("order.shortfall", { count: order.shortfall, formatted: formatNumber(locale, order.shortfall) })})`}
            </Descriptions.Item>
            <Descriptions.Item label={t("order.paymentIntent")}>
              {order.paymentIntentId ? <code>{order.paymentIntentId}</code> : "—"}
            </Descriptions.Item>
            {order.receiptUrl && (
              <Descriptions.Item label={t("order.receipt")}>
                <a href={order.receiptUrl} target="_blank" rel="noopener noreferrer">
                  {t("order.openReceipt")}
                </a>
              </Descriptions.Item>
            )}
          </Descriptions>
        </Card>
        <Card title={t("order.refund")} className="admin-actions">
          <ResultNotice result={actionData as AdminResult | undefined} />
          {refundable ? (
            <ReasonForm
              intent="refund"
              id="refund-reason"
              label={t("order.refundAll", { amount: money(order.amount - order.refundedAmount) })}
              button={t("order.refundButton")}
              hint={t("order.refundHint")}
              danger
            />
          ) : (
            <Typography.Text type="secondary">{t("order.notRefundableNow")}</Typography.Text>
          )}
        </Card>
      </div>
      <Typography.Title level={2} className="section-title">
        {t("order.events")}
      </Typography.Title>
      <PagedTable paged={allRows(events)} param="events" columns={eventColumns} empty={t("order.noEvents")} />
    </div>
  );
}
