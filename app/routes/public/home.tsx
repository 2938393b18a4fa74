import ApiOutlined from "@ant-design/icons-svg/es/asn/ApiOutlined";
import CloudServerOutlined from "@ant-design/icons-svg/es/asn/CloudServerOutlined";
import GlobalOutlined from "@ant-design/icons-svg/es/asn/GlobalOutlined";
import PictureOutlined from "@ant-design/icons-svg/es/asn/PictureOutlined";
import SafetyCertificateOutlined from "@ant-design/icons-svg/es/asn/SafetyCertificateOutlined";
import VideoCameraOutlined from "@ant-design/icons-svg/es/asn/VideoCameraOutlined";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/home";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { pathLocale, serverContextOf } from "#app/lib/request.server.ts";
import { listShowcase } from "#server/modules/generation/list-showcase.ts";
import { displayName } from "#config/models.ts";
import { LOCALE_TAGS, hrefIn, localeOfPath, localizedUrl } from "#common/locales.ts";
import { formatNumber } from "#common/format.ts";
import { useRoot } from "#app/lib/use-site.ts";
import { useAvailableCredits } from "#app/lib/credits.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Card } from "#app/components/ui/display.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { JsonLd } from "#app/components/json-ld.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { isFormula, lowestUnitCredits } from "#app/lib/model-settings.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

