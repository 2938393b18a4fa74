import ApiOutlined from "@ant-design/icons-svg/es/asn/ApiOutlined";
import AppstoreOutlined from "@ant-design/icons-svg/es/asn/AppstoreOutlined";
import BookOutlined from "@ant-design/icons-svg/es/asn/BookOutlined";
import ClusterOutlined from "@ant-design/icons-svg/es/asn/ClusterOutlined";
import NotificationOutlined from "@ant-design/icons-svg/es/asn/NotificationOutlined";
import CloudServerOutlined from "@ant-design/icons-svg/es/asn/CloudServerOutlined";
import KeyOutlined from "@ant-design/icons-svg/es/asn/KeyOutlined";
import MessageOutlined from "@ant-design/icons-svg/es/asn/MessageOutlined";
import PictureOutlined from "@ant-design/icons-svg/es/asn/PictureOutlined";
import RocketOutlined from "@ant-design/icons-svg/es/asn/RocketOutlined";
import SafetyCertificateOutlined from "@ant-design/icons-svg/es/asn/SafetyCertificateOutlined";
import SettingOutlined from "@ant-design/icons-svg/es/asn/SettingOutlined";
import VideoCameraOutlined from "@ant-design/icons-svg/es/asn/VideoCameraOutlined";
import WalletOutlined from "@ant-design/icons-svg/es/asn/WalletOutlined";
import ThunderboltOutlined from "@ant-design/icons-svg/es/asn/ThunderboltOutlined";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/index";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { DOC_GROUPS, listDocs, type DocGroup, type DocSlug } from "#server/modules/content/get-doc.ts";
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
  const docs = new Map(listDocs({ locale, values: contentValues(context) }).map((d) => [d.slug, d]));
  const entry = (slug: DocSlug) => {
    const d = docs.get(slug)!;
    return { to: `/docs/${d.slug}`, title: d.title, description: d.description, icon: d.slug as string };
  };
  const reference = {
    to: "/docs/api-reference",
    title: t("docs:reference.title"),
    description: t("docs:reference.description"),
    icon: "reference",
  };
  return {
    seo,
    i18n,
    site: site.name,
    // The pages by who reads them; the API reference goes with the developers' guides.
    groups: (Object.keys(DOC_GROUPS) as DocGroup[]).map((group) => ({
      group,
      entries: [...DOC_GROUPS[group].map(entry), ...(group === "developers" ? [reference] : [])],
    })),
  };
}

const ICONS: Record<string, React.ReactNode> = {
  "getting-started": <Icon icon={RocketOutlined} />,
  credits: <Icon icon={WalletOutlined} />,
  images: <Icon icon={PictureOutlined} />,
  videos: <Icon icon={VideoCameraOutlined} />,
  chat: <Icon icon={MessageOutlined} />,
  provenance: <Icon icon={SafetyCertificateOutlined} />,
  "api-keys": <Icon icon={KeyOutlined} />,
  "self-hosting": <Icon icon={CloudServerOutlined} />,
  configuration: <Icon icon={SettingOutlined} />,
  models: <Icon icon={AppstoreOutlined} />,
  comfyui: <Icon icon={ClusterOutlined} />,
  api: <Icon icon={BookOutlined} />,
  openai: <Icon icon={ThunderboltOutlined} />,
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
      {loaderData.groups.map(({ group, entries }) => (
        <section key={group} className="docs-group" aria-labelledby={`docs-${group}`}>
          <h2 id={`docs-${group}`} className="docs-group-title">
            {t(`index.groups.${group}`)}
          </h2>
          <ul className="docs-cards">
            {entries.map((e) => (
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
        </section>
      ))}
    </div>
  );
}
