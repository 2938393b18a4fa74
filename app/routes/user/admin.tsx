import { Button, Card, Col, Row, Statistic, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/admin";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { countUsers } from "#server/modules/users/count-users.ts";
import { hrefIn } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const { i18n, seo } = pageMeta(context, request, ["user"], (t) => ({
    title: t("user:admin.title"),
    noindex: true,
  }));
  return { seo, i18n, counts: await countUsers({ db }) };
}

export default function Admin({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("user");
  const { pathname } = useLocation();
  const { counts } = loaderData;
  return (
    <div className="page-narrow">
      <Typography.Title level={1}>{t("admin.title")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("admin.subtitle")}</Typography.Paragraph>
      <Row gutter={[16, 16]}>
        <Col xs={24} sm={8}>
          <Card>
            <Statistic title={t("admin.users")} value={counts.users} data-testid="admin-users" />
          </Card>
        </Col>
        <Col xs={24} sm={8}>
          <Card>
            <Statistic title={t("admin.verifiedUsers")} value={counts.verified} />
          </Card>
        </Col>
        <Col xs={24} sm={8}>
          <Card>
            <Statistic title={t("admin.admins")} value={counts.admins} />
          </Card>
        </Col>
      </Row>
      <p className="page-actions">
        <Button>
          <Link to={hrefIn(pathname, "/dashboard/home")}>{t("admin.back")}</Link>
        </Button>
      </p>
    </div>
  );
}
