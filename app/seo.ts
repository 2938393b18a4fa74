import type { MetaDescriptor } from "react-router";
import type { PublicSiteConfig } from "#config/site.ts";
import { LOCALES, LOCALE_TAGS, localizedUrl, stripLocale, type Locale } from "#common/locales.ts";

export interface Seo {
  title: string;
  description?: string;
  canonical: string;
  alternates: { hreflang: string; href: string }[];
  image: string;
  siteName: string;
  ogLocale: string;
  noindex: boolean;
}

/** Private areas are never indexed. */
const PRIVATE = /^\/(dashboard|user|auth)(\/|$)/;

/** Everything a page's head says about it; computed in the loader, turned into tags by `seoMeta`. */
export function buildSeo(options: {
  site: PublicSiteConfig;
  pathname: string;
  locale: Locale;
  title: string;
  description?: string;
  noindex?: boolean;
  /** A path on this site for the preview image, instead of the site's own. */
  image?: string;
}): Seo {
  const { site, pathname, locale } = options;
  const bare = stripLocale(pathname);
  return {
    title: options.title,
    description: options.description,
    canonical: localizedUrl(site.url, bare, locale),
    alternates: [
      ...LOCALES.map((l) => ({ hreflang: LOCALE_TAGS[l], href: localizedUrl(site.url, bare, l) })),
      { hreflang: "x-default", href: localizedUrl(site.url, bare, "en") },
    ],
    image: `${site.url}${options.image ?? "/og-image.png"}`,
    siteName: site.name,
    ogLocale: LOCALE_TAGS[locale].replace("-", "_"),
    noindex: options.noindex ?? PRIVATE.test(bare),
  };
}

export function seoMeta(seo: Seo | undefined): MetaDescriptor[] {
  if (!seo) return [];
  const tags: MetaDescriptor[] = [
    { title: seo.title },
    { property: "og:title", content: seo.title },
    { property: "og:type", content: "website" },
    { property: "og:url", content: seo.canonical },
    { property: "og:site_name", content: seo.siteName },
    { property: "og:locale", content: seo.ogLocale },
    { property: "og:image", content: seo.image },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: seo.title },
    { name: "twitter:image", content: seo.image },
  ];
  if (seo.description) {
    tags.push(
      { name: "description", content: seo.description },
      { property: "og:description", content: seo.description },
      { name: "twitter:description", content: seo.description },
    );
  }
  if (seo.noindex) {
    tags.push({ name: "robots", content: "noindex, nofollow" });
    return tags;
  }
  tags.push({ tagName: "link", rel: "canonical", href: seo.canonical });
  for (const alt of seo.alternates)
    tags.push({ tagName: "link", rel: "alternate", hrefLang: alt.hreflang, href: alt.href });
  return tags;
}
