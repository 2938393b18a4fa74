import { useEffect, useRef } from "react";
import { Button, Card, Input, Space, Statistic, Table, Tag, Typography } from "antd";
import { GiftOutlined, ShoppingOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { Link, data, useFetcher, useLocation, useSearchParams } from "react-router";
import type { Route } from "./+types/orders";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { useToast } from "#app/components/feedback.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
import { listOrders } from "#server/modules/payments/list-orders.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { redeemCode } from "#server/modules/credits/redeem-code.ts";
import { AppError } from "#server/errors.ts";
import { formatDate, formatMoney, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

const ORDERS_PER_PAGE = 10;
const ENTRIES_PER_PAGE = 20;
const MAX_PAGE = 10_000;

const pageOf = (value: string | null) => {
  const n = Number(value ?? 1);
  return Number.isSafeInteger(n) && n >= 1 && n <= MAX_PAGE ? n : 1;
};

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, db } = requireViewer(context, request);
  const url = new URL(request.url);
  const ordersPage = pageOf(url.searchParams.get("page"));
  const historyPage = pageOf(url.searchParams.get("history"));
  const [orders, history, balance] = await Promise.all([
    listOrders({ db, userId: viewer.id, page: ordersPage, pageSize: ORDERS_PER_PAGE }),
    listEntries({ db, userId: viewer.id, page: historyPage, pageSize: ENTRIES_PER_PAGE }),
    getBalance({ db, userId: viewer.id }),
  ]);
  const { locale, i18n, seo } = pageMeta(context, request, ["billing", "messages"], (t) => ({
    title: t("billing:orders.title"),
    noindex: true,
  }));
  return {
    seo,
    i18n,
    locale,
    balance,
    orders: { ...orders, page: ordersPage, pageSize: ORDERS_PER_PAGE },
    history: { ...history, page: historyPage, pageSize: ENTRIES_PER_PAGE },
  };
}

type Result = { ok?: true; credits?: number; error?: string };

export async function action({ context, request }: Route.ActionArgs) {
  const { viewer, db } = requireViewer(context, request);
  const form = await request.formData();
  if (form.get("intent") !== "redeem") return data<Result>({ error: "common:error.400" }, { status: 400 });
  const code = String(form.get("code") ?? "").trim();
  if (!code) return data<Result>({ error: "billing:orders.redeem.required" }, { status: 400 });
  try {
    const { credits } = await redeemCode({ db, userId: viewer.id, code: code.slice(0, 64) });
    return { ok: true, credits } satisfies Result;
  } catch (error) {
    if (error instanceof AppError)
      return data<Result>({ error: `common:${error.messageKey}` }, { status: error.status });
    throw error;
  }
}

const STATUS_COLORS = {
  pending: "processing",
  paid: "success",
  canceled: "default",
  refunded: "warning",
  failed: "error",
};

/** Page links that work before the scripts load: each page number is a real link. */
function pageLinks(search: URLSearchParams, param: string) {
  return (page: number, type: string, original: React.ReactNode) => {
    if (type !== "page" && type !== "prev" && type !== "next") return original;
    const next = new URLSearchParams(search);
    next.set(param, String(page));
    return (
      <Link to={`?${next.toString()}`} preventScrollReset>
        {type === "page" ? page : original}
      </Link>
    );
  };
}

