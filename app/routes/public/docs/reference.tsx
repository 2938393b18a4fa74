import { Component, lazy, Suspense, useSyncExternalStore, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, type ShouldRevalidateFunctionArgs } from "react-router";
import ArrowLeftOutlined from "@ant-design/icons-svg/es/asn/ArrowLeftOutlined";
import DownloadOutlined from "@ant-design/icons-svg/es/asn/DownloadOutlined";
import ThunderboltOutlined from "@ant-design/icons-svg/es/asn/ThunderboltOutlined";
import type { Route } from "./+types/reference";
import { Alert, Spin } from "#app/components/ui/display.tsx";
import { Button, buttonClassName } from "#app/components/ui/button.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { ApiReferenceBody, ApiReferenceContents } from "#app/components/docs/api-reference.tsx";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { hrefIn, localeOfPath } from "#common/locales.ts";
import { apiReference } from "./reference.server.ts";

/** The query that asks for the interactive reference (`?interactive`): a link to it works before any script runs. */
const INTERACTIVE = "interactive";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export function loader({ context, request }: Route.LoaderArgs) {
  const { site, locale, i18n, seo } = pageMeta(context, request, ["docs"], (t) => ({
    title: t("docs:reference.title"),
    description: t("docs:reference.description"),
  }));
  const url = new URL(request.url);
  return {
    seo,
    i18n,
    // The interactive view reads the document itself, in the browser: it needs none of this
    reference: url.searchParams.has(INTERACTIVE) ? null : apiReference(new URL(site.url).origin, locale),
  };
}

/**
 * Switching to the interactive view and back is a change of the query alone: nothing to load for the first, and
 * the server-drawn reference only when the page was first rendered without it.
 */
export function shouldRevalidate({ currentUrl, nextUrl, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (currentUrl.pathname !== nextUrl.pathname) return defaultShouldRevalidate;
  return currentUrl.searchParams.has(INTERACTIVE) && !nextUrl.searchParams.has(INTERACTIVE);
}

/**
 * Scalar's interactive reference (a large Vue application): fetched only in the browser, only once someone asks
 * for it, never on the page's first load.
 */
const loadScalar = () => import("#app/components/docs/scalar-reference.tsx");
const ScalarReference = lazy(loadScalar);

const noSubscribe = () => () => {};
/** False during the server render and hydration, true after: the interactive reference renders in the browser only. */
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

function DownloadLink() {
  const { t } = useTranslation("docs");
  return (
    <a href="/api/v1/openapi.json" download="atelier-openapi.json" className={buttonClassName({})}>
      <span className="ant-btn-icon">
        <Icon icon={DownloadOutlined} aria-hidden />
      </span>
      <span>{t("reference.download")}</span>
    </a>
  );
}

export default function ApiReferencePage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("docs");
  const { pathname, search } = useLocation();
  const inBrowser = useInBrowser();
  const { reference } = loaderData;
  const breadcrumb = (
    <nav className="docs-breadcrumb">
      <Link to={hrefIn(pathname, "/docs")}>{t("page.all")}</Link>
    </nav>
  );

  if (reference && !new URLSearchParams(search).has(INTERACTIVE)) {
    return (
      <div className="page-wide docs-page api-reference">
        {breadcrumb}
        <div className="docs-layout">
          <article className="docs-article">
            <Title level={1}>{t("reference.title")}</Title>
            <Paragraph type="secondary" className="docs-lead">
              {t("reference.description")}
            </Paragraph>
            <div className="api-actions">
              {/* Starts the download at once, while the router moves to the interactive view; a failure shows there */}
              <Link
                to={`${pathname}?${INTERACTIVE}`}
                className={buttonClassName({ type: "primary" })}
                onClick={() => void loadScalar().catch(() => undefined)}
              >
                <span className="ant-btn-icon">
                  <Icon icon={ThunderboltOutlined} aria-hidden />
                </span>
                <span>{t("reference.interactive.open")}</span>
              </Link>
              <DownloadLink />
            </div>
            <Paragraph type="secondary" className="api-actions-hint">
              {t("reference.interactive.hint")}
            </Paragraph>
            <ApiReferenceContents reference={reference} variant="top" />
            <ApiReferenceBody reference={reference} />
          </article>
          <ApiReferenceContents reference={reference} variant="side" />
        </div>
      </div>
    );
  }

  const loading = (
    <div className="docs-reference-loading">
      <Spin /> <span>{t("reference.loading")}</span>
    </div>
  );
  return (
    <div className="docs-reference">
      <div className="page-wide docs-reference-head">
        {breadcrumb}
        <Title level={1}>{t("reference.title")}</Title>
        <Paragraph type="secondary">{t("reference.description")}</Paragraph>
        <div className="api-actions">
          <Button href={pathname} icon={<Icon icon={ArrowLeftOutlined} aria-hidden />}>
            {t("reference.interactive.back")}
          </Button>
          <DownloadLink />
        </div>
      </div>
      {inBrowser ? (
        <LoadFailure
          fallback={
            <div className="page-wide">
              <Alert type="error" title={t("reference.failed")} />
            </div>
          }
        >
          <Suspense fallback={loading}>
            <ScalarReference locale={localeOfPath(pathname)} />
          </Suspense>
        </LoadFailure>
      ) : (
        <>
          {loading}
          <noscript>
            <p className="docs-reference-noscript">{t("reference.interactive.noscript")}</p>
          </noscript>
        </>
      )}
    </div>
  );
}
