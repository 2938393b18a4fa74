import { useTranslation } from "react-i18next";
import { data } from "react-router";
import type { Route } from "./+types/legal";
import { ContentArticle, renderedPage } from "#app/components/content-article.tsx";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { pathLocale, siteOf } from "#app/lib/request.server.ts";
import { getLegal, legalTranslations, legalValues } from "#server/modules/content/get-legal.ts";
import { formatDate } from "#common/format.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/** The terms, refund, cookie and privacy pages, with this site's name, addresses and sign-up bonus filled in. */
export function loader({ context, request, params }: Route.LoaderArgs) {
  const site = siteOf(context);
  const page = getLegal({
    slug: params.slug,
    locale: pathLocale(request),
    values: legalValues(site),
  });
  if (!page) throw data(null, { status: 404 });
  const { i18n, seo, locale } = pageMeta(context, request, ["docs"], () => ({
    title: page.title,
    description: page.description,
    translations: legalTranslations(page.slug).map((l) => l.locale),
  }));
  return {
    seo,
    i18n,
    page: renderedPage(page),
    updated: page.updated ? formatDate(locale, page.updated, { dateOnly: true }) : null,
  };
}

export default function LegalPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("docs");
  const { page, updated } = loaderData;
  return (
    <ContentArticle
      page={page}
      labels={{ toc: t("page.toc"), fallback: t("page.fallback") }}
      after={updated && <p className="legal-updated">{t("common:legal.updated", { date: updated })}</p>}
    />
  );
}
