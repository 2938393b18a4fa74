import CheckCircleFilled from "@ant-design/icons-svg/es/asn/CheckCircleFilled";
import { useTranslation } from "react-i18next";
import { Form, Link, useLocation, useNavigation } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Tag } from "#app/components/ui/display.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { formatDate, formatMoney, formatNumber } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";
import { FREE_PLAN_ID, type PlanInterval, type PlanUnlocks } from "#common/plans.ts";

/** A plan as the pricing page shows it, in the page's language. */
export interface PlanCard {
  id: string;
  name: string;
  description: string;
  monthly: Record<string, number>;
  yearly: Record<string, number>;
  credits: number;
  rollover: number;
  trialDays: number;
  unlocks: PlanUnlocks;
}

interface PlanCardsProps {
  plans: PlanCard[];
  interval: PlanInterval;
  locale: Locale;
  /** The plan the viewer has now (null: signed out). */
  current: string | null;
  /** Whether the viewer has a Stripe customer, so a portal to manage from. */
  manageable: boolean;
  /** The viewer's subscription in good standing, which can move to another plan from here. */
  subscription: {
    planId: string;
    interval: PlanInterval;
    currency: string;
    amount: number;
    nextPlanId: string | null;
    periodEnd: string;
  } | null;
  purchasing: boolean;
  signInHref: string;
  requestKey: string | null;
}

/**
 * The plans beside the packs: a monthly/yearly switch made of links (it works before scripts arrive), each plan's
 * price, credits and what it unlocks, and a form that opens Stripe Checkout for it.
 */
