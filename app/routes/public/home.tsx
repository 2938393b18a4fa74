import ApiOutlined from "@ant-design/icons-svg/es/asn/ApiOutlined";
import PictureOutlined from "@ant-design/icons-svg/es/asn/PictureOutlined";
import VideoCameraOutlined from "@ant-design/icons-svg/es/asn/VideoCameraOutlined";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/home";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { useLocation } from "react-router";
import { hrefIn } from "#common/locales.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Card } from "#app/components/ui/display.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export function loader({ context, request }: Route.LoaderArgs) {
  const { site, i18n, seo } = pageMeta(context, request, ["home"], (t, site) => ({
    title: t("home:metaTitle", { site: site.name }),
    ownTitle: true,
    description: t("home:metaDescription"),
  }));
  return { seo, i18n, signupBonus: site.signupBonusCredits };
}

const FEATURES = [
  { key: "image", icon: PictureOutlined },
  { key: "video", icon: VideoCameraOutlined },
  { key: "api", icon: ApiOutlined },
] as const;

export default function Home({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("home");
  const { pathname } = useLocation();
  const register = hrefIn(pathname, "/auth/register");
  return (
    <main className="home">
      <section className="home-hero">
        <p className="home-eyebrow">{t("eyebrow")}</p>
        <Title level={1} className="home-title">
          {t("title")}
        </Title>
        <Paragraph className="home-subtitle">{t("subtitle")}</Paragraph>
        <div className="home-actions">
          <Button type="primary" size="large" href={register}>
            {t("primaryCta")}
          </Button>
          <Button size="large" href="#features">
            {t("secondaryCta")}
          </Button>
        </div>
      </section>
      <section id="features" className="home-features" aria-label={t("featuresLabel")}>
        {FEATURES.map((f) => (
          <Card variant="borderless" className="home-feature" key={f.key}>
            <div className="home-feature-icon" aria-hidden>
              <Icon icon={f.icon} />
            </div>
            <Title level={2} className="home-feature-title">
              {t(`features.${f.key}.title`)}
            </Title>
            <Paragraph type="secondary">{t(`features.${f.key}.text`)}</Paragraph>
          </Card>
        ))}
      </section>
      <section className="home-cta">
        <Title level={2}>{t("cta.title")}</Title>
        <Paragraph>{t("cta.text", { credits: loaderData.signupBonus })}</Paragraph>
        <Button type="primary" size="large" href={register}>
          {t("cta.button")}
        </Button>
      </section>
    </main>
  );
}
