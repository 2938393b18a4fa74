import { Hono, type MiddlewareHandler } from "hono";
import type { SiteConfig } from "#config/site.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import type { RuntimeEnv } from "#server/http/runtime-gate.ts";
import type { Db } from "#server/db/client.ts";
import { countResultSitemaps } from "#server/modules/explore/count-result-sitemaps.ts";
import { listSitemapResults, RESULTS_PER_SITEMAP } from "#server/modules/explore/list-sitemap-results.ts";
import { countCreatorSitemaps, listSitemapCreators } from "#server/modules/explore/list-sitemap-creators.ts";
import type { Runtime } from "#server/runtime.ts";
import { DEFAULT_LOCALE, LOCALES, LOCALE_TAGS, isLocale, localizedUrl, type Locale } from "#common/locales.ts";
import { escapeHtml } from "#common/html.ts";

/** How long the number of sitemap files is kept before it is counted again. */
const COUNT_TTL_MS = 10 * 60 * 1000;

type Paged = { db: Db; file: number; perFile: number };
type Page = { path: string; updatedAt: Date };

/**
 * The two kinds of paged sitemaps: results' pages (`/share/{id}`) and creators' pages (`/u/{handle}`, only while
 * explore is open, as the pages themselves).
 */
const KINDS = {
  results: {
    pages: async (o: Paged): Promise<Page[]> =>
      (await listSitemapResults(o)).map((r) => ({ path: `/share/${r.id}`, updatedAt: r.updatedAt })),
    count: countResultSitemaps,
    open: () => true,
  },
  creators: {
    pages: async (o: Paged): Promise<Page[]> =>
      (await listSitemapCreators(o)).map((c) => ({ path: `/u/${c.handle}`, updatedAt: c.updatedAt })),
    count: countCreatorSitemaps,
    open: (runtime: Runtime) => runtime.settings.current().explore.enabled,
  },
} as const;
type Kind = keyof typeof KINDS;

const fileName = (kind: Kind, file: number) => `sitemap-${kind}-${file}.xml`;

/** One sitemap of pages in one locale: each page, when it last changed, and its address in every language. */
function pagesSitemap(site: SiteConfig, locale: Locale, paths: Page[]): string {
  const url = (path: string, l: Locale) => escapeHtml(localizedUrl(site.url, path, l));
  const urls = paths.map(({ path, updatedAt }) =>
    [
      "  <url>",
      `    <loc>${url(path, locale)}</loc>`,
      `    <lastmod>${updatedAt.toISOString().slice(0, 10)}</lastmod>`,
      ...LOCALES.map((l) => `    <xhtml:link rel="alternate" hreflang="${LOCALE_TAGS[l]}" href="${url(path, l)}"/>`),
      `    <xhtml:link rel="alternate" hreflang="x-default" href="${url(path, DEFAULT_LOCALE)}"/>`,
      "  </url>",
    ].join("\n"),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${urls.join("\n")}\n</urlset>\n`;
}

/**
 * The sitemaps of the pages shown publicly: results' at `/{locale}/sitemap-results-{n}.xml` and creators' at
 * `/{locale}/sitemap-creators-{n}.xml`, each with `perFile` pages (split as the protocol requires), listed by the
 * sitemap index through `entries`. Read from the database, so they need it; the index leaves them out while it is
 * not there.
 */
export function resultSitemaps(options: { site: SiteConfig; ready: MiddlewareHandler<RuntimeEnv>; perFile?: number }) {
  const { site, ready } = options;
  const perFile = options.perFile ?? RESULTS_PER_SITEMAP;
  let counted: { at: number; files: Record<Kind, number> } | null = null;
  const filesOf = async (runtime: Runtime) => {
    if (counted && Date.now() - counted.at < COUNT_TTL_MS) return counted.files;
    const db = runtime.database.db;
    const [results, creators] = await Promise.all([
      KINDS.results.count({ db, perFile }),
      KINDS.creators.count({ db, perFile }),
    ]);
    counted = { at: Date.now(), files: { results, creators } };
    return counted.files;
  };
  const routes = new Hono<RuntimeEnv>().get(
    "/:locale{[a-z]{2}}/:file{sitemap-(?:results|creators)-[1-9][0-9]{0,6}\\.xml}",
    ready,
    async (c, next) => {
      const locale = c.req.param("locale");
      if (!isLocale(locale)) return next();
      c.set("route", "static");
      const [, name, number] = /^sitemap-(results|creators)-(\d+)/.exec(c.req.param("file"))!;
      const kind = KINDS[name as Kind];
      if (!kind.open(c.var.runtime)) return c.text("Not found", 404);
      const pages = await kind.pages({ db: c.var.runtime.database.db, file: Number(number), perFile });
      if (pages.length === 0) return c.text("Not found", 404);
      return c.body(pagesSitemap(site, locale, pages), 200, {
        "Content-Type": "application/xml; charset=utf-8",
        "Cache-Control": "public, max-age=3600",
      });
    },
  );
  return {
    routes: routes as unknown as Hono<AppEnv>,
    /** The sitemaps' addresses for the index: none while the database is not there or cannot say. */
    entries: async (runtime: Runtime | undefined): Promise<string[]> => {
      if (!runtime) return [];
      const files = await filesOf(runtime).catch(() => ({ results: 0, creators: 0 }));
      const kinds = (Object.keys(KINDS) as Kind[]).filter((kind) => KINDS[kind].open(runtime));
      return kinds.flatMap((kind) =>
        LOCALES.flatMap((locale) =>
          Array.from({ length: files[kind] }, (_, i) => `${site.url}/${locale}/${fileName(kind, i + 1)}`),
        ),
      );
    },
    /** Counts again on the next index (results were published or hidden). */
    forget: () => {
      counted = null;
    },
  };
}
