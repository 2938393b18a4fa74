import { Typography } from "antd";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/orders";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { BalanceCard } from "#app/components/billing/balance-card.tsx";
import { expiringCredits } from "#server/modules/credits/expire-credits.ts";
import { CreditHistoryTable } from "#app/components/billing/credit-history-table.tsx";
import { OrdersTable } from "#app/components/billing/orders-table.tsx";
import { RedeemCard } from "#app/components/billing/redeem-card.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { listOrders } from "#server/modules/payments/list-orders.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { redeemIntent } from "#app/lib/redeem.server.ts";
import type { Locale } from "#common/locales.ts";
import { formOf, pathLocale } from "#app/lib/request.server.ts";
import { data, redirect, useSearchParams, type ShouldRevalidateFunctionArgs } from "react-router";
import { eq } from "drizzle-orm";
import { billingCustomer, plan } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { currentPlan } from "#server/modules/billing/entitlements.ts";
import { listSubscriptions, openBillingPortal } from "#server/modules/billing/start-subscription.ts";
import { siteWithSettings } from "#server/modules/settings/settings-store.ts";
import { SubscriptionCard, type SubscriptionView } from "#app/components/billing/subscription-card.tsx";
import { Alert } from "#app/components/ui/display.tsx";
import { pageOf } from "#app/lib/paging.ts";
import { ONE_SHOT_PARAMS } from "#app/components/billing/paged-table.tsx";
import { AutoTopUpCard, type AutoTopUpAnswer } from "#app/components/billing/auto-topup-card.tsx";
import { autoTopUpOf, saveAutoTopUp, turnOffAutoTopUp } from "#server/modules/billing/auto-topup.ts";
import { billingDetailsOf, saveBillingDetails } from "#server/modules/billing/billing-details.ts";
import { BillingDetailsCard, type BillingDetailsAnswer } from "#app/components/billing/billing-details-card.tsx";
import { BILLING_FIELDS } from "#common/billing-details.ts";

const ORDERS_PER_PAGE = 10;
const ENTRIES_PER_PAGE = 20;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, db, runtime } = requireViewer(context, request);
  const url = new URL(request.url);
  const ordersPage = pageOf(url.searchParams.get("page"));
  const historyPage = pageOf(url.searchParams.get("history"));
  const [orders, history, balance, expiring, subscriptions, current, customer, topUp, details] = await Promise.all([
    listOrders({ db, userId: viewer.id, page: ordersPage, pageSize: ORDERS_PER_PAGE }),
    listEntries({ db, userId: viewer.id, page: historyPage, pageSize: ENTRIES_PER_PAGE }),
    getBalance({ db, userId: viewer.id }),
    expiringCredits({ db, userId: viewer.id }),
    listSubscriptions(db, viewer.id),
    currentPlan(db, viewer.id),
    db.select().from(billingCustomer).where(eq(billingCustomer.userId, viewer.id)),
    autoTopUpOf(db, viewer.id),
    // The card is shown only where purchasing is configured: no read for it elsewhere.
    runtime.stripe ? billingDetailsOf(db, viewer.id) : null,
  ]);
  const packs = runtime.stripe
    ? runtime.settings.current().packs.map(({ id, credits, amount, currency }) => ({ id, credits, amount, currency }))
    : [];
  const latest = subscriptions[0];
  const [next] = latest?.nextPlanId
    ? await db.select({ name: plan.name, names: plan.names }).from(plan).where(eq(plan.id, latest.nextPlanId))
    : [];
  const { locale, i18n, seo } = pageMeta(context, request, ["billing", "messages"], (t) => ({
    title: t("billing:orders.title"),
    noindex: true,
  }));
  return {
    seo,
    i18n,
    locale,
    balance,
    expiring: expiring.map((e) => ({ credits: e.credits, expiresAt: e.expiresAt!.toISOString() })),
    subscription: latest
      ? ({
          planName: latest.planNames[locale as Locale] ?? latest.planName,
          status: latest.status,
          amount: latest.amount,
          currency: latest.currency,
          currentPeriodEnd: latest.currentPeriodEnd.toISOString(),
          cancelAtPeriodEnd: latest.cancelAtPeriodEnd,
          trialEnd: latest.trialEnd?.toISOString() ?? null,
          paymentIssue: latest.paymentIssue,
          graceUntil: latest.graceUntil?.toISOString() ?? null,
          endedAt: latest.endedAt?.toISOString() ?? null,
          entitled: current.id === latest.planId,
          nextPlanName: next ? (next.names[locale as Locale] ?? next.name) : null,
        } satisfies SubscriptionView)
      : null,
    manageable: customer.length > 0 && Boolean(runtime.stripe),
    justSubscribed: url.searchParams.has("subscribed"),
    topUp,
    packs,
    billingDetails: details,
    topUpReturned: (["saved", "canceled"] as const).find((r) => r === url.searchParams.get("topup")) ?? null,
    changed:
      (["upgraded", "scheduled", "unscheduled"] as const).find((c) => c === url.searchParams.get("changed")) ?? null,
    orders: { ...orders, page: ordersPage, pageSize: ORDERS_PER_PAGE },
    history: { ...history, page: historyPage, pageSize: ENTRIES_PER_PAGE },
  };
}

