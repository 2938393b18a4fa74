import { Typography } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/overview";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { PeriodFilter } from "#app/components/admin/filter-form.tsx";
import { Figure, type Direction } from "#app/components/admin/figure.tsx";
import { BarList, ColumnChart, type Segment } from "#app/components/admin/charts.tsx";
import { businessOverview, type Figures, type Money } from "#server/modules/overview/business-figures.ts";
import { periodOf, periodStart } from "#common/admin.ts";
import { GENERATION_STATUSES } from "#common/generation.ts";
import { formatDate, formatDayMonth, formatMoney, formatNumber, formatRelative } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db, runtime } = requireAdmin(context, request);
  const period = periodOf(new URL(request.url).searchParams.get("period"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:overview.title"),
    noindex: true,
  }));
  const now = new Date();
  const overview = await businessOverview({ db, from: periodStart(period, now), to: now });
  const names = Object.fromEntries(runtime.models.entries().map((e) => [e.id, e.definition.name]));
  return {
    seo,
    i18n,
    locale,
    period,
    now: now.toISOString(),
    ...overview,
    models: overview.models.map((m) => ({ ...m, name: names[m.modelId] ?? m.modelId })),
    queue: { ...overview.queue, oldestQueuedAt: overview.queue.oldestQueuedAt?.toISOString() ?? null },
  };
}

const percentOf = (locale: Locale, value: number | null) =>
  value === null ? "—" : formatNumber(locale, value, { style: "percent", maximumFractionDigits: 1 });

/** The amount in one currency of a list of amounts (0 without it). */
const amountIn = (money: Money[], currency: string) => money.find((m) => m.currency === currency)?.amount ?? 0;

