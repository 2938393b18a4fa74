import { createHash } from "node:crypto";
import { Hono, type Context } from "hono";
import type { SiteConfig } from "#config/site.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import { listArticles, listGuides, listPublicPages, type PublicPage } from "#server/modules/content/public-pages.ts";
import { publishedPosts } from "#server/modules/content/blog.ts";
import type { DocValues } from "#server/modules/content/get-doc.ts";
import { serverT } from "#server/i18n/translations.ts";
import { DEFAULT_LOCALE, LOCALES, LOCALE_TAGS, isLocale, localizedUrl, type Locale } from "#common/locales.ts";
import { escapeHtml } from "#common/html.ts";

const urlOf = (site: SiteConfig, path: string, locale: Locale) => escapeHtml(localizedUrl(site.url, path, locale));

/** The sitemap index: one sitemap per locale, then `more` (the results' sitemaps). */
function sitemapIndex(site: SiteConfig, pages: PublicPage[], more: string[]): string {
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
  for (const loc of more) entries.push(`  <sitemap>\n    <loc>${escapeHtml(loc)}</loc>\n  </sitemap>`);
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
function llms(site: SiteConfig, values: DocValues): string {
  const t = serverT(DEFAULT_LOCALE, ["common"]);
  const guides = listGuides(values);
  const articles = listArticles(values);
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
    ...(articles.length > 0
      ? ["", "## Blog", "", ...articles.map((a) => `- [${a.title}](${site.url}${a.path}): ${a.description}`)]
      : []),
    "",
    "## Optional",
    "",
    `- [Pricing](${site.url}/pricing): credit packs and what each model costs`,
    `- [Blog feed](${site.url}/blog/rss.xml): the articles as RSS`,
    "",
  ].join("\n");
}

/**
 * The blog's RSS 2.0 feed in one language: its articles newest first, each linking to its page in that language (or
 * to the English page, its canonical address, where it has no translation).
 */
function feed(site: SiteConfig, values: DocValues, locale: Locale): string {
  const t = serverT(locale, ["blog"]);
  const posts = publishedPosts({ locale, values });
  const blogUrl = urlOf(site, "/blog", locale);
  const items = posts.map((post) => {
    const link = urlOf(site, `/blog/${post.slug}`, post.locale);
    return [
      "    <item>",
      `      <title>${escapeHtml(post.title)}</title>`,
      `      <link>${link}</link>`,
      `      <guid isPermaLink="true">${link}</guid>`,
      `      <pubDate>${rfc822(post.date)}</pubDate>`,
      `      <description>${escapeHtml(post.description)}</description>`,
      ...(post.author ? [`      <dc:creator>${escapeHtml(post.author)}</dc:creator>`] : []),
      ...post.tags.map(
        (tag) => `      <category>${escapeHtml(t(`blog:tag.${tag}`, { defaultValue: tag }))}</category>`,
      ),
      ...(post.cover
        ? [`      <enclosure url="${escapeHtml(site.url + post.cover)}" length="0" type="${coverType(post.cover)}"/>`]
        : []),
      "    </item>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">',
    "  <channel>",
    `    <title>${escapeHtml(t("blog:index.metaTitle", { site: site.name }))}</title>`,
    `    <link>${blogUrl}</link>`,
    `    <description>${escapeHtml(t("blog:index.intro", { site: site.name }))}</description>`,
    `    <language>${LOCALE_TAGS[locale]}</language>`,
    ...(posts[0]
      ? [
          `    <lastBuildDate>${rfc822(posts.reduce((a, p) => (p.updated > a ? p.updated : a), posts[0].updated))}</lastBuildDate>`,
        ]
      : []),
    `    <atom:link href="${urlOf(site, "/blog/rss.xml", locale)}" rel="self" type="application/rss+xml"/>`,
    ...items,
    "  </channel>",
    "</rss>",
    "",
  ].join("\n");
}

/** A day (YYYY-MM-DD) as RSS writes dates (RFC 822), at midnight UTC. */
const rfc822 = (day: string) => new Date(`${day}T00:00:00Z`).toUTCString();

const coverType = (path: string) =>
  path.endsWith(".svg")
    ? "image/svg+xml"
    : path.endsWith(".png")
      ? "image/png"
      : path.endsWith(".webp")
        ? "image/webp"
        : "image/jpeg";

/**
 * The files that describe the site to crawlers, agents and feed readers: `robots.txt`, the sitemap index
 * `/sitemap.xml` with one sitemap per locale at `/{locale}/sitemap.xml`, `llms.txt`, and the blog's feed per locale
 * (`/blog/rss.xml`, `/{locale}/blog/rss.xml`). Made from the content and the site's settings alone, so they answer
 * while the database is starting or down; kept until the content changes (`forget`) or the day changes (an article
 * dated today is published today).
 */
export function siteFiles(options: {
  site: SiteConfig;
  values: DocValues;
  /** More sitemaps for the index (the results'), when they can be known; the index never waits on an error. */
  moreSitemaps?: () => Promise<string[]>;
}) {
  const { site, values } = options;
  const made = new Map<string, string>();
  let pages: PublicPage[] | undefined;
  let madeOn = "";
  const publicPages = () => (pages ??= listPublicPages(values));
  const send = (c: Context<AppEnv>, key: string, type: string, make: () => string) => {
    c.set("route", "static");
    const today = new Date().toISOString().slice(0, 10);
    if (today !== madeOn) {
      made.clear();
      pages = undefined;
      madeOn = today;
    }
    let body = made.get(key);
    if (body === undefined) made.set(key, (body = make()));
    return c.body(body, 200, { "Content-Type": type, "Cache-Control": "public, max-age=3600" });
  };
  const xml = "application/xml; charset=utf-8";
  const rss = "application/rss+xml; charset=utf-8";
  const routes = new Hono<AppEnv>()
    .get("/robots.txt", (c) => send(c, "robots", "text/plain; charset=utf-8", () => robots(site)))
    .get("/llms.txt", (c) => send(c, "llms", "text/markdown; charset=utf-8", () => llms(site, values)))
    .get("/blog/rss.xml", (c) => send(c, "feed:en", rss, () => feed(site, values, DEFAULT_LOCALE)))
    .get("/:locale{[a-z]{2}}/blog/rss.xml", (c, next) => {
      const locale = c.req.param("locale");
      if (!isLocale(locale)) return next();
      return send(c, `feed:${locale}`, rss, () => feed(site, values, locale));
    })
    .get("/sitemap.xml", async (c) => {
      const more = (await options.moreSitemaps?.().catch(() => [])) ?? [];
      // Kept per set of sitemaps: the same number of files can name other ones (results' and creators').
      const key = createHash("sha1").update(more.join("\n")).digest("base64url");
      return send(c, `index:${key}`, xml, () => sitemapIndex(site, publicPages(), more));
    })
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
