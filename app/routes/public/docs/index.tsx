import ApiOutlined from "@ant-design/icons-svg/es/asn/ApiOutlined";
import BookOutlined from "@ant-design/icons-svg/es/asn/BookOutlined";
import NotificationOutlined from "@ant-design/icons-svg/es/asn/NotificationOutlined";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/index";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { listDocs } from "#server/modules/content/get-doc.ts";
import { hrefIn } from "#common/locales.ts";
import { Icon } from "#app/components/ui/icon.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { contentValues } from "#app/lib/content-values.server.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export function loader({ context, request }: Route.LoaderArgs) {
  const { site, locale, t, i18n, seo } = pageMeta(context, request, ["docs"], (t, site) => ({
    title: t("docs:index.metaTitle", { site: site.name }),
    ownTitle: true,
    description: t("docs:index.intro", { site: site.name }),
  }));
  const docs = listDocs({ locale, values: contentValues(context) });
  return {
    seo,
    i18n,
    site: site.name,
    entries: [
      ...docs.map((d) => ({ to: `/docs/${d.slug}`, title: d.title, description: d.description, icon: d.slug })),
      {
        to: "/docs/api-reference",
        title: t("docs:reference.title"),
        description: t("docs:reference.description"),
        icon: "reference",
      },
    ],
  };
}

const ICONS: Record<string, React.ReactNode> = {
  api: <Icon icon={BookOutlined} />,
  webhooks: <Icon icon={NotificationOutlined} />,
  reference: <Icon icon={ApiOutlined} />,
};

export default function DocsIndex({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("docs");
  const { pathname } = useLocation();
  return (
    <div className="page-wide docs-index">
      <Title level={1}>{t("index.title")}</Title>
      <Paragraph type="secondary" className="docs-lead">
        {t("index.intro", { site: loaderData.site })}
      </Paragraph>
      <ul className="docs-cards">
        {loaderData.entries.map((e) => (
          <li key={e.to}>
            <Link to={hrefIn(pathname, e.to)} className="docs-card">
              <span className="docs-card-icon" aria-hidden>
                {ICONS[e.icon]}
              </span>
              <span className="docs-card-title">{e.title}</span>
              <span className="docs-card-text">{e.description}</span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
