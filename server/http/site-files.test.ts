import { validateXML } from "xmllint-wasm";
import { expectSchemaValid, schemaFile } from "#tests/support/sitemaps.ts";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import Parser from "rss-parser";
import { describe, expect, it } from "vitest";
import { siteFiles } from "#server/http/site-files.ts";
import { publishedPosts } from "#server/modules/content/blog.ts";
import { LOCALES, LOCALE_TAGS } from "#common/locales.ts";
import type { SiteConfig } from "#config/site.ts";
import { docValuesOf } from "#server/modules/content/get-doc.ts";

const site = { name: "Atelier", url: "https://atelier.example" } as SiteConfig;
const { routes } = siteFiles({
  site,
  values: docValuesOf(site, { API_RATE_LIMIT_PER_MINUTE: 60, API_ACCOUNT_RATE_LIMIT_PER_MINUTE: 120 }),
});
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  isArray: (name) => ["url", "sitemap", "xhtml:link"].includes(name),
});

async function xml(path: string) {
  const res = await routes.request(path);
  expect(res.status, path).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
  const text = await res.text();
  expect(XMLValidator.validate(text), path).toBe(true);
  await expectSchemaValid(text, path === "/sitemap.xml" ? "siteindex.xsd" : "sitemap.xsd");
  return parser.parse(text) as Parsed;
}

type Url = { loc: string; lastmod?: string; "xhtml:link": { "@rel": string; "@hreflang": string; "@href": string }[] };
type Parsed = {
  sitemapindex: { "@xmlns": string; sitemap: { loc: string; lastmod?: string }[] };
  urlset: { "@xmlns": string; "@xmlns:xhtml": string; url: Url[] };
};

