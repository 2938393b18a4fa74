import { Space, Tag, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { OrderView } from "#server/modules/payments/list-orders.ts";
import { formatDate, formatMoney, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";
import { PagedTable, type Paged } from "./paged-table.tsx";

const STATUS_COLORS = {
  pending: "processing",
  paid: "success",
  canceled: "default",
  refunded: "warning",
  failed: "error",
};

/** The account's credit orders, a page at a time (`?page=`), each with its details and the provider's receipt. */
export function OrdersTable({ orders, locale }: { orders: Paged<OrderView>; locale: Locale }) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  const columns: TableColumnsType<OrderView> = [
    {
      title: t("orders.columns.date"),
      dataIndex: "createdAt",
      render: (value: string) => formatDate(locale, value),
    },
    {
      title: t("orders.columns.credits"),
      dataIndex: "credits",
      align: "right",
      render: (value: number, row) =>
        row.kind === "subscription" ? (
          <>
            {formatNumber(locale, value)} <Tag>{t("orders.planInvoice", { plan: row.planName ?? row.planId })}</Tag>
          </>
        ) : (
          formatNumber(locale, value)
        ),
    },
    {
      title: t("orders.columns.amount"),
      dataIndex: "amount",
      align: "right",
      render: (value: number, row) => formatMoney(locale, value, row.currency),
    },
    {
      title: t("orders.columns.status"),
      dataIndex: "status",
      render: (value: keyof typeof STATUS_COLORS) => (
        <Tag color={STATUS_COLORS[value]}>{t(`orders.status.${value}`)}</Tag>
      ),
    },
    {
      title: t("orders.columns.receipt"),
      key: "links",
      render: (_: unknown, row) => (
        <Space size={12}>
          <Link to={hrefIn(pathname, `/user/orders/${row.id}`)}>{t("orders.details")}</Link>
          <InvoiceLinks order={row} />
          {row.receiptUrl && (
            <a href={row.receiptUrl} target="_blank" rel="noopener noreferrer">
              {t("orders.receipt")}
            </a>
          )}
        </Space>
      ),
    },
  ];
  return <PagedTable paged={orders} param="page" columns={columns} empty={t("orders.ordersEmpty")} />;
}

/** A subscription invoice's links at Stripe: its hosted page and its PDF (nothing for a pack's order). */
export function InvoiceLinks({ order }: { order: Pick<OrderView, "invoiceUrl" | "invoicePdf"> }) {
  const { t } = useTranslation("billing");
  if (!order.invoiceUrl && !order.invoicePdf) return null;
  return (
    <Space size={12}>
      {order.invoiceUrl && (
        <a href={order.invoiceUrl} target="_blank" rel="noopener noreferrer">
          {t("orders.invoice")}
        </a>
      )}
      {order.invoicePdf && (
        <a href={order.invoicePdf} target="_blank" rel="noopener noreferrer">
          {t("orders.invoicePdf")}
        </a>
      )}
    </Space>
  );
}
