import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCALES, LOCALE_TAGS, type Locale } from "#common/locales.ts";
import { ROOT, startServer, waitFor, type TestServer } from "#tests/support/server.ts";
import { text } from "#tests/support/locales.ts";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36";
const BINGBOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const SITE = "https://atelier.example";

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("locale routing", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ SITE_URL: SITE });
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { "user-agent": CHROME, ...headers }, redirect: "manual" });

  it.each([["", "en"], ...LOCALES.map((l) => [`/${l}`, l])])("%s/ renders in %s", async (prefix, locale) => {
    const res = await get(`${prefix}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<html lang="${LOCALE_TAGS[locale as keyof typeof LOCALE_TAGS]}"`);
    expect(html).toContain(escapeHtml(text(locale, "home", "title")));
    expect(html).toContain(escapeHtml(text(locale, "common", "site.tagline")));
  });

  it.each([
    ["neither cookie nor languages", {}, 200, undefined],
    ["a supported browser language", { "accept-language": "ja-JP,ja;q=0.9,en;q=0.5" }, 302, "/ja/"],
    ["an unsupported browser language", { "accept-language": "nl-NL,sv;q=0.8" }, 200, undefined],
    ["a cookie", { cookie: "locale=ko" }, 302, "/ko/"],
    ["a cookie and another browser language", { cookie: "locale=fr", "accept-language": "de" }, 302, "/fr/"],
    ["an English cookie over a German browser", { cookie: "locale=en", "accept-language": "de" }, 200, undefined],
    ["a crawler with a browser language", { "accept-language": "de", "user-agent": BINGBOT }, 200, undefined],
  ])("the root with %s", async (_name, headers, status, location) => {
    const res = await get("/", headers as Record<string, string>);
    expect(res.status).toBe(status);
    expect(res.headers.get("location") ?? undefined).toBe(location);
    expect(res.headers.get("vary")).toContain("Accept-Language");
  });

  it("never redirects a path other than the root", async () => {
    const res = await get("/en/", { "accept-language": "de", cookie: "locale=de" });
    expect(res.status).toBe(200);
    const other = await get("/somewhere", { "accept-language": "de" });
    expect(other.status).toBe(404);
    expect(await other.text()).toContain('<html lang="en"');
  });

  it("ignores and replaces a malformed or unsupported cookie", async () => {
    for (const cookie of ["locale=xx", "locale=%E0%A4%A", "locale="]) {
      const res = await get("/ru/", { cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get("set-cookie")).toBe("locale=ru; Max-Age=31536000; Path=/; SameSite=Lax");
    }
    const root = await get("/", { cookie: "locale=klingon", "accept-language": "es" });
    expect(root.headers.get("location")).toBe("/es/");
    expect(root.headers.get("set-cookie")).toBe("locale=es; Max-Age=31536000; Path=/; SameSite=Lax");
  });

  it("survives any Accept-Language header", async () => {
    for (const header of ["*;q=x,,,;;;", "a".repeat(4000), `${"zz-ZZ;q=0.1,".repeat(300)}pt`, "é,ü,ß"]) {
      const res = await get("/", { "accept-language": header });
      expect([200, 302]).toContain(res.status);
    }
  });

  it("answers unknown paths with 404 in the prefix's language, inside the site's frame", async () => {
    for (const locale of LOCALES) {
      const res = await get(`/${locale}/no-such-page`);
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toContain(`<html lang="${LOCALE_TAGS[locale]}"`);
      expect(html).toContain(escapeHtml(text(locale, "common", "msg.pageNotFound")));
      expect(html).toContain(`/${locale}/no-such-page`);
      expect(html).toContain('class="site-header');
      expect(html).toMatch(/<meta name="robots" content="noindex/);
    }
  });

  it("serves the four legal pages in every URL variant and language, with this site's details filled in", async () => {
    const titleOf = (locale: string, slug: string) =>
      /^title: (.*)$/m.exec(readFileSync(join(ROOT, "content/legal", locale, `${slug}.md`), "utf8"))![1]!;
    for (const slug of ["terms", "refund", "cookies", "privacy"]) {
      const variants: [string, Locale][] = [["", "en"], ...LOCALES.map((l): [string, Locale] => [`/${l}`, l])];
      for (const [prefix, locale] of variants) {
        const res = await get(`${prefix}/legal/${slug}`);
        expect(res.status, `${prefix}/legal/${slug}`).toBe(200);
        const html = await res.text();
        expect(html).toContain(`<html lang="${LOCALE_TAGS[locale]}"`);
        const article = /<article[^>]*>([\s\S]*?)<\/article>/.exec(html)![1]!;
        const title = escapeHtml(titleOf(locale, slug).replace("{{site}}", "Atelier"));
        expect(article).toMatch(new RegExp(`^<h1 [^>]*>${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}</h1>`));
        // Every placeholder filled in, and the date of the last change shown.
        expect(article).not.toContain("{{");
        expect(article).toContain('class="legal-updated"');
        expect(html).not.toMatch(/<meta name="robots" content="noindex/);
        expect(html).toContain(`/legal/${slug}`);
      }
    }
    const terms = await (await get("/de/legal/terms")).text();
    expect(terms).toContain("support@example.com");
    expect(terms).toContain(SITE);
    // The footer and the sign-up form link them.
    const register = await (await get("/fr/auth/register")).text();
    for (const slug of ["terms", "privacy"]) expect(register).toContain(`href="/fr/legal/${slug}"`);
    const missing = await get("/legal/nope");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("/legal/nope");
  });

  it("serves the blog and its articles in every URL variant and language, paged, by topic, with their feed", async () => {
    const slug = "writing-prompts-that-work";
    const titleOf = (locale: string) =>
      /^title: "?(.*?)"?$/m.exec(readFileSync(join(ROOT, "content/blog", locale, `${slug}.md`), "utf8"))![1]!;
    const variants: [string, Locale][] = [["", "en"], ...LOCALES.map((l): [string, Locale] => [`/${l}`, l])];
    for (const [prefix, locale] of variants) {
      const list = await get(`${prefix}/blog`);
      expect(list.status, `${prefix}/blog`).toBe(200);
      const listHtml = await list.text();
      expect(listHtml).toContain(`<html lang="${LOCALE_TAGS[locale]}"`);
      expect(listHtml).toContain(escapeHtml(text(locale, "blog", "index.rss")));
      expect(listHtml).toContain(`href="${prefix}/blog/${slug}"`);
      expect(listHtml).toContain(`type="application/rss+xml"`);

      const res = await get(`${prefix}/blog/${slug}`);
      expect(res.status, `${prefix}/blog/${slug}`).toBe(200);
      const html = await res.text();
      const article = /<article class="docs-article"[^>]*>([\s\S]*?)<\/article>/.exec(html)![1]!;
      expect(article).toContain(escapeHtml(titleOf(locale)));
      expect(article).not.toContain("{{");
      // Structured data for search engines, and the article's own canonical address
      expect(html).toContain('"@type":"BlogPosting"');
      expect(html).toContain('<meta property="og:type" content="article"/>');
      const canonical = locale === "en" ? `${SITE}/blog/${slug}` : `${SITE}/${locale}/blog/${slug}`;
      expect(html).toContain(`<link rel="canonical" href="${canonical}"/>`);
    }
    // A topic and a page past the end
    const api = await (await get("/ja/blog?tag=api")).text();
    expect(api).toContain('href="/ja/blog/rest-api-and-webhooks"');
    expect(api).not.toContain('href="/ja/blog/writing-prompts-that-work"');
    for (const path of ["/blog?tag=nope", "/blog?page=9", "/blog?page=abc", "/blog?tag=api&tag=guides", "/blog/nope"]) {
      const missing = await get(path);
      expect(missing.status, path).toBe(404);
      expect(await missing.text()).toContain(path.split("?")[0]);
    }
    // Each public page's preview picture is drawn by the server, in the page's language
    const zh = await (await get(`/zh/blog/${slug}`)).text();
    const image = /<meta property="og:image" content="([^"]+)"/.exec(zh)![1]!;
    expect(image).toBe(`${SITE}/og/zh/blog/${slug}.png`);
    const png = await get(new URL(image).pathname);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect((await png.arrayBuffer()).byteLength).toBeGreaterThan(5000);
    for (const path of ["/og/zh/blog/nope.png", "/og/xx/index.png", "/og/en/dashboard.png"]) {
      expect((await get(path)).status, path).toBe(404);
    }
    const home = await (await get("/ja/")).text();
    expect(home).toContain(`<meta property="og:image" content="${SITE}/og/ja/index.png"/>`);
    const feed = await get("/ko/blog/rss.xml");
    expect(feed.status).toBe(200);
    expect(await feed.text()).toContain(`<link>${SITE}/ko/blog/${slug}</link>`);
  });

  it("serves the status page in every URL variant and language, and its JSON twin", async () => {
    const variants: [string, Locale][] = [["", "en"], ...LOCALES.map((l): [string, Locale] => [`/${l}`, l])];
    for (const [prefix, locale] of variants) {
      const res = await get(`${prefix}/test`);
      expect(res.status, `${prefix}/test`).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=15");
      const html = await res.text();
      expect(html).toContain(`<html lang="${LOCALE_TAGS[locale]}"`);
      expect(html).toContain(escapeHtml(text(locale, "status", "title")));
      expect(html).toContain(escapeHtml(text(locale, "status", "overall.operational")));
      expect(html).toContain(escapeHtml(text(locale, "status", "components.database")));
      expect(html).toContain("Atelier Demo Image");
    }
    const json = await get("/test.json");
    expect(json.status).toBe(200);
    const body = (await json.json()) as { overall: string; build: { id: string }; models: { id: string }[] };
    expect(body.overall).toBe("operational");
    expect(body.build.id).toMatch(/\S/);
    expect(body.models.map((m) => m.id)).toContain("demo-video");
  });

  it("treats an unknown locale-like prefix as a missing page, not as English", async () => {
    for (const path of ["/xx/pricing", "/xx", "/de-DE/"]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("Page not found");
    }
  });

  it("keeps the error-raising test pages closed unless TEST_ROUTES is on", async () => {
    for (const path of ["/__test/error/500", "/__test/error/crash", "/__test/error/401"]) {
      expect((await get(path)).status).toBe(404);
    }
  });

  it("gives each variant its canonical URL and all hreflang alternates", async () => {
    const head = async (path: string) => {
      const html = await (await get(path)).text();
      return html.slice(0, html.indexOf("</head>"));
    };
    for (const [path, canonical] of [
      ["/", `${SITE}/`],
      ["/en/", `${SITE}/`],
      ["/zh/", `${SITE}/zh/`],
    ] as const) {
      const h = await head(path);
      expect(h).toContain(`<link rel="canonical" href="${canonical}"/>`);
      for (const locale of LOCALES) {
        const href = locale === "en" ? `${SITE}/` : `${SITE}/${locale}/`;
        expect(h).toContain(`<link rel="alternate" hrefLang="${LOCALE_TAGS[locale]}" href="${href}"/>`);
      }
      expect(h).toContain(`<link rel="alternate" hrefLang="x-default" href="${SITE}/"/>`);
      expect(h).toContain('<meta property="og:title"');
      // The home page's own preview picture, in the page's language (English for both English addresses)
      const language = path === "/zh/" ? "zh" : "en";
      expect(h).toContain(`<meta property="og:image" content="${SITE}/og/${language}/index.png"/>`);
      expect(h).toContain('<meta name="twitter:card" content="summary_large_image"/>');
      expect(h).not.toContain('name="robots"');
    }
  });

  it("serves the default sharing image the Open Graph tags point to", async () => {
    const res = await get("/og-image.png");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
  });

  it("renders the remembered theme, or the system's when the browser tells it", async () => {
    expect(await (await get("/", { cookie: "theme=dark" })).text()).toContain('data-theme="dark"');
    expect(await (await get("/", { "sec-ch-prefers-color-scheme": "dark" })).text()).toContain('data-theme="dark"');
    const light = await get("/", { cookie: "theme=light", "sec-ch-prefers-color-scheme": "dark" });
    expect(await light.text()).toContain('data-theme="light"');
    expect(light.headers.get("accept-ch")).toBe("Sec-CH-Prefers-Color-Scheme");
  });

  it("uses the stylesheet's own colours when the primary colour is the default", async () => {
    const html = await (await get("/")).text();
    expect(html).not.toContain('href="/theme/');
  });

  it("loads no third-party tag when no ID is configured", async () => {
    const res = await get("/");
    const html = await res.text();
    expect(html).not.toMatch(/googletagmanager|clarity\.ms|google-adsense-account|google-site-verification|msvalidate/);
    expect(res.headers.get("content-security-policy")).not.toMatch(/googletagmanager|clarity|cloudflare/);
  });
});

