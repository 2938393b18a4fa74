import { Component, lazy, Suspense, useSyncExternalStore, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/reference";
import { Alert, Spin } from "#app/components/ui/display.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { pageI18n } from "#app/i18n/resources.server.ts";
import { buildSeo, seoMeta } from "#app/seo.ts";
import { siteOf } from "#app/lib/auth.server.ts";
import { hrefIn, localeOfPath } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export function loader({ context, request }: Route.LoaderArgs) {
  const site = siteOf(context);
  const { locale, t, i18n } = pageI18n(request, ["docs"]);
  return {
    seo: buildSeo({
      site,
      locale,
      pathname: new URL(request.url).pathname,
      title: `${t("docs:reference.title")} · ${site.name}`,
      description: t("docs:reference.description"),
    }),
    i18n,
  };
}

/** Scalar's reference (a large Vue application) is fetched only here, only in the browser. */
const ScalarReference = lazy(() => import("#app/components/docs/scalar-reference.tsx"));

const noSubscribe = () => () => {};
/** False during the server render and hydration, true after: the reference renders in the browser only. */
function useInBrowser(): boolean {
  return useSyncExternalStore(
    noSubscribe,
    () => true,
    () => false,
  );
}

class LoadFailure extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

export default function ApiReference() {
  const { t } = useTranslation("docs");
  const { pathname } = useLocation();
  const inBrowser = useInBrowser();
  const locale = localeOfPath(pathname);
  const loading = (
    <div className="docs-reference-loading">
      <Spin /> <span>{t("reference.loading")}</span>
    </div>
  );
  return (
    <div className="docs-reference">
      <div className="page-wide docs-reference-head">
        <nav className="docs-breadcrumb">
          <Link to={hrefIn(pathname, "/docs")}>{t("page.all")}</Link>
        </nav>
        <Title level={1}>{t("reference.title")}</Title>
        <Paragraph type="secondary">
          {t("reference.description")}{" "}
          <a href="/api/v1/openapi.json" download="atelier-openapi.json">
            {t("reference.download")}
          </a>
        </Paragraph>
      </div>
      {inBrowser ? (
        <LoadFailure fallback={<Alert type="error" title={t("reference.failed")} />}>
          <Suspense fallback={loading}>
            <ScalarReference locale={locale} />
          </Suspense>
        </LoadFailure>
      ) : (
        loading
      )}
    </div>
  );
}
