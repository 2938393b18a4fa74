import { useEffect, useState } from "react";
import { Button, Descriptions, Result, Spin } from "antd";
import { CloseCircleOutlined, RollbackOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, data, useLocation, useRevalidator } from "react-router";
import type { Route } from "./+types/order";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
import { getOrder } from "#server/modules/payments/get-order.ts";
import { InvoiceLinks } from "#app/components/billing/orders-table.tsx";
import { formatDate, formatMoney, formatNumber } from "#common/format.ts";
import { displayName } from "#config/models.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

/** While the payment is being confirmed the page asks again every few seconds, for a few minutes at most. */
const POLL_MS = 2_000;
const POLL_FOR_MS = 5 * 60_000;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { viewer, db } = requireViewer(context, request);
  // Only reads: the order moves with the payment provider's signed events, never because this page was opened.
  const order = await getOrder({ db, userId: viewer.id, orderId: params.id });
  if (!order) throw data({ messageKey: "error.404" }, { status: 404 });
  const { locale, i18n, seo } = pageMeta(context, request, ["billing"], (t) => ({
    title: t("billing:orders.detail.title", { id: order.id.slice(0, 8) }),
    noindex: true,
  }));
  return { seo, i18n, locale, order };
}

export default function Order({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  const { order } = loaderData;
  const locale = loaderData.locale as Locale;
  const revalidator = useRevalidator();
  const [slow, setSlow] = useState(false);
  const pending = order.status === "pending";

  useEffect(() => {
    if (!pending) return;
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started > POLL_FOR_MS) {
        clearInterval(timer);
        setSlow(true);
        return;
      }
      if (document.visibilityState === "visible" && revalidator.state === "idle") void revalidator.revalidate();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [pending, revalidator]);

  const credits = formatNumber(locale, order.credits);
  const status = order.status;
  const invoice = order.kind === "subscription";
  const planName = displayName({ name: order.planName ?? order.planId ?? "", names: order.planNames ?? {} }, locale);
  const result =
    status === "pending" ? (
      <Result
        icon={<Spin size="large" />}
        title={t("orders.detail.pending")}
        subTitle={slow ? t("orders.detail.slow") : t("orders.detail.pendingHint")}
      />
    ) : status === "paid" ? (
      <Result
        status="success"
        title={t("orders.detail.paid")}
        subTitle={
          invoice
            ? t("orders.detail.paidHintPlan", { formatted: credits, plan: planName })
            : t("orders.detail.paidHint", { formatted: credits })
        }
      />
    ) : status === "refunded" ? (
      <Result
        status="warning"
        title={t("orders.detail.refunded")}
        subTitle={
          <>
            {t("orders.detail.refundedHint")}
            {order.shortfall > 0 && (
              <>
                <br />
                {t("orders.detail.shortfall", { formatted: formatNumber(locale, order.shortfall) })}
              </>
            )}
          </>
        }
      />
    ) : (
      <Result
        icon={<CloseCircleOutlined />}
        status={status === "failed" ? "error" : "info"}
        title={t(`orders.detail.${status}`)}
        subTitle={t(`orders.detail.${status}Hint`)}
      />
    );

  return (
    <div className="page-narrow" aria-live="polite" aria-busy={pending}>
      <h1 className="sr-only">{t("orders.detail.title", { id: order.id.slice(0, 8) })}</h1>
      <div data-testid="order-status" data-status={status}>
        {result}
      </div>
      <Descriptions bordered column={1} size="small" className="order-details">
        {invoice ? (
          <>
            <Descriptions.Item label={t("orders.detail.plan")}>
              <span data-testid="order-plan">{planName}</span>
              {order.billingReason && (
                <span className="order-reason"> · {t(`orders.detail.reasons.${reasonOf(order.billingReason)}`)}</span>
              )}
            </Descriptions.Item>
            {order.periodStart && order.periodEnd && (
              <Descriptions.Item label={t("orders.detail.period")}>
                <span data-testid="order-period">
                  {t("orders.detail.periodRange", {
                    start: formatDate(locale, order.periodStart, { dateOnly: true }),
                    end: formatDate(locale, order.periodEnd, { dateOnly: true }),
                  })}
                </span>
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t("orders.columns.credits")}>
              {t("orders.packCredits", { formatted: credits })}
            </Descriptions.Item>
          </>
        ) : (
          <Descriptions.Item label={t("orders.detail.pack")}>
            {t("orders.packCredits", { formatted: credits })}
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t("orders.columns.amount")}>
          {formatMoney(locale, order.amount, order.currency)}
        </Descriptions.Item>
        <Descriptions.Item label={t("orders.columns.status")}>{t(`orders.status.${status}`)}</Descriptions.Item>
        <Descriptions.Item label={t("orders.detail.created")}>{formatDate(locale, order.createdAt)}</Descriptions.Item>
        {order.paidAt && (
          <Descriptions.Item label={t("orders.detail.paidAt")}>{formatDate(locale, order.paidAt)}</Descriptions.Item>
        )}
        {order.disputeStatus && (
          <Descriptions.Item label={t("orders.detail.dispute")}>
            <span data-testid="order-dispute">{t(`orders.detail.disputes.${order.disputeStatus}`)}</span>
          </Descriptions.Item>
        )}
        {(order.invoiceUrl || order.invoicePdf) && (
          <Descriptions.Item label={t("orders.detail.invoice")}>
            <InvoiceLinks order={order} />
          </Descriptions.Item>
        )}
        {order.receiptUrl && (
          <Descriptions.Item label={t("orders.columns.receipt")}>
            <a href={order.receiptUrl} target="_blank" rel="noopener noreferrer">
              {t("orders.receipt")}
            </a>
          </Descriptions.Item>
        )}
      </Descriptions>
      <div className="page-actions">
        <Link to={hrefIn(pathname, "/user/orders")}>
          <Button icon={<RollbackOutlined />}>{t("orders.detail.back")}</Button>
        </Link>
      </div>
    </div>
  );
}

/** Why Stripe made the invoice, as the page words it: the subscription's start, a renewal, a plan change. */
function reasonOf(reason: string): "start" | "renewal" | "change" | "other" {
  if (reason === "subscription_create") return "start";
  if (reason === "subscription_cycle") return "renewal";
  if (reason === "subscription_update") return "change";
  return "other";
}