// The showcase changes as people share: the page cache and shared caches keep the page a few minutes at most.
export const headers: Route.HeadersFunction = ({ parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", "public, max-age=300");
  return headers;
};

const SHOWCASE_SIZE = 8;
const FAQ = ["what", "credits", "free", "rights", "api"] as const;

export async function loader({ context, request }: Route.LoaderArgs) {
  const { runtime } = serverContextOf(context);
  const { site, i18n, seo, t } = pageMeta(context, request, ["home"], (t, site) => ({
    title: t("home:metaTitle", { site: site.name }),
    ownTitle: true,
    description: t("home:metaDescription"),
    jsonLd: [
      {
        "@context": "https://schema.org",
        "@type": "Organization",
        name: site.name,
        url: site.url,
        logo: `${site.url}/favicon.svg`,
        email: site.supportEmail,
      },
      {
        "@context": "https://schema.org",
        "@type": "WebSite",
        name: site.name,
        url: localizedUrl(site.url, "/", pathLocale(request)),
        inLanguage: LOCALE_TAGS[pathLocale(request)],
      },
    ],
  }));
  // The home page never fails for want of its showcase: without the database it is simply left out.
  const showcase = await listShowcase({ db: runtime.database.db, limit: SHOWCASE_SIZE }).catch((error: unknown) => {
    runtime.logger.warn({ err: (error as Error).message }, "home page: the showcase could not be read");
    return [];
  });
  return {
    seo,
    i18n,
    site: site.name,
    signupBonus: site.signupBonusCredits,
    origin: new URL(site.url).origin,
    showcase,
    explore: site.explore,
    models: runtime.models.media().map((m) => ({
      id: m.id,
      name: displayName(m, pathLocale(request)),
      kind: m.kind,
      price: isFormula(m.price)
        ? t("home:models.from", { price: t(`home:models.${m.price.unit}`, { count: lowestUnitCredits(m.price) }) })
        : t(`home:models.${m.price.unit}`, { count: m.price.credits }),
    })),
  };
}

const FEATURES = [
  { key: "image", icon: PictureOutlined },
  { key: "video", icon: VideoCameraOutlined },
  { key: "api", icon: ApiOutlined },
  { key: "credits", icon: SafetyCertificateOutlined },
  // Drawn from the page's sprite, which holds it for the language switch
  { key: "languages", icon: GlobalOutlined, shared: true },
  { key: "selfHost", icon: CloudServerOutlined },
] as const;

const STEPS = ["write", "generate", "use"] as const;

export default function Home({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("home");
  const { pathname } = useLocation();
  const { site, signupBonus, showcase, models, origin, explore } = loaderData;
  // Signed out, the page comes from the page cache; signed in, it is rendered for the visitor, who has an account
  // already: no sign-up offer, their balance and their way into the studio instead.
  const { viewer } = useRoot();
  const credits = useAvailableCredits() ?? 0;
  const register = hrefIn(pathname, "/auth/register");
  const studio = hrefIn(pathname, "/dashboard/image/create/text-to-image");
  const snippet = [
    `curl ${origin}/api/v1/images \\`,
    `  -H "Authorization: Bearer $ATELIER_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"model": "${models.find((m) => m.kind === "image")?.id ?? "demo-image"}",`,
    `       "prompt": "A lighthouse at dusk, oil painting"}'`,
  ].join("\n");
  return (
    <div className="home">
      <section className="home-hero">
        <p className="home-eyebrow">{t("eyebrow")}</p>
        <Title level={1} className="home-title">
          {t("title")}
        </Title>
        <Paragraph className="home-subtitle">{t("subtitle")}</Paragraph>
        {/* A plain form: it works before the page's scripts arrive. Signed out, the studio sends the visitor to sign
            in first and back with the prompt. */}
        <form className="home-prompt" method="get" action={studio}>
          <label htmlFor="home-prompt" className="visually-hidden">
            {t("prompt.label")}
          </label>
          <textarea
            id="home-prompt"
            name="prompt"
            required
            maxLength={2000}
            rows={2}
            placeholder={t("prompt.placeholder")}
            className="home-prompt-input"
          />
          <Button type="primary" size="large" htmlType="submit" className="home-prompt-submit">
            {t("prompt.submit")}
          </Button>
        </form>
        {viewer ? (
          <p className="home-prompt-note" data-testid="home-balance">
            {t("member.balance", { count: credits, formatted: formatNumber(localeOfPath(pathname), credits) })}{" "}
            <Link to={hrefIn(pathname, "/pricing")}>{t("member.buy")}</Link>
          </p>
        ) : (
          <p className="home-prompt-note">{t("prompt.note", { credits: signupBonus })}</p>
        )}
      </section>

      {showcase.length > 0 && (
        <section className="home-section" aria-labelledby="home-showcase">
          <h2 id="home-showcase" className="home-section-title">
            {t("showcase.title", { site })}
          </h2>
          <p className="home-section-lead">{t("showcase.subtitle")}</p>
          <ul className="home-showcase">
            {showcase.map((item) => (
              <li key={item.id}>
                <Link to={hrefIn(pathname, `/share/${item.id}`)} className="home-showcase-item">
                  <img
                    src={item.imageUrl}
                    alt=""
                    loading="lazy"
                    decoding="async"
                    width={item.width ?? 512}
                    height={item.height ?? 512}
                  />
                  <span className="home-showcase-caption">
                    <span className="home-showcase-prompt">{item.prompt}</span>
                    <span className="home-showcase-model">{item.model}</span>
                  </span>
                </Link>
              </li>
            ))}
          </ul>
          {explore && (
            <p className="home-showcase-more">
              <Link to={hrefIn(pathname, "/explore")}>{t("showcase.more")} →</Link>
            </p>
          )}
        </section>
      )}

      <section id="features" className="home-section" aria-labelledby="home-features-title">
        <h2 id="home-features-title" className="visually-hidden">
          {t("featuresLabel")}
        </h2>
        <div className="home-features">
          {FEATURES.map((f) => (
            <Card variant="borderless" className="home-feature" key={f.key}>
              <div className="home-feature-icon" aria-hidden>
                <Icon icon={f.icon} shared={"shared" in f} />
              </div>
              <h3 className="home-feature-title">{t(`features.${f.key}.title`)}</h3>
              <Paragraph type="secondary">{t(`features.${f.key}.text`)}</Paragraph>
            </Card>
          ))}
        </div>
      </section>

      <section className="home-section" aria-labelledby="home-how">
        <h2 id="home-how" className="home-section-title">
          {t("how.title")}
        </h2>
        <ol className="home-steps">
          {STEPS.map((step, i) => (
            <li key={step}>
              <span className="home-step-number" aria-hidden>
                {i + 1}
              </span>
              <h3>{t(`how.steps.${step}.title`)}</h3>
              <p>{t(`how.steps.${step}.text`)}</p>
            </li>
          ))}
        </ol>
      </section>

      {models.length > 0 && (
        <section className="home-section" aria-labelledby="home-models">
          <h2 id="home-models" className="home-section-title">
            {t("models.title")}
          </h2>
          <p className="home-section-lead">{t("models.subtitle")}</p>
          <ul className="home-models">
            {models.map((m) => (
              <li key={m.id}>
                <span className="home-model-name">{m.name}</span>
                <span className="home-model-kind">{t(`models.kinds.${m.kind}`)}</span>
                <span className="home-model-price">{m.price}</span>
              </li>
            ))}
          </ul>
          <p className="home-section-more">
            <Link to={hrefIn(pathname, "/pricing")}>{t("models.all")} →</Link>
          </p>
        </section>
      )}

      <section className="home-section home-api" aria-labelledby="home-api">
        <div>
          <h2 id="home-api" className="home-section-title">
            {t("api.title")}
          </h2>
          <p className="home-section-lead">{t("api.text")}</p>
          <p className="home-api-links">
            <Link to={hrefIn(pathname, "/docs/api")}>{t("api.docs")} →</Link>
            <Link to={hrefIn(pathname, "/docs/api-reference")}>{t("api.reference")} →</Link>
          </p>
        </div>
        <pre className="code-block" data-language="bash">
          <code>{snippet}</code>
        </pre>
      </section>

      <section className="home-section" aria-labelledby="home-faq">
        <JsonLd
          data={{
            "@context": "https://schema.org",
            "@type": "FAQPage",
            mainEntity: FAQ.map((key) => ({
              "@type": "Question",
              name: t(`faq.items.${key}.q`, { site }),
              acceptedAnswer: { "@type": "Answer", text: t(`faq.items.${key}.a`, { site, credits: signupBonus }) },
            })),
          }}
        />
        <h2 id="home-faq" className="home-section-title">
          {t("faq.title")}
        </h2>
        <div className="home-faq">
          {FAQ.map((key) => (
            <details key={key}>
              <summary>{t(`faq.items.${key}.q`, { site })}</summary>
              <p>{t(`faq.items.${key}.a`, { site, credits: signupBonus })}</p>
            </details>
          ))}
        </div>
      </section>

      {viewer ? (
        <section className="home-cta">
          <Title level={2}>{t("member.title")}</Title>
          <Paragraph>{t("member.text")}</Paragraph>
          <div className="home-cta-actions">
            <Button type="primary" size="large" href={studio}>
              {t("member.studio")}
            </Button>
            <Button size="large" href={hrefIn(pathname, "/dashboard/home")}>
              {t("member.dashboard")}
            </Button>
          </div>
        </section>
      ) : (
        <section className="home-cta">
          <Title level={2}>{t("cta.title")}</Title>
          <Paragraph>{t("cta.text", { credits: signupBonus })}</Paragraph>
          <Button type="primary" size="large" href={register}>
            {t("cta.button")}
          </Button>
        </section>
      )}
    </div>
  );
}
