import { useTranslation } from "react-i18next";
import { Link, data, useLocation } from "react-router";
import type { Route } from "./+types/page";
import { ContentArticle, renderedPage } from "#app/components/content-article.tsx";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { pathLocale } from "#app/lib/request.server.ts";
import { docTranslations, getDoc } from "#server/modules/content/get-doc.ts";
import { hrefIn } from "#common/locales.ts";
import { contentValues } from "#app/lib/content-values.server.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export function loader({ context, request, params }: Route.LoaderArgs) {
  const doc = getDoc({ slug: params.slug, locale: pathLocale(request), values: contentValues(context) });
  if (!doc) throw data(null, { status: 404 });
  const { i18n, seo } = pageMeta(context, request, ["docs"], () => ({
    title: doc.title,
    description: doc.description,
    translations: docTranslations(doc.slug).map((l) => l.locale),
  }));
  return { seo, i18n, doc: renderedPage(doc) };
}

export default function DocPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("docs");
  const { pathname } = useLocation();
  return (
    <ContentArticle
      page={loaderData.doc}
      labels={{ toc: t("page.toc"), fallback: t("page.fallback") }}
      before={
        <nav className="docs-breadcrumb">
          <Link to={hrefIn(pathname, "/docs")}>{t("page.all")}</Link>
        </nav>
      }
    />
  );
}