export function PlanCards(props: PlanCardsProps) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const { plans, interval, locale } = props;
  const subscribing = navigation.state !== "idle" ? navigation.formData?.get("plan") : undefined;
  const other = (i: PlanInterval) => `${pathname}?interval=${i}#plans`;
  return (
    <section className="pricing-plans" id="plans" aria-labelledby="pricing-plans-title">
      <div className="pricing-plans-head">
        <h2 id="pricing-plans-title">{t("pricing.plans.title")}</h2>
        <p className="pricing-section-lead">{t("pricing.plans.subtitle")}</p>
        <nav className="pricing-interval" aria-label={t("pricing.plans.intervalLabel")}>
          {(["monthly", "yearly"] as const).map((i) => (
            <Link
              key={i}
              to={other(i)}
              replace
              preventScrollReset
              className={i === interval ? "is-active" : undefined}
              aria-current={i === interval ? "page" : undefined}
              data-testid={`interval-${i}`}
            >
              {t(`pricing.plans.${i}`)}
            </Link>
          ))}
        </nav>
      </div>
      <div className="pricing-packs">
        {plans.map((plan) => {
          const prices = plan[interval];
          const sub = props.subscription;
          // A subscriber sees prices in their subscription's currency: Stripe keeps it for the subscription's life.
          const currency = sub
            ? prices[sub.currency] !== undefined
              ? sub.currency
              : undefined
            : Object.keys(prices)[0];
          const free = plan.id === FREE_PLAN_ID;
          const isCurrent = props.current === plan.id;
          const onIt = sub?.planId === plan.id && sub.interval === interval;
          const upgrade =
            sub && currency
              ? perMonth(prices[currency]!, interval) > perMonth(sub.amount, sub.interval) ||
                (interval === "yearly" && sub.interval === "monthly")
              : false;
          const shorter = sub !== null && sub.interval === "yearly" && interval === "monthly";
          return (
            <div
              className={`pricing-pack${isCurrent ? " is-popular" : ""}`}
              key={plan.id}
              data-testid={`plan-${plan.id}`}
            >
              {isCurrent ? (
                <Tag color="processing" className="pricing-popular">
                  {t("pricing.plans.current")}
                </Tag>
              ) : sub?.nextPlanId === plan.id ? (
                <Tag color="processing" className="pricing-popular">
                  {t("pricing.plans.nextPlan", { date: formatDate(locale, sub.periodEnd) })}
                </Tag>
              ) : null}
              <h3 className="pricing-plan-name">{plan.name}</h3>
              {plan.description && <p className="pricing-plan-description">{plan.description}</p>}
              <p className="pricing-pack-price">
                {free
                  ? formatMoney(
                      locale,
                      0,
                      Object.keys(plans.find((p) => Object.keys(p[interval]).length > 0)?.[interval] ?? { usd: 0 })[0]!,
                    )
                  : currency
                    ? t(interval === "yearly" ? "pricing.plans.perYear" : "pricing.plans.perMonth", {
                        price: formatMoney(locale, prices[currency]!, currency),
                      })
                    : t(interval === "yearly" ? "pricing.plans.notInInterval" : "pricing.plans.notInIntervalMonthly")}
              </p>
              <ul className="pricing-pack-facts">
                {free && <Fact>{t("pricing.plans.freeDescription")}</Fact>}
                {plan.credits > 0 && (
                  <Fact>{t("pricing.plans.credits", { formatted: formatNumber(locale, plan.credits) })}</Fact>
                )}
                {plan.rollover > 0 && (
                  <Fact>{t("pricing.plans.rollover", { formatted: formatNumber(locale, plan.rollover) })}</Fact>
                )}
                {plan.trialDays > 0 && <Fact>{t("pricing.plans.trial", { count: plan.trialDays })}</Fact>}
                {plan.unlocks.models.length > 0 && (
                  <Fact>{t("pricing.plans.models", { models: plan.unlocks.models.join(", ") })}</Fact>
                )}
                {plan.unlocks.concurrentJobs !== null && (
                  <Fact>{t("pricing.plans.concurrentJobs", { count: plan.unlocks.concurrentJobs })}</Fact>
                )}
                {plan.unlocks.privateResults && <Fact>{t("pricing.plans.privateResults")}</Fact>}
                {plan.unlocks.noLabel && <Fact>{t("pricing.plans.noLabel")}</Fact>}
                {plan.unlocks.priority && <Fact>{t("pricing.plans.priority")}</Fact>}
                {plan.unlocks.api && <Fact>{t("pricing.plans.api")}</Fact>}
              </ul>
              {free ? null : onIt && sub.nextPlanId ? (
                <ChangeForm plan={plan.id} interval={interval} testId={`keep-${plan.id}`} primary>
                  {t("pricing.plans.keep")}
                </ChangeForm>
              ) : (isCurrent || onIt) && props.manageable ? (
                <Form method="post">
                  <input type="hidden" name="intent" value="portal" />
                  <Button block size="large" htmlType="submit" data-testid={`manage-${plan.id}`}>
                    {t("pricing.plans.manage")}
                  </Button>
                </Form>
              ) : sub && currency && !shorter && sub.nextPlanId !== plan.id ? (
                <>
                  <ChangeForm plan={plan.id} interval={interval} testId={`change-${plan.id}`} primary={upgrade}>
                    {t(upgrade ? "pricing.plans.upgrade" : "pricing.plans.downgrade")}
                  </ChangeForm>
                  <p className="pricing-plan-help">
                    {upgrade
                      ? t("pricing.plans.upgradeHelp")
                      : t("pricing.plans.downgradeHelp", { date: formatDate(locale, sub.periodEnd) })}
                  </p>
                </>
              ) : sub ? (
                <Button block size="large" disabled>
                  {t("pricing.plans.subscribe")}
                </Button>
              ) : !props.purchasing || !currency ? (
                <Button block size="large" disabled>
                  {t("pricing.plans.subscribe")}
                </Button>
              ) : props.current === null ? (
                <Button block size="large" type="primary" href={props.signInHref}>
                  {t("pricing.plans.signInToSubscribe")}
                </Button>
              ) : (
                <Form method="post">
                  <input type="hidden" name="intent" value="subscribe" />
                  <input type="hidden" name="plan" value={plan.id} />
                  <input type="hidden" name="interval" value={interval} />
                  <input type="hidden" name="currency" value={currency} />
                  <input type="hidden" name="key" value={`${props.requestKey}-${plan.id}-${interval}`} />
                  <Button
                    block
                    size="large"
                    type="primary"
                    htmlType="submit"
                    disabled={subscribing !== undefined && subscribing !== plan.id}
                    loading={subscribing === plan.id}
                    data-testid={`subscribe-${plan.id}`}
                  >
                    {t("pricing.plans.subscribe")}
                  </Button>
                </Form>
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}

const perMonth = (amount: number, interval: PlanInterval) => (interval === "yearly" ? amount / 12 : amount);

/** Moves the subscription to a plan (an upgrade at once, a downgrade at the period's end): a form that works without scripts. */
function ChangeForm(props: {
  plan: string;
  interval: PlanInterval;
  testId: string;
  primary?: boolean;
  children: React.ReactNode;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "change";
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="change" />
      <input type="hidden" name="plan" value={props.plan} />
      <input type="hidden" name="interval" value={props.interval} />
      <Button
        block
        size="large"
        htmlType="submit"
        type={props.primary ? "primary" : "default"}
        loading={busy && navigation.formData?.get("plan") === props.plan}
        disabled={busy}
        data-testid={props.testId}
      >
        {props.children}
      </Button>
    </Form>
  );
}

function Fact({ children }: { children: React.ReactNode }) {
  return (
    <li>
      <Icon icon={CheckCircleFilled} aria-hidden /> {children}
    </li>
  );
}