export default function Orders({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  const [search] = useSearchParams();
  const locale = loaderData.locale as Locale;
  const toast = useToast();
  const redeem = useFetcher<Result>();
  const codeInput = useRef<HTMLFormElement>(null);
  const { balance, orders, history } = loaderData;

  useEffect(() => {
    if (redeem.state !== "idle" || !redeem.data) return;
    if (redeem.data.ok) {
      toast.success(
        t("messages:credits.redeem.success", { formatted: formatNumber(locale, redeem.data.credits ?? 0) }),
      );
      codeInput.current?.reset();
    } else if (redeem.data.error) {
      toast.error(t(redeem.data.error));
    }
  }, [redeem.state, redeem.data, toast, t, locale]);

  const signed = (n: number) => (n > 0 ? `+${formatNumber(locale, n)}` : n < 0 ? `−${formatNumber(locale, -n)}` : "0");

  return (
    <main className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("orders.title")}
      </Typography.Title>

      <div className="orders-top">
        <Card className="orders-balance">
          <Space size={32} wrap>
            <Statistic title={t("orders.available")} value={formatNumber(locale, balance.available)} />
            <Statistic title={t("orders.balance")} value={formatNumber(locale, balance.balance)} />
            {balance.held > 0 && <Statistic title={t("orders.held")} value={formatNumber(locale, balance.held)} />}
          </Space>
          <div className="page-actions">
            <Button type="primary" icon={<ShoppingOutlined />} href={hrefIn(pathname, "/pricing")}>
              {t("orders.buyCredits")}
            </Button>
          </div>
        </Card>
        <Card
          className="orders-redeem"
          title={
            <span>
              <GiftOutlined aria-hidden /> {t("orders.redeem.title")}
            </span>
          }
        >
          <redeem.Form method="post" ref={codeInput}>
            <input type="hidden" name="intent" value="redeem" />
            <label htmlFor="redeem-code" className="sr-only">
              {t("orders.redeem.label")}
            </label>
            <Space.Compact block>
              <Input
                id="redeem-code"
                name="code"
                required
                maxLength={64}
                autoComplete="off"
                spellCheck={false}
                placeholder={t("orders.redeem.placeholder")}
              />
              <Button type="primary" htmlType="submit" loading={redeem.state !== "idle"}>
                {t("orders.redeem.submit")}
              </Button>
            </Space.Compact>
          </redeem.Form>
        </Card>
      </div>

      <section aria-labelledby="orders-heading" className="orders-section">
        <Typography.Title level={2} id="orders-heading" className="section-title">
          {t("orders.ordersTitle")}
        </Typography.Title>
        <Table
          rowKey="id"
          size="middle"
          scroll={{ x: "max-content" }}
          dataSource={orders.rows}
          locale={{ emptyText: t("orders.ordersEmpty") }}
          pagination={
            orders.total > orders.pageSize && {
              current: orders.page,
              pageSize: orders.pageSize,
              total: orders.total,
              showSizeChanger: false,
              itemRender: pageLinks(search, "page"),
            }
          }
          columns={[
            {
              title: t("orders.columns.date"),
              dataIndex: "createdAt",
              render: (value: string) => formatDate(locale, value),
            },
            {
              title: t("orders.columns.credits"),
              dataIndex: "credits",
              align: "right",
              render: (value: number) => formatNumber(locale, value),
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
                  {row.receiptUrl && (
                    <a href={row.receiptUrl} target="_blank" rel="noopener noreferrer">
                      {t("orders.receipt")}
                    </a>
                  )}
                </Space>
              ),
            },
          ]}
        />
      </section>

      <section aria-labelledby="history-heading" className="orders-section">
        <Typography.Title level={2} id="history-heading" className="section-title">
          {t("orders.historyTitle")}
        </Typography.Title>
        <Table
          rowKey="id"
          size="middle"
          scroll={{ x: "max-content" }}
          dataSource={history.rows}
          locale={{ emptyText: t("orders.historyEmpty") }}
          pagination={
            history.total > history.pageSize && {
              current: history.page,
              pageSize: history.pageSize,
              total: history.total,
              showSizeChanger: false,
              itemRender: pageLinks(search, "history"),
            }
          }
          columns={[
            {
              title: t("orders.columns.date"),
              dataIndex: "createdAt",
              render: (value: string) => formatDate(locale, value),
            },
            {
              title: t("orders.columns.kind"),
              dataIndex: "kind",
              render: (value: string) => t(`orders.kinds.${value}`),
            },
            {
              title: t("orders.columns.change"),
              dataIndex: "amount",
              align: "right",
              render: (value: number, row) =>
                value !== 0 ? (
                  <span className={value > 0 ? "credit-plus" : "credit-minus"}>{signed(value)}</span>
                ) : row.heldChange !== 0 ? (
                  <span className="credit-held">
                    {t(row.heldChange > 0 ? "orders.reserved" : "orders.freed", {
                      formatted: formatNumber(locale, Math.abs(row.heldChange)),
                    })}
                  </span>
                ) : (
                  "0"
                ),
            },
            {
              title: t("orders.columns.balanceAfter"),
              dataIndex: "balanceAfter",
              align: "right",
              render: (value: number) => formatNumber(locale, value),
            },
            {
              title: t("orders.columns.reference"),
              dataIndex: "reference",
              render: (ref: (typeof history.rows)[number]["reference"]) => {
                if (!ref) return null;
                const short = ref.label ?? ref.id.slice(0, 8);
                const label = t(`orders.reference.${ref.type}`, { id: short });
                return ref.type === "order" ? (
                  <Link to={hrefIn(pathname, `/user/orders/${ref.id}`)}>{label}</Link>
                ) : (
                  label
                );
              },
            },
          ]}
        />
      </section>
    </main>
  );
}