describe("a site with third-party tags and its own primary colour", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      SITE_PRIMARY_COLOR: "#E11D48",
      GA4_ID: "G-TEST123",
      CLARITY_ID: "clar1ty",
      ADSENSE_ACCOUNT: "ca-pub-123",
      GOOGLE_SITE_VERIFICATION: "google-token",
      BING_SITE_VERIFICATION: "bing-token",
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("loads each configured tag with the page's nonce, and the policy lets exactly those services in", async () => {
    const res = await fetch(`${server.url}/?fresh`);
    const csp = res.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    const html = await res.text();
    expect(html).toContain(
      `<script async="" src="https://www.googletagmanager.com/gtag/js?id=G-TEST123" nonce="${nonce}">`,
    );
    expect(html).toContain("gtag('config','G-TEST123')");
    expect(html).toContain('"clarity","script","clar1ty"');
    expect(html).toContain('<meta name="google-adsense-account" content="ca-pub-123"/>');
    expect(html).toContain('<meta name="google-site-verification" content="google-token"/>');
    expect(html).toContain('<meta name="msvalidate.01" content="bing-token"/>');
    expect(csp).toContain("https://www.googletagmanager.com");
    expect(csp).toContain("https://*.clarity.ms");
    expect(csp).not.toContain("challenges.cloudflare.com");
  });

  it("lets the tags of a page served from the page cache run by their hashes and hosts", async () => {
    let res: Response | undefined;
    await waitFor("the page from the cache", async () => {
      res = await fetch(`${server.url}/`);
      return res.headers.get("x-cache") === "hit";
    });
    const csp = res!.headers.get("content-security-policy")!;
    const html = await res!.text();
    const gtag = /<script>(window\.dataLayer[^<]*)<\/script>/.exec(html)?.[1];
    expect(gtag).toBeTruthy();
    expect(csp).toContain(`'sha256-${createHash("sha256").update(gtag!).digest("base64")}'`);
    expect(csp).toContain("https://www.googletagmanager.com");
    expect(csp).not.toContain("'nonce-");
  });

  it("applies the primary colour through a small stylesheet of variables, light and dark, without a rebuild", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const href = /<link rel="stylesheet" href="(\/theme\/[\w-]+\.css)"\/>/.exec(html)?.[1];
    expect(href).toBeTruthy();
    // After Ant Design's own stylesheet, so its variables win.
    expect(html.indexOf(href!)).toBeGreaterThan(html.search(/\/assets\/antd-[\w-]+\.css/));
    const res = await fetch(`${server.url}${href}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const css = await res.text();
    expect(css).toMatch(/:root,\.css-var-atelier\{[^}]*--ant-color-primary:#e11d48/i);
    expect(css).toMatch(
      /html\[data-theme="dark"\],html\[data-theme="dark"\] \.css-var-atelier\{[^}]*--ant-color-primary:#/,
    );
    // Only what the colour changes: a small fraction of the whole stylesheet.
    expect(css.length).toBeLessThan(20_000);
    expect(css).not.toContain("--ant-font-size:");
  });
});
