import { Button, Card, Typography } from "antd";
import { ThunderboltOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/home";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
import { UserAvatar } from "#app/components/layout/user-menu.tsx";
import { GenerationCard } from "#app/components/studio/generation-card.tsx";
import { ToolIcon } from "#app/components/studio/tool-icon.tsx";
import { toolsServed } from "#app/lib/studio.server.ts";
import { UsageChart } from "#app/components/studio/usage-chart.tsx";
import { useAvailableCredits } from "#app/lib/credits.ts";
import { creditsUsedByDay } from "#server/modules/credits/credits-used-by-day.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { formatNumber } from "#common/format.ts";
import { hrefIn } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, runtime, db } = requireViewer(context, request);
  const [usage, recent] = await Promise.all([
    creditsUsedByDay({ db, userId: viewer.id, days: 30 }),
    listGenerations({ db, userId: viewer.id, query: { limit: "6" } }),
  ]);
  const { locale, i18n, seo } = pageMeta(context, request, ["dashboard", "studio"], (t) => ({
    title: t("dashboard:home.title"),
    noindex: true,
  }));
  // Each image tool some offered model serves, then the video studio.
  const actions = [
    ...toolsServed(runtime, "image", viewer).map((tool) => ({ tool, to: `/dashboard/image/create/${tool}` })),
    { tool: "text-to-video" as const, to: "/dashboard/video/create" },
  ];
  return {
    seo,
    i18n,
    account: { name: viewer.name, image: viewer.image },
    locale,
    usage,
    recent: recent.items,
    actions,
  };
}

const RECENT_ASPECT = "4:3";

export default function DashboardHome({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("dashboard");
  const { pathname } = useLocation();
  const { account, locale, usage, recent, actions } = loaderData;
  const credits = useAvailableCredits() ?? 0;
  const used = usage.reduce((sum, d) => sum + d.credits, 0);
  return (
    <div className="dash-page dash-home">
      <div className="dash-welcome">
        <UserAvatar name={account.name} image={account.image} size={56} />
        <div>
          <Typography.Title level={1} className="dash-title">
            {t("home.welcome", { name: account.name })}
          </Typography.Title>
          <Typography.Text type="secondary">{t("home.subtitle")}</Typography.Text>
        </div>
      </div>
      <div className="dash-home-top">
        <Card className="dash-balance">
          <span className="dash-balance-label">{t("home.balance")}</span>
          <span className="dash-balance-value">
            <ThunderboltOutlined aria-hidden /> {formatNumber(locale, credits)}
          </span>
          <Link to={hrefIn(pathname, "/pricing")}>
            <Button type="primary">{t("home.topUp")}</Button>
          </Link>
          <Link to={hrefIn(pathname, "/user/orders")} className="dash-balance-history">
            {t("home.history")}
          </Link>
        </Card>
        <nav className="dash-actions" aria-label={t("home.quickActions")}>
          {actions.map((a) => (
            <Link key={a.tool} to={hrefIn(pathname, a.to)} className="dash-action">
              <span className="dash-action-icon" aria-hidden>
                <ToolIcon tool={a.tool} />
              </span>
              <span className="dash-action-text">
                <strong>{t(`studio:tools.${a.tool}.title`)}</strong>
                <span>{t(`studio:tools.${a.tool}.short`)}</span>
              </span>
            </Link>
          ))}
        </nav>
      </div>
      <Card
        className="dash-usage"
        title={t("home.usageTitle")}
        extra={
          <span className="dash-usage-total">{t("home.usageTotal", { formatted: formatNumber(locale, used) })}</span>
        }
      >
        <UsageChart days={usage} locale={locale} />
      </Card>
      <section className="dash-recent" aria-labelledby="dash-recent-title">
        <div className="dash-recent-head">
          <Typography.Title level={2} id="dash-recent-title" className="dash-section-title">
            {t("home.recent")}
          </Typography.Title>
          <Link to={hrefIn(pathname, "/dashboard/image")}>{t("home.seeAll")}</Link>
        </div>
        {recent.length === 0 ? (
          <p className="dash-recent-empty">{t("home.recentEmpty")}</p>
        ) : (
          // Images and videos side by side: every card in one shape, so that the rows line up.
          <div className="gen-grid gen-grid-wide">
            {recent.map((g) => (
              <GenerationCard key={g.id} generation={g} aspect={RECENT_ASPECT} />
            ))}
          </div>
        )}
      </section>
    </div>
  );
}
