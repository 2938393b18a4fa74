import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { freePort, ROOT, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";

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
    const cards = page.locator(".docs-card");
    expect(await cards.count()).toBe(3);

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

    // The guide's link to the reference keeps the language; the reference draws every operation
    await page.locator(".docs-prose a[href='/es/docs/api-reference']").first().click();
    await page.waitForURL(`${server.url}/es/docs/api-reference`);
    await expect.poll(() => page.locator("h1").first().textContent()).toBe(text("es", "docs", "reference.title"));
    await page.getByText("Create an image generation").first().waitFor({ timeout: 30_000 });
    expect(await page.getByText("Create a video generation").count()).toBeGreaterThan(0);
    expect(await page.getByText("generation.succeeded").count()).toBeGreaterThan(0);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows an untranslated page's absence as a 404, and fits a phone (Turkish)", async () => {
    expect((await fetch(`${server.url}/docs/nothing-here`)).status).toBe(404);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${server.url}/tr/docs/webhooks`);
    await hydrated(page);
    expect(await page.locator("h1").textContent()).toBe(titleOf("tr", "webhooks"));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await context.close();
  });
});
