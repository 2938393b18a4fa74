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
  /** `article` for a blog post; `website` otherwise. */
  type: "website" | "article";
  /** Structured data (schema.org) about the page, as JSON-LD. */
  jsonLd: Record<string, unknown>[];
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
  /** The part of the query that makes this page another page (`?page=2`), kept in its addresses. */
  search?: string;
  /**
   * The languages the page's text is written in, when not all ten: the others show the English text, so their
   * canonical address is the English page and only the written ones are alternates.
   */
  translations?: readonly Locale[];
  type?: Seo["type"];
  jsonLd?: Record<string, unknown>[];
}): Seo {
  const { site, pathname, locale } = options;
  const bare = stripLocale(pathname);
  const search = options.search ?? "";
  const written = options.translations ?? LOCALES;
  const url = (l: Locale) => `${localizedUrl(site.url, bare, l)}${search}`;
  return {
    title: options.title,
    description: options.description,
    canonical: url(written.includes(locale) ? locale : "en"),
    alternates: [
      ...written.map((l) => ({ hreflang: LOCALE_TAGS[l], href: url(l) })),
      ...(written.includes("en") ? [{ hreflang: "x-default", href: url("en") }] : []),
    ],
    image: `${site.url}${options.image ?? "/og-image.png"}`,
    siteName: site.name,
    ogLocale: LOCALE_TAGS[locale].replace("-", "_"),
    noindex: options.noindex ?? PRIVATE.test(bare),
    type: options.type ?? "website",
    jsonLd: options.jsonLd ?? [],
  };
}

export function seoMeta(seo: Seo | undefined): MetaDescriptor[] {
  if (!seo) return [];
  const tags: MetaDescriptor[] = [
    { title: seo.title },
    { property: "og:title", content: seo.title },
    { property: "og:type", content: seo.type },
    { property: "og:url", content: seo.canonical },
    { property: "og:site_name", content: seo.siteName },
    { property: "og:locale", content: seo.ogLocale },
    { property: "og:image", content: seo.image },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: seo.title },
    { name: "twitter:image", content: seo.image },
  ];
  // The site's picture and the pages' own are drawn at one size (a shared generation's is its own)
  if (/\/og(-image\.png|\/)/.test(new URL(seo.image).pathname)) {
    tags.push({ property: "og:image:width", content: "1200" }, { property: "og:image:height", content: "630" });
  }
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
  for (const data of seo.jsonLd) tags.push({ "script:ld+json": data as never });
  for (const alt of seo.alternates)
    tags.push({ tagName: "link", rel: "alternate", hrefLang: alt.hreflang, href: alt.href });
  return tags;
}
