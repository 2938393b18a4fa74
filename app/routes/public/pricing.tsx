import { randomUUID } from "node:crypto";
import CheckCircleFilled from "@ant-design/icons-svg/es/asn/CheckCircleFilled";
import LockOutlined from "@ant-design/icons-svg/es/asn/LockOutlined";
import { useTranslation } from "react-i18next";
import { isFormula, lowestUnitCredits } from "#app/lib/model-settings.ts";
import { Form, Link, data, redirect, useLocation, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/pricing";
import { serverT } from "#server/i18n/translations.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
import { displayName } from "#config/models.ts";
import { pathLocale, serverContextOf, formOf } from "#app/lib/request.server.ts";
import { siteWithSettings } from "#server/modules/settings/settings-store.ts";
import { startCheckout } from "#server/modules/payments/start-checkout.ts";
import { purchasingConfigured } from "#server/modules/payments/stripe-client.ts";
import { AppError } from "#server/errors.ts";
import { eq } from "drizzle-orm";
import { billingCustomer } from "#server/db/schema/index.ts";
import { listPlans } from "#server/modules/billing/list-plans.ts";
import { currentPlan } from "#server/modules/billing/entitlements.ts";
import { listSubscriptions, openBillingPortal, startSubscription } from "#server/modules/billing/start-subscription.ts";
import { changeSubscription } from "#server/modules/billing/change-subscription.ts";
import { PlanCards, type PlanCard } from "#app/components/billing/plan-cards.tsx";
import { FREE_PLAN_ID, type PlanInterval } from "#common/plans.ts";
import { decimalAmount, formatMoney, formatNumber, formatUnitPrice } from "#common/format.ts";
import { hrefIn, localizePath, localizedUrl, type Locale } from "#common/locales.ts";
import { signInHref } from "#common/return-path.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Alert, Tag } from "#app/components/ui/display.tsx";
import { Icon } from "#app/components/ui/icon.tsx";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  const db = runtime.database.db;
  const viewer = session.viewer;
  const [plans, current, customer, subscriptions] = await Promise.all([
    listPlans({ db }),
    viewer ? currentPlan(db, viewer.id) : null,
    viewer ? db.select().from(billingCustomer).where(eq(billingCustomer.userId, viewer.id)) : [],
    viewer ? listSubscriptions(db, viewer.id) : [],
  ]);
  // A subscription in good standing can move to another plan from here.
  const standing = subscriptions.find((s) => s.status === "active" || s.status === "trialing");
  const paid = plans.filter((p) => p.id !== FREE_PLAN_ID);
  const asked = new URL(request.url).searchParams.get("interval");
  const interval: PlanInterval =
    asked === "yearly" || asked === "monthly"
      ? asked
      : paid.some((p) => Object.keys(p.monthly).length > 0) || paid.length === 0
        ? "monthly"
        : "yearly";
  const { packs } = runtime.settings.current();
  const { site, locale, i18n, seo } = pageMeta(context, request, ["billing", "messages"], (t, site) => ({
    title: t("billing:pricing.metaTitle", { site: site.name }),
    ownTitle: true,
    description: t("billing:pricing.metaDescription"),
    // The credit packs as a product with one offer each, for search engines
    jsonLd: [
      {
        "@context": "https://schema.org",
        "@type": "Product",
        name: `${site.name} credits`,
        description: t("billing:pricing.metaDescription"),
        brand: { "@type": "Brand", name: site.name },
        offers: packs.map((pack) => ({
          "@type": "Offer",
          name: t("billing:orders.packCredits", { formatted: formatNumber(pathLocale(request), pack.credits) }),
          price: decimalAmount(pack.amount, pack.currency),
          priceCurrency: pack.currency.toUpperCase(),
          availability: "https://schema.org/InStock",
          url: localizedUrl(site.url, "/pricing", pathLocale(request)),
        })),
      },
    ],
  }));
  return {
    seo,
    i18n,
    locale,
    packs,
    // Shown only when something is sold by subscription; the free plan is then the first card.
    plans:
      paid.length === 0
        ? []
        : plans.map((p): PlanCard => ({
            id: p.id,
            // The free plan keeps its own word in each language until the operator names it there.
            name:
              p.names[locale] ??
              (p.id === FREE_PLAN_ID && p.name === "Free"
                ? serverT(locale, ["billing"])("billing:pricing.plans.free")
                : p.name),
            description: p.description[locale] ?? p.description.en ?? "",
            monthly: p.monthly,
            yearly: p.yearly,
            credits: p.credits,
            rollover: p.rollover,
            trialDays: p.trialDays,
            // Models by their names in this language; tags as they are.
            unlocks: {
              ...p.unlocks,
              // Every result is private by default; keeping them private is worth saying only when the operator made
              // the results of the other plans public.
              privateResults: p.unlocks.privateResults && runtime.settings.current().billing.publicResults,
              models: p.unlocks.models.map((m) => {
                const model = runtime.models.media().find((candidate) => candidate.id === m);
                return model ? displayName(model, locale) : m;
              }),
            },
          })),
    interval,
    currentPlan: current?.id ?? null,
    subscription: standing
      ? {
          planId: standing.planId,
          interval: standing.interval,
          currency: standing.currency,
          amount: standing.amount,
          nextPlanId: standing.nextPlanId,
          periodEnd: standing.currentPeriodEnd.toISOString(),
        }
      : null,
    manageable: customer.length > 0,
    models: runtime.models.media().map(({ id, name, names, kind, tools, price, offline }) => ({
      id,
      name: displayName({ name, names }, locale),
      kind,
      tools,
      price,
      offline: Boolean(offline),
    })),
    purchasing: purchasingConfigured(runtime.env),
    signedIn: Boolean(session.viewer),
    signupBonus: site.signupBonusCredits,
    // One key per rendered form: a double-click or a resent form finds the order the first click made. Signed-out
    // visitors get no form, and the page they see is the same for all of them.
    requestKey: session.viewer ? randomUUID() : null,
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { viewer, runtime, db } = requireViewer(context, request);
  const form = await formOf(request);
  const locale = pathLocale(request);
  const settings = runtime.settings.current();
  const site = siteWithSettings(runtime.site, settings);
  const pack = site.packs.find((p) => p.id === form.get("pack"));
  try {
    if (form.get("intent") === "subscribe") {
      const { url } = await startSubscription({
        db,
        stripe: runtime.stripe,
        site,
        logger: runtime.logger,
        user: { id: viewer.id, email: viewer.email, name: viewer.name },
        planId: String(form.get("plan") ?? ""),
        interval: String(form.get("interval") ?? ""),
        currency: String(form.get("currency") ?? ""),
        requestKey: String(form.get("key") ?? ""),
        locale,
        stripeTax: settings.billing.stripeTax,
      });
      return redirect(url);
    }
    if (form.get("intent") === "change") {
      const change = await changeSubscription({
        db,
        stripe: runtime.stripe,
        logger: runtime.logger,
        userId: viewer.id,
        planId: String(form.get("plan") ?? ""),
        interval: String(form.get("interval") ?? ""),
        locale,
      });
      return redirect(`${localizePath("/user/orders", locale)}?changed=${change}`);
    }
    if (form.get("intent") === "portal") {
      const { url } = await openBillingPortal({ db, stripe: runtime.stripe, site, userId: viewer.id, locale });
      return redirect(url);
    }
    const { url } = await startCheckout({
      db,
      stripe: runtime.stripe,
      site,
      logger: runtime.logger,
      user: { id: viewer.id, email: viewer.email, name: viewer.name },
      stripeTax: settings.billing.stripeTax,
      packId: String(form.get("pack") ?? ""),
      requestKey: String(form.get("key") ?? ""),
      locale,
      productName: `${runtime.site.name} · ${serverT(locale, ["billing"])("billing:orders.packCredits", {
        formatted: formatNumber(locale, pack?.credits ?? 0),
      })}`,
    });
    return redirect(url);
  } catch (error) {
    if (error instanceof AppError) return data({ error: `common:${error.messageKey}` }, { status: error.status });
    throw error;
  }
}

export default function Pricing({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  const [search] = useSearchParams();
  const navigation = useNavigation();
  const locale = loaderData.locale as Locale;
  const buying = navigation.state !== "idle" ? navigation.formData?.get("pack") : undefined;
  const signIn = signInHref(pathname, pathname);

  return (
    <div className="pricing">
      <section className="pricing-hero">
        <p className="home-eyebrow">{t("pricing.eyebrow")}</p>
        <h1 className="pricing-title">{t("pricing.title")}</h1>
        <p className="pricing-subtitle">
          {t(loaderData.plans.length > 0 ? "pricing.subtitlePlans" : "pricing.subtitle")}
        </p>
        {loaderData.signupBonus > 0 && (
          <p className="pricing-bonus">
            {t("pricing.bonus", { formatted: formatNumber(locale, loaderData.signupBonus) })}
          </p>
        )}
      </section>

      <div className="pricing-alerts" aria-live="polite">
        {search.get("checkout") === "canceled" && <Alert type="info" title={t("pricing.canceled")} />}
        {!loaderData.purchasing && <Alert type="warning" title={t("pricing.notConfigured")} />}
        {actionData?.error && <Alert type="error" title={t(actionData.error)} />}
      </div>

      {loaderData.plans.length > 0 && (
        <PlanCards
          plans={loaderData.plans}
          interval={loaderData.interval}
          locale={locale}
          current={loaderData.currentPlan}
          subscription={loaderData.subscription}
          manageable={loaderData.manageable}
          purchasing={loaderData.purchasing}
          signInHref={signIn}
          requestKey={loaderData.requestKey}
        />
      )}
      {loaderData.plans.length > 0 && <h2 className="pricing-packs-title">{t("pricing.packsLabel")}</h2>}
      <section className="pricing-packs" aria-label={t("pricing.packsLabel")}>
        {loaderData.packs.map((pack) => (
          <div className={`pricing-pack${pack.popular ? " is-popular" : ""}`} key={pack.id}>
            {pack.popular && (
              <Tag color="processing" className="pricing-popular">
                {t("pricing.popular")}
              </Tag>
            )}
            <p className="pricing-pack-credits">
              <span className="pricing-pack-number">{formatNumber(locale, pack.credits)}</span>{" "}
              <span className="pricing-pack-unit">{t("pricing.creditsUnit")}</span>
            </p>
            <p className="pricing-pack-price">{formatMoney(locale, pack.amount, pack.currency)}</p>
            <ul className="pricing-pack-facts">
              <li>
                <Icon icon={CheckCircleFilled} aria-hidden />{" "}
                {t("pricing.perCredit", { price: formatUnitPrice(locale, pack.amount, pack.credits, pack.currency) })}
              </li>
              <li>
                <Icon icon={CheckCircleFilled} aria-hidden /> {t("pricing.oneOff")}
              </li>
            </ul>
            {!loaderData.purchasing ? (
              // Nothing can be bought here: no way to sign in for it either (the notice above says why).
              <Button block size="large" disabled>
                {t("pricing.buy")}
              </Button>
            ) : !loaderData.signedIn ? (
              <Button block size="large" type={pack.popular ? "primary" : "default"} href={signIn}>
                {t("pricing.signInToBuy")}
              </Button>
            ) : (
              <Form method="post">
                <input type="hidden" name="pack" value={pack.id} />
                <input type="hidden" name="key" value={`${loaderData.requestKey}-${pack.id}`} />
                <Button
                  block
                  size="large"
                  htmlType="submit"
                  type={pack.popular ? "primary" : "default"}
                  disabled={buying !== undefined && buying !== pack.id}
                  loading={buying === pack.id}
                  data-testid={`buy-${pack.id}`}
                >
                  {t("pricing.buy")}
                </Button>
              </Form>
            )}
          </div>
        ))}
      </section>
      {loaderData.purchasing && (
        <p className="pricing-secure">
          <Icon icon={LockOutlined} aria-hidden /> {t("pricing.secure")}
        </p>
      )}

      <section className="pricing-section" aria-labelledby="pricing-models">
        <h2 id="pricing-models">{t("pricing.models.title")}</h2>
        <p className="pricing-section-lead">{t("pricing.models.subtitle")}</p>
        <div className="pricing-table-wrap">
          <table className="pricing-table table-reflow">
            <thead>
              <tr>
                <th scope="col">{t("pricing.models.model")}</th>
                <th scope="col">{t("pricing.models.kind")}</th>
                <th scope="col">{t("pricing.models.tools")}</th>
                <th scope="col" className="num">
                  {t("pricing.models.price")}
                </th>
                <th scope="col">{t("pricing.models.unit")}</th>
              </tr>
            </thead>
            <tbody>
              {loaderData.models.map((m) => (
                <tr key={m.id}>
                  <th scope="row">
                    {m.name}
                    {m.offline && <span className="model-tag-offline">{t("messages:generation.offlineDemo")}</span>}
                  </th>
                  <td data-label={t("pricing.models.kind")}>{t(`pricing.models.kinds.${m.kind}`)}</td>
                  <td data-label={t("pricing.models.tools")}>
                    {m.tools.map((tool) => t(`pricing.models.toolNames.${tool}`)).join(", ")}
                  </td>
                  <td data-label={t("pricing.models.price")} className="num">
                    {isFormula(m.price)
                      ? t("pricing.models.from", { price: formatNumber(locale, lowestUnitCredits(m.price)) })
                      : formatNumber(locale, m.price.credits)}
                  </td>
                  <td data-label={t("pricing.models.unit")}>{t(`pricing.models.units.${m.price.unit}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section className="pricing-section" aria-labelledby="pricing-faq">
        <h2 id="pricing-faq">{t("pricing.faq.title")}</h2>
        <div className="pricing-faq">
          {(["expire", "failed", "refund", "payment", "codes"] as const).map((key) => (
            <details key={key}>
              <summary>{t(`pricing.faq.${key}.q`)}</summary>
              <p>
                {t(`pricing.faq.${key}.a`)}{" "}
                {key === "codes" && <Link to={hrefIn(pathname, "/user/orders")}>{t("pricing.faq.codesLink")}</Link>}
              </p>
            </details>
          ))}
        </div>
      </section>
    </div>
  );
}