export default function Overview({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  const locale = loaderData.locale as Locale;
  const { current, previous, period, series, bucket, models, queue, subscriptionsNow } = loaderData;
  const number = (value: number) => formatNumber(locale, value);
  const moneyLines = (money: Money[]) => money.map((m) => formatMoney(locale, m.amount, m.currency)).join(" · ");
  // The currencies paid in either period, most revenue first: each gets its figure and its chart.
  const currencies = [...new Set([...current.revenue, ...previous.revenue].map((m) => m.currency))];
  const timeOf = (start: string) =>
    bucket === "hour" ? `${start.slice(11, 13)}:00` : formatDayMonth(locale, start.slice(0, 10));
  const longTimeOf = (start: string) =>
    bucket === "hour"
      ? formatDate(locale, `${start}:00:00Z`)
      : formatDate(locale, `${start}T00:00:00Z`, { dateOnly: true });
  const statusLegend = [
    { tone: "success" as const, label: t("generationStatus.succeeded") },
    { tone: "error" as const, label: t("generationStatus.failed") },
    { tone: "muted" as const, label: t("overview.charts.other") },
  ];
  const activationShare = current.signups === 0 ? null : current.activated / current.signups;
  /** A count over the period, with its change from the period before. */
  const count = (
    id: string,
    key: string,
    pick: (figures: Figures) => number,
    more: { hint?: string; good?: Direction } = {},
  ) => (
    <Figure
      testId={`overview-${id}`}
      label={t(`overview.${key}`)}
      value={number(pick(current))}
      hint={more.hint && t(`overview.${more.hint}`)}
      current={pick(current)}
      previous={pick(previous)}
      good={more.good}
    />
  );

  return (
    <div className="page-wide admin-wide">
      <Typography.Title level={1} className="page-title">
        {t("overview.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("overview.subtitle")}</Typography.Paragraph>
      <PeriodFilter period={period} label={t("overview.periodLabel")} />

      <section className="overview-section" aria-labelledby="overview-people">
        <h2 id="overview-people" className="overview-heading">
          {t("overview.sections.people")}
        </h2>
        <div className="overview-figures">
          {count("signups", "signups", (f) => f.signups)}
          <Figure
            testId="overview-activated"
            label={t("overview.activated")}
            value={number(current.activated)}
            hint={
              activationShare === null
                ? t("overview.activatedHint")
                : t("overview.activatedShare", { share: percentOf(locale, activationShare) })
            }
            current={current.activated}
            previous={previous.activated}
          />
          {count("actives", "weeklyActives", (f) => f.weeklyActives, { hint: "weeklyActivesHint" })}
          {count("paying", "payingUsers", (f) => f.payingUsers)}
        </div>
      </section>

      <section className="overview-section" aria-labelledby="overview-money">
        <h2 id="overview-money" className="overview-heading">
          {t("overview.sections.money")}
        </h2>
        <div className="overview-figures">
          {currencies.length === 0 ? (
            <Figure
              testId="overview-revenue"
              label={t("overview.revenue")}
              value={<span className="overview-figure-empty">{t("overview.noRevenue")}</span>}
            />
          ) : (
            currencies.map((currency) => (
              <Figure
                key={currency}
                testId={`overview-revenue-${currency}`}
                label={t("overview.revenueIn", { currency: currency.toUpperCase() })}
                value={formatMoney(locale, amountIn(current.revenue, currency), currency)}
                current={amountIn(current.revenue, currency)}
                previous={amountIn(previous.revenue, currency)}
              />
            ))
          )}
          <Figure
            testId="overview-refunds"
            label={t("overview.refunds")}
            value={number(current.refunds.orders)}
            hint={current.refunds.amounts.length > 0 ? moneyLines(current.refunds.amounts) : undefined}
            current={current.refunds.orders}
            previous={previous.refunds.orders}
            good="down"
          />
          <Figure
            testId="overview-disputes"
            label={t("overview.disputes")}
            value={number(current.disputes.opened)}
            hint={t("overview.disputesLost", {
              count: current.disputes.lost,
              formatted: number(current.disputes.lost),
            })}
            current={current.disputes.opened}
            previous={previous.disputes.opened}
            good="down"
          />
        </div>
        <div className="overview-charts">
          {(currencies.length > 0 ? currencies : ["usd"]).map((currency) => (
            <ColumnChart
              key={currency}
              title={t(bucket === "hour" ? "overview.charts.revenueHourly" : "overview.charts.revenueDaily", {
                currency: currency.toUpperCase(),
              })}
              formatMax={(value) => formatMoney(locale, value, currency)}
              columns={series.map((b) => {
                const amount = amountIn(b.revenue, currency);
                return {
                  key: b.start,
                  label: timeOf(b.start),
                  description: `${longTimeOf(b.start)}: ${formatMoney(locale, amount, currency)}`,
                  segments: [{ value: amount, tone: "primary" }],
                };
              })}
            />
          ))}
        </div>
      </section>

      <section className="overview-section" aria-labelledby="overview-subscriptions">
        <h2 id="overview-subscriptions" className="overview-heading">
          {t("overview.sections.subscriptions")}
        </h2>
        <div className="overview-figures">
          {subscriptionsNow.mrr.length === 0 ? (
            <Figure
              testId="overview-mrr"
              label={t("overview.mrr")}
              value={<span className="overview-figure-empty">{t("overview.noSubscriptions")}</span>}
            />
          ) : (
            subscriptionsNow.mrr.map((m) => (
              <Figure
                key={m.currency}
                testId={`overview-mrr-${m.currency}`}
                label={t("overview.mrrIn", { currency: m.currency.toUpperCase() })}
                value={formatMoney(locale, m.amount, m.currency)}
                hint={t("overview.mrrHint")}
              />
            ))
          )}
          <Figure
            testId="overview-subscribers"
            label={t("overview.activeSubscriptions")}
            value={number(subscriptionsNow.active)}
            hint={t("overview.activeSubscriptionsHint", {
              trialing: number(subscriptionsNow.trialing),
              pastDue: number(subscriptionsNow.pastDue),
            })}
          />
          {count("new-subscriptions", "newSubscriptions", (f) => f.subscriptions.started)}
          <Figure
            testId="overview-churn"
            label={t("overview.churn")}
            value={percentOf(locale, current.subscriptions.churnRate)}
            hint={t("overview.churnHint", { formatted: number(current.subscriptions.ended) })}
            current={current.subscriptions.churnRate ?? 0}
            previous={previous.subscriptions.churnRate ?? 0}
            good="down"
          />
          {count("failed-payments", "failedPayments", (f) => f.subscriptions.failedPayments, {
            hint: "failedPaymentsHint",
            good: "down",
          })}
        </div>
      </section>

      <section className="overview-section" aria-labelledby="overview-credits">
        <h2 id="overview-credits" className="overview-heading">
          {t("overview.sections.credits")}
        </h2>
        <div className="overview-figures">
          {count("sold", "creditsSold", (f) => f.creditsSold)}
          {count("spent", "creditsSpent", (f) => f.creditsSpent, { hint: "creditsSpentHint" })}
          {count("given", "creditsGiven", (f) => f.creditsGiven, { hint: "creditsGivenHint", good: "neutral" })}
          {count("taken-back", "creditsTakenBack", (f) => f.creditsTakenBack, {
            hint: "creditsTakenBackHint",
            good: "down",
          })}
          {count("outstanding", "creditsOutstanding", (f) => f.creditsOutstanding, {
            hint: "creditsOutstandingHint",
            good: "neutral",
          })}
        </div>
      </section>

      <section className="overview-section" aria-labelledby="overview-generations">
        <h2 id="overview-generations" className="overview-heading">
          {t("overview.sections.generations")}
        </h2>
        <div className="overview-figures">
          {count("generations", "generations", (f) => f.generations.total)}
          <Figure
            testId="overview-failure-rate"
            label={t("overview.failureRate")}
            value={percentOf(locale, current.generations.failureRate)}
            hint={t("overview.failureRateHint")}
            current={current.generations.failureRate}
            previous={previous.generations.failureRate}
            good="down"
          />
          <Figure
            testId="overview-queue"
            label={t("overview.queue")}
            value={t("overview.queueWaiting", { formatted: number(queue.queued) })}
            hint={[
              t("overview.queueRunning", { formatted: number(queue.processing) }),
              queue.oldestQueuedAt
                ? t("overview.oldestWaiting", {
                    time: formatRelative(locale, queue.oldestQueuedAt, new Date(loaderData.now)),
                  })
                : t("overview.queueEmpty"),
            ].join(" · ")}
          />
        </div>
        <div className="overview-charts">
          <ColumnChart
            title={t(bucket === "hour" ? "overview.charts.generationsHourly" : "overview.charts.generationsDaily")}
            formatMax={number}
            legend={statusLegend}
            columns={series.map((b) => ({
              key: b.start,
              label: timeOf(b.start),
              description: `${longTimeOf(b.start)}: ${t("overview.charts.statusCounts", {
                succeeded: number(b.succeeded),
                failed: number(b.failed),
                other: number(b.other),
              })}`,
              segments: [
                { value: b.succeeded, tone: "success" },
                { value: b.failed, tone: "error" },
                { value: b.other, tone: "muted" },
              ],
            }))}
          />
          <BarList
            title={t("overview.charts.byStatus")}
            bars={GENERATION_STATUSES.map((status) => ({
              key: status,
              label: t(`generationStatus.${status}`),
              value: number(current.generations.byStatus[status]),
              segments: [{ value: current.generations.byStatus[status], tone: STATUS_TONES[status] }],
            }))}
          />
          <BarList
            title={t("overview.charts.byModel")}
            legend={statusLegend}
            bars={models.map((m) => ({
              key: m.modelId,
              label: m.name,
              value: t("overview.charts.modelValue", {
                jobs: number(m.jobs),
                rate: percentOf(locale, m.succeeded + m.failed === 0 ? null : m.failed / (m.succeeded + m.failed)),
              }),
              segments: [
                { value: m.succeeded, tone: "success" },
                { value: m.failed, tone: "error" },
                { value: m.jobs - m.succeeded - m.failed, tone: "muted" },
              ],
            }))}
          />
        </div>
        <Typography.Paragraph type="secondary" className="admin-hint">
          <Link to={hrefIn(pathname, `/user/admin/models?period=${period}`)}>{t("overview.modelsLink")}</Link>
        </Typography.Paragraph>
      </section>
    </div>
  );
}

const STATUS_TONES: Record<(typeof GENERATION_STATUSES)[number], Segment["tone"]> = {
  queued: "muted",
  processing: "primary",
  succeeded: "success",
  failed: "error",
  canceled: "muted",
};
