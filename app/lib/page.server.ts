import { buildSeo } from "#app/seo.ts";
import { stripLocale, type Locale } from "#common/locales.ts";
import { shareCardOf, shareImagePath } from "#server/modules/content/share-card.ts";
import { contentValues } from "#app/lib/content-values.server.ts";
import type { Namespace } from "#common/i18n.ts";
import { pageI18n } from "#server/i18n/translations.ts";
import { siteOf, type Ctx } from "#app/lib/request.server.ts";

type Translate = ReturnType<typeof pageI18n>["t"];
type Site = ReturnType<typeof siteOf>;

/** How a page describes itself to browsers and search engines. */
export interface PageDescription {
  /** Followed by the site's name, unless `ownTitle` (a title that already names the site). */
  title: string;
  ownTitle?: boolean;
  description?: string;
  noindex?: boolean;
  /** A path on this site for the preview image, instead of the site's own. */
  image?: string;
  /** See `buildSeo`. */
  search?: string;
  translations?: readonly Locale[];
  type?: "website" | "article";
  jsonLd?: Record<string, unknown>[];
}

/**
 * What every page's loader starts with: the site, the request's language, a translate function over `common` and
 * the page's namespaces, the translations the page sends for hydration (`i18n`), and its SEO data from what
 * `describe` says of it.
 */
export function pageMeta(
  context: Ctx,
  request: Request,
  namespaces: readonly Namespace[],
  describe: (t: Translate, site: Site) => PageDescription,
) {
  const site = siteOf(context);
  const { locale, t, i18n } = pageI18n(request, namespaces);
  const page = describe(t, site);
  const bare = stripLocale(new URL(request.url).pathname);
  // A public page has its own picture for link previews, with its title; any other the site's
  const image =
    page.image ??
    (!page.noindex && shareCardOf(bare, locale, site, contentValues(context))
      ? shareImagePath(locale, bare)
      : undefined);
  const seo = buildSeo({
    site,
    locale,
    pathname: new URL(request.url).pathname,
    title: page.ownTitle ? page.title : `${page.title} · ${site.name}`,
    description: page.description,
    noindex: page.noindex,
    image,
    search: page.search,
    translations: page.translations,
    type: page.type,
    jsonLd: page.jsonLd,
  });
  return { site, locale, t, i18n, seo };
}
