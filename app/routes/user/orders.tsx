import { Typography } from "antd";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/orders";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { BalanceCard } from "#app/components/billing/balance-card.tsx";
import { CreditHistoryTable } from "#app/components/billing/credit-history-table.tsx";
import { OrdersTable } from "#app/components/billing/orders-table.tsx";
import { RedeemCard } from "#app/components/billing/redeem-card.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { listOrders } from "#server/modules/payments/list-orders.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { redeemIntent } from "#app/lib/redeem.server.ts";
import type { Locale } from "#common/locales.ts";
import { formOf } from "#app/lib/request.server.ts";
import { pageOf } from "#app/lib/paging.ts";

const ORDERS_PER_PAGE = 10;
const ENTRIES_PER_PAGE = 20;

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

export async function action({ context, request }: Route.ActionArgs) {
  const { viewer, db } = requireViewer(context, request);
  return redeemIntent(db, viewer.id, await formOf(request));
}

export default function Orders({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  const locale = loaderData.locale as Locale;
  const { balance, orders, history } = loaderData;
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("orders.title")}
      </Typography.Title>
      <div className="orders-top">
        <BalanceCard balance={balance} locale={locale} />
        <RedeemCard locale={locale} pageAnswer={actionData} />
      </div>
      <section aria-labelledby="orders-heading" className="orders-section">
        <Typography.Title level={2} id="orders-heading" className="section-title">
          {t("orders.ordersTitle")}
        </Typography.Title>
        <OrdersTable orders={orders} locale={locale} />
      </section>
      <section aria-labelledby="history-heading" className="orders-section">
        <Typography.Title level={2} id="history-heading" className="section-title">
          {t("orders.historyTitle")}
        </Typography.Title>
        <CreditHistoryTable history={history} locale={locale} />
      </section>
    </div>
  );
}
