import { Hono, type Context } from "hono";
import type { SiteConfig } from "#config/site.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import { listGuides, listPublicPages, type PublicPage } from "#server/modules/content/public-pages.ts";
import { serverT } from "#server/i18n/translations.ts";
import { DEFAULT_LOCALE, LOCALES, LOCALE_TAGS, isLocale, localizedUrl, type Locale } from "#common/locales.ts";
import { escapeHtml } from "#common/html.ts";

const urlOf = (site: SiteConfig, path: string, locale: Locale) => escapeHtml(localizedUrl(site.url, path, locale));

/** The sitemap index: one sitemap per locale. */
function sitemapIndex(site: SiteConfig, pages: PublicPage[]): string {
  const lastmods = new Map<Locale, string>();
  for (const page of pages) {
    for (const { locale, updated } of page.locales) {
      if (updated && updated > (lastmods.get(locale) ?? "")) lastmods.set(locale, updated);
    }
  }
  const entries = LOCALES.map((locale) => {
    const lastmod = lastmods.get(locale);
    return `  <sitemap>\n    <loc>${escapeHtml(`${site.url}/${locale}/sitemap.xml`)}</loc>\n${lastmod ? `    <lastmod>${lastmod}</lastmod>\n` : ""}  </sitemap>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join("\n")}\n</sitemapindex>\n`;
}

/**
 * The sitemap of one locale: each public page written in it, with its alternates in every language it exists in
 * and `x-default` (the English page), and when its text last changed.
 */
function localeSitemap(site: SiteConfig, pages: PublicPage[], locale: Locale): string {
  const urls = pages.flatMap((page) => {
    const own = page.locales.find((l) => l.locale === locale);
    if (!own) return [];
    const alternates = page.locales.map(
      (l) =>
        `    <xhtml:link rel="alternate" hreflang="${LOCALE_TAGS[l.locale]}" href="${urlOf(site, page.path, l.locale)}"/>`,
    );
    if (page.locales.some((l) => l.locale === DEFAULT_LOCALE)) {
      alternates.push(
        `    <xhtml:link rel="alternate" hreflang="x-default" href="${urlOf(site, page.path, DEFAULT_LOCALE)}"/>`,
      );
    }
    return [
      [
        "  <url>",
        `    <loc>${urlOf(site, page.path, locale)}</loc>`,
        ...(own.updated ? [`    <lastmod>${own.updated}</lastmod>`] : []),
        ...alternates,
        "  </url>",
      ].join("\n"),
    ];
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${urls.join("\n")}\n</urlset>\n`;
}

/** Crawlers may read the public site, not the private areas in any language; the sitemap is named. */
function robots(site: SiteConfig): string {
  const privateAreas = ["/dashboard", "/user", "/auth", "/api/"];
  const lines = ["User-agent: *", "Allow: /"];
  for (const area of privateAreas) {
    lines.push(`Disallow: ${area}`);
    // The same areas under every locale prefix (each listed: not every crawler understands wildcards).
    if (!area.startsWith("/api")) for (const locale of LOCALES) lines.push(`Disallow: /${locale}${area}`);
  }
  return `${lines.join("\n")}\n\nSitemap: ${site.url}/sitemap.xml\n`;
}

/** `llms.txt` (llmstxt.org): what this site is and where its documentation is, for AI agents, in Markdown. */
function llms(site: SiteConfig, limitPerMinute: number): string {
  const t = serverT(DEFAULT_LOCALE, ["common"]);
  const guides = listGuides({
    origin: new URL(site.url).origin,
    site: site.name,
    limit: String(limitPerMinute),
  });
  return [
    `# ${site.name}`,
    "",
    `> ${t("site.tagline")}: create images (text to image, image to image) and videos with credits, in the studio or through a REST API.`,
    "",
    "## Docs",
    "",
    ...guides.map((g) => `- [${g.title}](${site.url}${g.path}): ${g.description}`),
    `- [API reference](${site.url}/docs/api-reference): every operation of the REST API, its parameters and answers`,
    `- [OpenAPI document](${site.url}/api/v1/openapi.json): the REST API as OpenAPI 3.1`,
    "",
    "## Optional",
    "",
    `- [Pricing](${site.url}/pricing): credit packs and what each model costs`,
    "",
  ].join("\n");
}

/**
 * The files that describe the site to crawlers and agents: `robots.txt`, the sitemap index `/sitemap.xml` with one
 * sitemap per locale at `/{locale}/sitemap.xml`, and `llms.txt`. Made from the content and the site's settings
 * alone, so they answer while the database is starting or down; kept until the content changes (`forget`).
 */
export function siteFiles(options: { site: SiteConfig; limitPerMinute: number }) {
  const { site } = options;
  const made = new Map<string, string>();
  let pages: PublicPage[] | undefined;
  const publicPages = () => (pages ??= listPublicPages());
  const send = (c: Context<AppEnv>, key: string, type: string, make: () => string) => {
    c.set("route", "static");
    let body = made.get(key);
    if (body === undefined) made.set(key, (body = make()));
    return c.body(body, 200, { "Content-Type": type, "Cache-Control": "public, max-age=3600" });
  };
  const xml = "application/xml; charset=utf-8";
  const routes = new Hono<AppEnv>()
    .get("/robots.txt", (c) => send(c, "robots", "text/plain; charset=utf-8", () => robots(site)))
    .get("/llms.txt", (c) => send(c, "llms", "text/markdown; charset=utf-8", () => llms(site, options.limitPerMinute)))
    .get("/sitemap.xml", (c) => send(c, "index", xml, () => sitemapIndex(site, publicPages())))
    .get("/:locale{[a-z]{2}}/sitemap.xml", (c, next) => {
      const locale = c.req.param("locale");
      if (!isLocale(locale)) return next();
      return send(c, `sitemap:${locale}`, xml, () => localeSitemap(site, publicPages(), locale));
    });
  return {
    routes,
    forget: () => {
      made.clear();
      pages = undefined;
    },
  };
}