/** Dropping the one-time parameters after a return from Stripe loads nothing again. */
export function shouldRevalidate({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs) {
  if (formMethod || currentUrl.pathname !== nextUrl.pathname) return defaultShouldRevalidate;
  const without = new URLSearchParams(currentUrl.search);
  for (const key of ONE_SHOT_PARAMS) without.delete(key);
  return without.toString() === nextUrl.searchParams.toString() &&
    without.toString() !== currentUrl.searchParams.toString()
    ? false
    : defaultShouldRevalidate;
}

export async function action({ context, request }: Route.ActionArgs) {
  const { viewer, db, runtime } = requireViewer(context, request);
  const form = await formOf(request);
  if (form.get("intent") === "portal") {
    const locale = pathLocale(request);
    try {
      const site = siteWithSettings(runtime.site, runtime.settings.current());
      const { url } = await openBillingPortal({ db, stripe: runtime.stripe, site, userId: viewer.id, locale });
      return redirect(url);
    } catch (error) {
      if (error instanceof AppError)
        return data({ portalError: `common:${error.messageKey}` }, { status: error.status });
      throw error;
    }
  }
  const intent = form.get("intent");
  if (intent === "topUp" || intent === "topUpCard" || intent === "topUpOff") {
    if (intent === "topUpOff") {
      await turnOffAutoTopUp(db, viewer.id);
      return data<AutoTopUpAnswer>({ topUpSaved: true });
    }
    try {
      const site = siteWithSettings(runtime.site, runtime.settings.current());
      const { url } = await saveAutoTopUp({
        db,
        stripe: runtime.stripe,
        site,
        logger: runtime.logger,
        user: { id: viewer.id, email: viewer.email, name: viewer.name },
        input: Object.fromEntries(form),
        locale: pathLocale(request),
        newCard: intent === "topUpCard",
      });
      return url ? redirect(url) : data<AutoTopUpAnswer>({ topUpSaved: true });
    } catch (error) {
      if (error instanceof AppError)
        return data<AutoTopUpAnswer>({ topUpError: `common:${error.messageKey}` }, { status: error.status });
      throw error;
    }
  }
  if (intent === "billingDetails") {
    try {
      await saveBillingDetails({
        db,
        stripe: runtime.stripe,
        logger: runtime.logger,
        user: { id: viewer.id, email: viewer.email, name: viewer.name },
        input: Object.fromEntries(BILLING_FIELDS.map((f) => [f, String(form.get(f) ?? "")])),
      });
      return data<BillingDetailsAnswer>({ billingSaved: true });
    } catch (error) {
      if (error instanceof AppError)
        return data<BillingDetailsAnswer>(
          { billingError: `common:${error.messageKey}`, field: String(error.values?.field ?? "") },
          { status: error.status },
        );
      throw error;
    }
  }
  return redeemIntent(db, viewer.id, form);
}

export default function Orders({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  const locale = loaderData.locale as Locale;
  const { balance, orders, history } = loaderData;
  // The thank-you of a return from Stripe is shown once: the address loses its parameter through the router (so the
  // page's forms, which post to the address, do not carry it back), and a reload does not say it again. The page's
  // data stays as it is: `shouldRevalidate` loads nothing for that change.
  const [search, setSearch] = useSearchParams();
  useEffect(() => {
    if (!ONE_SHOT_PARAMS.some((key) => search.has(key))) return;
    const next = new URLSearchParams(search);
    for (const key of ONE_SHOT_PARAMS) next.delete(key);
    setSearch(next, { replace: true, preventScrollReset: true });
  }, [search, setSearch]);
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("orders.title")}
      </Typography.Title>
      {actionData && "portalError" in actionData && <Alert type="error" title={t(actionData.portalError)} />}
      <SubscriptionCard
        subscription={loaderData.subscription}
        manageable={loaderData.manageable}
        locale={locale}
        justSubscribed={loaderData.justSubscribed}
        changed={loaderData.changed}
      />
      <div className="orders-top">
        <BalanceCard balance={balance} expiring={loaderData.expiring} locale={locale} />
        <RedeemCard
          locale={locale}
          pageAnswer={actionData && ("ok" in actionData || "error" in actionData) ? actionData : undefined}
        />
      </div>
      <AutoTopUpCard
        topUp={loaderData.topUp}
        packs={loaderData.packs}
        locale={locale}
        returned={loaderData.topUpReturned}
        answer={actionData && ("topUpError" in actionData || "topUpSaved" in actionData) ? actionData : undefined}
      />
      {loaderData.billingDetails && (
        <BillingDetailsCard
          details={loaderData.billingDetails}
          locale={locale}
          answer={actionData && ("billingSaved" in actionData || "billingError" in actionData) ? actionData : undefined}
        />
      )}
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
