import { Card, Typography } from "antd";
import { ApiOutlined, PictureOutlined, VideoCameraOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/home";
import { requestInfoContext } from "#app/context.ts";
import { serverT } from "#app/i18n/resources.server.ts";
import { DEFAULT_LOCALE } from "#common/locales.ts";

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: loaderData.title }, { name: "description", content: loaderData.description }];
}

export function loader({ context }: Route.LoaderArgs) {
  const { site } = context.get(requestInfoContext);
  const t = serverT(DEFAULT_LOCALE);
  return { title: t("home.metaTitle", { site: site.name }), description: t("home.metaDescription") };
}

const FEATURES = [
  { key: "image", icon: <PictureOutlined /> },
  { key: "video", icon: <VideoCameraOutlined /> },
  { key: "api", icon: <ApiOutlined /> },
] as const;

export default function Home() {
  const { t } = useTranslation();
  return (
    <main className="home">
      <section className="home-hero">
        <Typography.Title level={1} className="home-title">
          {t("home.title")}
        </Typography.Title>
        <Typography.Paragraph className="home-subtitle">{t("home.subtitle")}</Typography.Paragraph>
      </section>
      <section className="home-features" aria-label={t("home.featuresLabel")}>
        {FEATURES.map((f) => (
          <Card variant="borderless" className="home-feature" key={f.key}>
            <div className="home-feature-icon" aria-hidden>
              {f.icon}
            </div>
            <Typography.Title level={2} className="home-feature-title">
              {t(`home.features.${f.key}.title`)}
            </Typography.Title>
            <Typography.Paragraph type="secondary">{t(`home.features.${f.key}.text`)}</Typography.Paragraph>
          </Card>
        ))}
      </section>
    </main>
  );
}
