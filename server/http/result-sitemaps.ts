import { Hono, type MiddlewareHandler } from "hono";
import type { SiteConfig } from "#config/site.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import type { RuntimeEnv } from "#server/http/runtime-gate.ts";
import type { Db } from "#server/db/client.ts";
import { countResultSitemaps } from "#server/modules/explore/count-result-sitemaps.ts";
import { listSitemapResults, RESULTS_PER_SITEMAP } from "#server/modules/explore/list-sitemap-results.ts";
import { DEFAULT_LOCALE, LOCALES, LOCALE_TAGS, isLocale, localizedUrl, type Locale } from "#common/locales.ts";
import { escapeHtml } from "#common/html.ts";

/** How long the number of result sitemaps is kept before it is counted again. */
const COUNT_TTL_MS = 10 * 60 * 1000;

const fileName = (file: number) => `sitemap-results-${file}.xml`;

/** One sitemap of results in one locale: each result's page, when it last changed, and its page in every language. */
function resultsSitemap(site: SiteConfig, locale: Locale, results: { id: string; updatedAt: Date }[]): string {
  const url = (id: string, l: Locale) => escapeHtml(localizedUrl(site.url, `/share/${id}`, l));
  const urls = results.map(({ id, updatedAt }) =>
    [
      "  <url>",
      `    <loc>${url(id, locale)}</loc>`,
      `    <lastmod>${updatedAt.toISOString().slice(0, 10)}</lastmod>`,
      ...LOCALES.map((l) => `    <xhtml:link rel="alternate" hreflang="${LOCALE_TAGS[l]}" href="${url(id, l)}"/>`),
      `    <xhtml:link rel="alternate" hreflang="x-default" href="${url(id, DEFAULT_LOCALE)}"/>`,
      "  </url>",
    ].join("\n"),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${urls.join("\n")}\n</urlset>\n`;
}

/**
 * The sitemaps of the results shown publicly: `/{locale}/sitemap-results-{n}.xml`, each with `perFile` results
 * (split as the protocol requires), listed by the sitemap index through `entries`. Read from the database, so they
 * need it; the index leaves them out while it is not there.
 */
export function resultSitemaps(options: { site: SiteConfig; ready: MiddlewareHandler<RuntimeEnv>; perFile?: number }) {
  const { site, ready } = options;
  const perFile = options.perFile ?? RESULTS_PER_SITEMAP;
  let counted: { at: number; files: number } | null = null;
  const filesOf = async (db: Db) => {
    if (counted && Date.now() - counted.at < COUNT_TTL_MS) return counted.files;
    const files = await countResultSitemaps({ db, perFile });
    counted = { at: Date.now(), files };
    return files;
  };
  const routes = new Hono<RuntimeEnv>().get(
    "/:locale{[a-z]{2}}/:file{sitemap-results-[1-9][0-9]{0,6}\\.xml}",
    ready,
    async (c, next) => {
      const locale = c.req.param("locale");
      if (!isLocale(locale)) return next();
      c.set("route", "static");
      const file = Number(/\d+/.exec(c.req.param("file"))![0]);
      const results = await listSitemapResults({ db: c.var.runtime.database.db, file, perFile });
      if (results.length === 0) return c.text("Not found", 404);
      return c.body(resultsSitemap(site, locale, results), 200, {
        "Content-Type": "application/xml; charset=utf-8",
        "Cache-Control": "public, max-age=3600",
      });
    },
  );
  return {
    routes: routes as unknown as Hono<AppEnv>,
    /** The result sitemaps' addresses for the index: none while the database is not there or cannot say. */
    entries: async (db: Db | undefined): Promise<string[]> => {
      if (!db) return [];
      const files = await filesOf(db).catch(() => 0);
      return LOCALES.flatMap((locale) =>
        Array.from({ length: files }, (_, i) => `${site.url}/${locale}/${fileName(i + 1)}`),
      );
    },
    /** Counts again on the next index (results were published or hidden). */
    forget: () => {
      counted = null;
    },
  };
}
