import { Card, Col, Row, Statistic, Typography } from "antd";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/overview";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { countUsers } from "#server/modules/users/count-users.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const { i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:overview.title"),
    noindex: true,
  }));
  return { seo, i18n, counts: await countUsers({ db }) };
}

export default function Overview({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { counts } = loaderData;
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("overview.title")}
      </Typography.Title>
      <Row gutter={[16, 16]}>
        <Col xs={24} sm={8}>
          <Card>
            <Statistic title={t("overview.users")} value={counts.users} data-testid="admin-users" />
          </Card>
        </Col>
        <Col xs={24} sm={8}>
          <Card>
            <Statistic title={t("overview.verifiedUsers")} value={counts.verified} />
          </Card>
        </Col>
        <Col xs={24} sm={8}>
          <Card>
            <Statistic title={t("overview.admins")} value={counts.admins} />
          </Card>
        </Col>
      </Row>
    </div>
  );
}
