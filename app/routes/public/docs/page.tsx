import { useTranslation } from "react-i18next";
import { Link, data, useLocation } from "react-router";
import type { Route } from "./+types/page";
import { Alert } from "#app/components/ui/display.tsx";
import { Title } from "#app/components/ui/typography.tsx";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { pathLocale } from "#app/lib/request.server.ts";
import { getDoc } from "#server/modules/content/get-doc.ts";
import { hrefIn } from "#common/locales.ts";
import { docValues } from "./values.server.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export function loader({ context, request, params }: Route.LoaderArgs) {
  const doc = getDoc({ slug: params.slug, locale: pathLocale(request), values: docValues(context) });
  if (!doc) throw data(null, { status: 404 });
  const { i18n, seo } = pageMeta(context, request, ["docs"], () => ({
    title: doc.title,
    description: doc.description,
  }));
  return {
    seo,
    i18n,
    doc,
  };
}

export default function DocPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("docs");
  const { pathname } = useLocation();
  const { doc } = loaderData;
  return (
    <div className="page-wide docs-page">
      <nav className="docs-breadcrumb">
        <Link to={hrefIn(pathname, "/docs")}>{t("page.all")}</Link>
      </nav>
      <div className="docs-layout">
        <article className="docs-article" lang={doc.locale}>
          <Title level={1}>{doc.title}</Title>
          {doc.fallback && <Alert type="info" title={t("page.fallback")} className="docs-fallback" />}
          {/* Rendered on the server from the project's Markdown with raw HTML disabled */}
          <div className="docs-prose" dangerouslySetInnerHTML={{ __html: doc.html }} />
        </article>
        {doc.toc.length > 0 && (
          <nav className="docs-toc" aria-labelledby="docs-toc-title">
            <p id="docs-toc-title" className="docs-toc-title">
              {t("page.toc")}
            </p>
            <ul>
              {doc.toc.map((h) => (
                <li key={h.id}>
                  <a href={`#${h.id}`}>{h.text}</a>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </div>
    </div>
  );
}
