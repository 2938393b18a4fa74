import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { freePort, ROOT, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { DOC_SLUGS } from "#server/modules/content/get-doc.ts";

type OpenApi = { paths: Record<string, Record<string, unknown>>; webhooks: Record<string, unknown> };
const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** The API reference's texts in a language, by their English. */
const apiText = (locale: string, english: string) =>
  (JSON.parse(readFileSync(join(ROOT, "locales", locale, "openapi.json"), "utf8")) as Record<string, string>)[english]!;

/** A documentation page's title, from its front matter. */
const titleOf = (locale: string, slug: string) =>
  /^title: (.*)$/m.exec(readFileSync(join(ROOT, "content/docs", locale, `${slug}.md`), "utf8"))![1]!;

describe("documentation in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}` }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("leads from the header to the guide, its sections and the interactive reference (Spanish)", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith("data:")) elsewhere.push(r.url());
    });
    await page.goto(`${server.url}/es/`);
    await hydrated(page);
    await page
      .locator(".site-header")
      .getByRole("link", { name: text("es", "common", "nav.docs") })
      .click();
    await page.waitForURL(`${server.url}/es/docs`);
    await expect.poll(() => page.locator("h1").textContent()).toBe(text("es", "docs", "index.title"));
    // Every guide, grouped by who reads it (creators, developers, operators), and the API reference.
    const cards = page.locator(".docs-card");
    expect(await cards.count()).toBe(DOC_SLUGS.length + 1);
    await expect(page.locator(".docs-group-title").allTextContents()).resolves.toEqual(
      ["creators", "developers", "operators"].map((g) => text("es", "docs", `index.groups.${g}`)),
    );
    const titles = await page.locator(".docs-card-title").allTextContents();
    for (const slug of DOC_SLUGS) expect(titles, slug).toContain(titleOf("es", slug));

    await cards.filter({ hasText: titleOf("es", "api") }).click();
    await page.waitForURL(`${server.url}/es/docs/api`);
    await expect.poll(() => page.locator("h1").textContent()).toBe(titleOf("es", "api"));
    expect(await page.locator(".docs-article h1").count()).toBe(1);
    // Filled in with this server's address; the table of contents jumps to its section
    expect(await page.locator(".docs-prose").textContent()).toContain(`${server.url}/api/v1/images`);
    const entry = page.locator(".docs-toc a").nth(2);
    const target = (await entry.getAttribute("href"))!;
    await entry.click();
    await page.waitForURL(`${server.url}/es/docs/api${target}`);
    const heading = page.locator(`[id="${decodeURIComponent(target.slice(1))}"]`);
    await expect.poll(() => heading.evaluate((h) => h.getBoundingClientRect().top)).toBeLessThan(200);

    // The guide's link to the reference keeps the language; the reference is on the page, and the interactive one
    // comes on request
    await page.locator(".docs-prose a[href='/es/docs/api-reference']").first().click();
    await page.waitForURL(`${server.url}/es/docs/api-reference`);
    await expect.poll(() => page.locator("h1").first().textContent()).toBe(text("es", "docs", "reference.title"));
    // The operations in Spanish too
    expect(await page.locator("#post-images h3").textContent()).toBe(apiText("es", "Create an image generation"));
    await page.getByRole("link", { name: text("es", "docs", "reference.interactive.open") }).click();
    await page.waitForURL(`${server.url}/es/docs/api-reference?interactive`);
    const scalar = page.locator(".scalar-reference");
    await scalar.getByText(apiText("es", "Create a video generation")).first().waitFor({ timeout: 30_000 });
    expect(await scalar.getByText("Create a video generation").count()).toBe(0);
    expect(await scalar.getByText("generation.succeeded").count()).toBeGreaterThan(0);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("draws every operation of the served OpenAPI document on the server, readable without JavaScript (Japanese)", async () => {
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as OpenApi;
    const expected = [
      ...Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      ),
      ...Object.keys(doc.webhooks).map((event) => `POST ${event}`),
    ].sort();
    expect(expected.length).toBeGreaterThan(10);

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/ja/docs/api-reference`);
    expect(await page.locator("h1").textContent()).toBe(text("ja", "docs", "reference.title"));
    const operations = page.locator(".api-group > .api-op");
    // Method and path as a reader sees them (a webhook's title is its event)
    const listed = await operations.evaluateAll((sections) =>
      sections.map((s) => {
        const method = s.querySelector(".api-method")!.textContent;
        const path = (s.querySelector(".api-endpoint code") ?? s.querySelector("h3"))!.textContent;
        return { id: s.id, operation: `${method} ${path}` };
      }),
    );
    expect(listed.map((o) => o.operation).sort()).toEqual(expected);
    // Each one under its anchor, in the table of contents
    const contents = await page.locator(".api-toc a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    for (const { id } of listed) expect(contents).toContain(`#${id}`);
    // Its chrome and the API's own words in Japanese, the anchors as in every language
    const image = page.locator("#post-images");
    expect(await image.locator("h3").textContent()).toBe(apiText("ja", "Create an image generation"));
    expect(await page.locator("#tag-generations h2").textContent()).toBe(apiText("ja", "Generations"));
    for (const key of ["reference.requestBody", "reference.responses", "reference.example", "reference.auth"]) {
      expect(await image.getByText(text("ja", "docs", key), { exact: true }).count()).toBeGreaterThan(0);
    }
    expect(await image.locator("pre[data-example='curl']").textContent()).toContain(`curl ${server.url}/api/v1/images`);

    // The interactive reference is a plain link until scripts run; without them it says what it needs
    await page.getByRole("link", { name: text("ja", "docs", "reference.interactive.open") }).click();
    await page.waitForURL(`${server.url}/ja/docs/api-reference?interactive`);
    expect(await page.locator("noscript").last().textContent()).toContain(
      text("ja", "docs", "reference.interactive.noscript"),
    );
    expect(await page.getByRole("link", { name: text("ja", "docs", "reference.interactive.back") }).count()).toBe(1);
    await context.close();
  });

  it("loads nothing of Scalar until the interactive reference is asked for, then shows it (English)", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const scripts: string[] = [];
    const messages: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
    });
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") messages.push(m.text());
    });
    page.on("pageerror", (e) => messages.push(e.message));
    await page.goto(`${server.url}/docs/api-reference`, { waitUntil: "networkidle" });
    await hydrated(page);
    // Only what the page announces up front, and Scalar is not part of it
    const preloaded = await page
      .locator("link[rel=modulepreload]")
      .evaluateAll((links) => links.map((l) => new URL((l as HTMLLinkElement).href).pathname));
    expect(preloaded.filter((p) => /scalar/i.test(p))).toEqual([]);
    expect(scripts.filter((p) => !preloaded.includes(p))).toEqual([]);
    expect(await page.locator(".scalar-reference").count()).toBe(0);

    const before = scripts.length;
    await page.getByRole("link", { name: text("en", "docs", "reference.interactive.open") }).click();
    await page.waitForURL(`${server.url}/docs/api-reference?interactive`);
    await page.locator(".scalar-reference").getByText("List credit movements").first().waitFor({ timeout: 30_000 });
    expect(scripts.slice(before).some((p) => /\/assets\/scalar-reference-[\w-]+\.js$/.test(p))).toBe(true);

    // Back to the reference drawn on the server, without loading the page again
    await page.getByRole("link", { name: text("en", "docs", "reference.interactive.back") }).click();
    await page.waitForURL(`${server.url}/docs/api-reference`);
    await page.locator("#get-credits-ledger").waitFor();
    expect(await page.locator(".scalar-reference").count()).toBe(0);
    expect(messages).toEqual([]);
    await context.close();
  });

  it("is answered from the page cache; the interactive view is rendered per request, loading, or failing", async () => {
    const get = (path: string) => fetch(`${server.url}${path}`);
    await get("/docs/api-reference");
    const cached = await get("/docs/api-reference");
    expect(cached.headers.get("x-cache")).toBe("hit");
    expect(await cached.text()).toContain('id="get-credits-ledger"');
    await get("/docs/api-reference?interactive");
    const interactive = await get("/docs/api-reference?interactive");
    expect(interactive.headers.get("x-cache")).toBeNull();
    expect(await interactive.text()).toContain(text("en", "docs", "reference.loading"));

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route("**/assets/scalar-reference-*.js", (route) => route.abort());
    await page.goto(`${server.url}/docs/api-reference?interactive`);
    // A missing chunk reloads the page once (a deploy may have replaced it); the second failure is shown
    await expect
      .poll(
        () => page.evaluate(() => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).type),
        { timeout: 30_000 },
      )
      .toBe("reload");
    await page.getByText(text("en", "docs", "reference.failed")).waitFor({ timeout: 30_000 });
    expect(await page.getByRole("link", { name: text("en", "docs", "reference.interactive.back") }).count()).toBe(1);
    await context.close();
  });

  it("shows an untranslated page's absence as a 404, and fits a phone, the API reference too (Turkish)", async () => {
    expect((await fetch(`${server.url}/docs/nothing-here`)).status).toBe(404);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${server.url}/tr/docs/webhooks`);
    await hydrated(page);
    expect(await page.locator("h1").textContent()).toBe(titleOf("tr", "webhooks"));
    // Against the visible width: a phone widens its layout to fit what overflows, and innerWidth grows with it.
    const overflow = () =>
      page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.goto(`${server.url}/tr/docs/api-reference`);
    await hydrated(page);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await context.close();
  });
});