describe("the files that describe the site", () => {
  it("indexes one sitemap per locale", async () => {
    const index = (await xml("/sitemap.xml")).sitemapindex;
    expect(index["@xmlns"]).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
    expect(index.sitemap.map((s) => s.loc)).toEqual(LOCALES.map((l) => `https://atelier.example/${l}/sitemap.xml`));
    expect(index.sitemap[0]!.lastmod).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("lists each locale's public pages with every alternate and x-default, and never a private page", async () => {
    for (const locale of LOCALES) {
      const set = (await xml(`/${locale}/sitemap.xml`)).urlset;
      expect(set["@xmlns:xhtml"]).toBe("http://www.w3.org/1999/xhtml");
      const urls = set.url;
      const prefix = locale === "en" ? "https://atelier.example" : `https://atelier.example/${locale}`;
      const locs = urls.map((u) => u.loc);
      expect(locs).toEqual(
        expect.arrayContaining([
          locale === "en" ? "https://atelier.example/" : `${prefix}/`,
          `${prefix}/pricing`,
          `${prefix}/docs`,
          `${prefix}/docs/api`,
          `${prefix}/docs/webhooks`,
          `${prefix}/docs/api-reference`,
          `${prefix}/docs/getting-started`,
          `${prefix}/docs/self-hosting`,
          `${prefix}/legal/terms`,
          `${prefix}/legal/refund`,
          `${prefix}/legal/cookies`,
          `${prefix}/legal/privacy`,
          `${prefix}/blog`,
          `${prefix}/blog/writing-prompts-that-work`,
        ]),
      );
      expect(locs.filter((l) => /\/(dashboard|user|auth|share)(\/|$)/.test(l))).toEqual([]);
      for (const url of urls) {
        const links = url["xhtml:link"];
        const hreflangs = links.map((l) => l["@hreflang"]);
        // The page lists itself among its alternates, under its own language, and the English page as x-default.
        expect(links.find((l) => l["@hreflang"] === LOCALE_TAGS[locale])!["@href"]).toBe(url.loc);
        expect(hreflangs).toContain("x-default");
        expect(new Set(hreflangs).size).toBe(hreflangs.length);
      }
      // Pages written in every language list all ten.
      for (const path of ["/", "/pricing", "/docs", "/docs/api", "/legal/terms", "/legal/privacy"]) {
        const url = urls.find((u) => u.loc === (path === "/" ? `${prefix}/` : `${prefix}${path}`))!;
        expect(url["xhtml:link"].map((l) => l["@hreflang"]).sort()).toEqual(
          [...LOCALES.map((l) => LOCALE_TAGS[l]), "x-default"].sort(),
        );
      }
      expect(urls.find((u) => u.loc === `${prefix}/docs/api`)!.lastmod).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it("answers a prefix that is not a locale with nothing of its own", async () => {
    expect((await routes.request("/xx/sitemap.xml")).status).toBe(404);
    expect((await routes.request("/xx/blog/rss.xml")).status).toBe(404);
  });

  it("refuses a sitemap the schema forbids, so the check above can fail", async () => {
    const bad = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>/relative</loc><lastmod>yesterday</lastmod><xhtml:link rel="alternate" href="https://a.example/"/></url></urlset>`;
    const result = await validateXML({
      xml: [{ fileName: "bad.xml", contents: bad }],
      schema: [schemaFile("sitemap.xsd")],
      preload: [schemaFile("sitemap-types.xsd"), schemaFile("xhtml-link.xsd")],
    });
    expect(result.valid).toBe(false);
    expect(result.errors.length).toBeGreaterThanOrEqual(3);
  });

  it("serves the blog's feed in every language, readable by a feed reader", async () => {
    const reader = new Parser();
    for (const locale of LOCALES) {
      const path = locale === "en" ? "/blog/rss.xml" : `/${locale}/blog/rss.xml`;
      const res = await routes.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
      const feed = await reader.parseString(await res.text());
      const blog = locale === "en" ? "https://atelier.example/blog" : `https://atelier.example/${locale}/blog`;
      expect(feed.link).toBe(blog);
      expect(feed.title).toContain("Atelier");
      const posts = publishedPosts({ locale, values: { origin: "https://atelier.example", site: "Atelier" } });
      expect(feed.items.map((item) => item.title)).toEqual(posts.map((post) => post.title));
      // Each links to its page in the feed's language, or to the English page where it has no translation
      expect(feed.items.map((item) => item.link)).toEqual(
        posts.map((post) => `${post.fallback ? "https://atelier.example/blog" : blog}/${post.slug}`),
      );
      for (const item of feed.items) {
        expect(item.guid).toBe(item.link);
        expect(Number.isNaN(Date.parse(item.pubDate!))).toBe(false);
        expect(item.contentSnippet!.length).toBeGreaterThan(20);
        expect(item.categories!.length).toBeGreaterThan(0);
      }
      // Newest first
      const dates = feed.items.map((item) => Date.parse(item.pubDate!));
      expect([...dates].sort((a, b) => b - a)).toEqual(dates);
    }
  });

  it("keeps crawlers out of the private areas in every language and names the sitemap", async () => {
    const res = await routes.request("/robots.txt");
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await res.text();
    for (const area of ["/dashboard", "/user", "/auth"]) {
      expect(text).toContain(`Disallow: ${area}\n`);
      for (const locale of LOCALES) expect(text).toContain(`Disallow: /${locale}${area}\n`);
    }
    expect(text).toContain("Disallow: /api/\n");
    expect(text).not.toMatch(/Disallow: \/(\w{2}\/)?(pricing|docs)\b/);
    expect(text).toContain("Sitemap: https://atelier.example/sitemap.xml\n");
  });

  it("describes the site and its documentation for AI agents in llms.txt", async () => {
    const text = await (await routes.request("/llms.txt")).text();
    expect(text.startsWith("# Atelier\n\n> ")).toBe(true);
    expect(text).toContain("## Docs");
    expect(text).toMatch(/- \[[^\]]+\]\(https:\/\/atelier\.example\/docs\/api\): \S/);
    expect(text).toMatch(/- \[[^\]]+\]\(https:\/\/atelier\.example\/docs\/webhooks\): \S/);
    expect(text).toContain("(https://atelier.example/api/v1/openapi.json)");
    expect(text).toContain("## Blog");
    expect(text).toMatch(/- \[[^\]]+\]\(https:\/\/atelier\.example\/blog\/writing-prompts-that-work\): \S/);
  });
});
