import { useTranslation } from "react-i18next";
import { Form, Link, useLocation } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Alert, Tag } from "#app/components/ui/display.tsx";
import { formatDate, formatMoney } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";
import type { PaymentIssue, SubscriptionStatus } from "#common/plans.ts";

export interface SubscriptionView {
  planName: string;
  status: SubscriptionStatus;
  amount: number;
  currency: string;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
  trialEnd: string | null;
  paymentIssue: PaymentIssue | null;
  graceUntil: string | null;
  endedAt: string | null;
  /** Whether its plan's entitlements apply now. */
  entitled: boolean;
  /** The plan a downgrade moves it to at the period's end. */
  nextPlanName: string | null;
}

const STATUS_COLORS: Record<SubscriptionStatus, "success" | "processing" | "warning" | "error" | undefined> = {
  incomplete: undefined,
  incomplete_expired: undefined,
  trialing: "processing",
  active: "success",
  past_due: "warning",
  unpaid: "error",
  canceled: undefined,
  paused: undefined,
};

/**
 * The account's plan on its orders page: the subscription's state in words (renews, ends, trial, a payment to fix
 * before the grace period ends), Stripe's portal to manage it, and the plans otherwise.
 */
export function SubscriptionCard({
  subscription,
  manageable,
  locale,
  justSubscribed,
  changed,
}: {
  subscription: SubscriptionView | null;
  manageable: boolean;
  locale: Locale;
  justSubscribed: boolean;
  changed: "upgraded" | "scheduled" | "unscheduled" | null;
}) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  const s = subscription;
  const date = (value: string) => formatDate(locale, value);
  return (
    <section className="orders-plan" aria-labelledby="plan-heading" data-testid="subscription-card">
      <h2 id="plan-heading" className="section-title">
        {t("orders.subscription.title")}
      </h2>
      {justSubscribed && <Alert type="success" title={t("orders.subscription.subscribed")} />}
      {changed && <Alert type="success" title={t(`orders.subscription.changed.${changed}`)} />}
      {!s || s.status === "canceled" || s.status === "incomplete_expired" ? (
        <p>
          {t("orders.subscription.free")}
          {s?.endedAt ? ` ${t("orders.subscription.ended", { date: date(s.endedAt) })}` : ""}
        </p>
      ) : (
        <>
          <p className="orders-plan-name">
            <strong>{s.planName}</strong>{" "}
            <Tag color={STATUS_COLORS[s.status]} data-testid="subscription-status">
              {t(`orders.subscription.status.${s.status}`)}
            </Tag>
          </p>
          {s.paymentIssue && s.entitled && s.graceUntil && (
            <Alert
              type="warning"
              title={t(
                s.paymentIssue === "action_required"
                  ? "orders.subscription.actionRequired"
                  : "orders.subscription.failed",
                { date: date(s.graceUntil) },
              )}
            />
          )}
          {s.paymentIssue && !s.entitled && <Alert type="error" title={t("orders.subscription.lapsed")} />}
          {!s.paymentIssue && (
            <p>
              {s.status === "trialing" && s.trialEnd
                ? t("orders.subscription.trial", { date: date(s.trialEnd) })
                : s.cancelAtPeriodEnd
                  ? t("orders.subscription.cancels", { date: date(s.currentPeriodEnd) })
                  : t("orders.subscription.renews", {
                      date: date(s.currentPeriodEnd),
                      price: formatMoney(locale, s.amount, s.currency),
                    })}
              {s.nextPlanName && !s.cancelAtPeriodEnd
                ? ` ${t("orders.subscription.changes", { plan: s.nextPlanName, date: date(s.currentPeriodEnd) })}`
                : ""}
            </p>
          )}
        </>
      )}
      <div className="orders-plan-actions">
        {manageable && (
          <Form method="post">
            <input type="hidden" name="intent" value="portal" />
            <Button htmlType="submit" data-testid="manage-subscription">
              {t("orders.subscription.manage")}
            </Button>
          </Form>
        )}
        <Link to={hrefIn(pathname, "/pricing#plans")}>{t("orders.subscription.seePlans")}</Link>
      </div>
      {manageable && <p className="orders-plan-help">{t("orders.subscription.manageHelp")}</p>}
    </section>
  );
}
