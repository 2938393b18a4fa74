import { Card, Descriptions, Tag, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/home";
import { pageI18n } from "#app/i18n/resources.server.ts";
import { buildSeo, seoMeta } from "#app/seo.ts";
import { requireViewer, server, siteOf } from "#app/lib/auth.server.ts";
import { UserAvatar } from "#app/components/layout/user-menu.tsx";
import { getAccount } from "#server/modules/users/get-account.ts";
import { formatDate } from "#common/format.ts";
import { hrefIn } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireViewer(context, request);
  const { runtime } = server(context);
  const account = await getAccount({ db: runtime.database.db, userId: viewer.id });
  const site = siteOf(context);
  const { locale, t } = pageI18n(request, ["dashboard"]);
  const seo = buildSeo({
    site,
    locale,
    pathname: new URL(request.url).pathname,
    title: `${t("dashboard:home.title")} · ${site.name}`,
    noindex: true,
  });
  return { seo, account, locale };
}

export default function DashboardHome({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("dashboard");
  const { pathname } = useLocation();
  const { account, locale } = loaderData;
  return (
    <div className="dash-page">
      <div className="dash-welcome">
        <UserAvatar name={account.name} image={account.image} size={56} />
        <div>
          <Typography.Title level={1} className="dash-title">
            {t("home.welcome", { name: account.name })}
          </Typography.Title>
          <Typography.Text type="secondary">{t("home.subtitle")}</Typography.Text>
        </div>
      </div>
      <Card title={t("home.account")} className="dash-card">
        <Descriptions column={1} size="small">
          <Descriptions.Item label={t("home.email")}>{account.email}</Descriptions.Item>
          <Descriptions.Item label={t("home.role")}>
            <Tag color={account.role === "admin" ? "purple" : undefined}>
              {t(account.role === "admin" ? "home.roleAdmin" : "home.roleUser")}
            </Tag>
          </Descriptions.Item>
          <Descriptions.Item label={t("home.memberSince")}>
            {formatDate(locale, account.createdAt, { dateOnly: true })}
          </Descriptions.Item>
        </Descriptions>
        <Link to={hrefIn(pathname, "/user/profile")} className="dash-profile-link">
          {t("home.manageProfile")} →
        </Link>
      </Card>
    </div>
  );
}
