import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";

describe("the app shell in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page that records every console error, page error and failed request except the listed statuses. */
  async function open(context: BrowserContext, path: string, expectedStatus = 200) {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().includes(`status of ${expectedStatus}`)) problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    const res = await page.goto(`${server.url}${path}`, { waitUntil: "networkidle" });
    expect(res?.status()).toBe(expectedStatus);
    await hydrated(page);
    return { page, problems };
  }

  it("switches language: same page under the new prefix, cookie set, toast in the new language", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, problems } = await open(context, "/");
    await page.getByTestId("language-switcher").first().click();
    await page.getByRole("menuitem", { name: "Deutsch" }).click();
    await page.waitForURL(`${server.url}/de/`);
    const toast = page.locator(".ant-message-notice", { hasText: text("de", "common", "language.changed") });
    await toast.waitFor();
    await expect(page.locator("html").getAttribute("lang")).resolves.toBe("de");
    await expect(page.locator("h1").innerText()).resolves.toBe(text("de", "home", "title"));
    const cookie = (await context.cookies()).find((c) => c.name === "locale");
    expect(cookie).toMatchObject({ value: "de", path: "/", sameSite: "Lax" });
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(364 * 24 * 3600 * 1000);
    // Toasts sit 8 px from the top and close when clicked.
    await page.waitForFunction(
      () => document.querySelector(".ant-message-notice")?.getBoundingClientRect().top === 8,
      undefined,
      { timeout: 5000 },
    );
    await toast.click();
    await toast.waitFor({ state: "detached" });

    // Back at the bare root, the stored choice wins.
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe("/de/");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a missing page inside the site, in the prefix's language, with the path", async () => {
    const context = await browser.newContext();
    const { page, problems } = await open(context, "/ja/missing/page", 404);
    await expect(page.locator(".ant-result-title").innerText()).resolves.toBe(text("ja", "common", "msg.pageNotFound"));
    await expect(page.locator(".not-found-path").innerText()).resolves.toBe("/ja/missing/page");
    await expect(page.locator(".site-footer").isVisible()).resolves.toBe(true);
    await page.getByRole("button", { name: text("ja", "common", "action.backHome") }).click();
    await page.waitForURL(`${server.url}/ja/`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("on a phone: navigation in a drawer with Ant Design's texts in the page's language, and back-to-top", async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const { page, problems } = await open(context, "/de/");
    await expect(page.locator(".site-nav").isVisible()).resolves.toBe(false);
    await page.getByRole("button", { name: text("de", "common", "nav.menu") }).click();
    const drawer = page.locator(".ant-drawer-open .site-drawer");
    await drawer.waitFor();
    await expect(drawer.getByRole("button", { name: "Schließen" }).count()).resolves.toBe(1);
    await drawer.getByRole("button", { name: "Schließen" }).click();
    await drawer.waitFor({ state: "hidden" });

    const backTop = page.locator(".ant-float-btn");
    const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.evaluate(() => window.scrollTo(0, 300));
    await settle();
    await expect(backTop.count()).resolves.toBe(0);
    await page.evaluate(() => window.scrollTo(0, 450));
    await backTop.waitFor();
    await backTop.click();
    await page.waitForFunction(() => window.scrollY === 0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("remembers the chosen theme across pages", async () => {
    const context = await browser.newContext({ colorScheme: "light" });
    const { page, problems } = await open(context, "/fr/");
    await expect(page.locator("html").getAttribute("data-theme")).resolves.toBe("light");
    await page.locator(".site-footer .ant-segmented-item").nth(2).click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe("rgb(247, 247, 251)");
    await page.reload();
    await expect(page.locator("html").getAttribute("data-theme")).resolves.toBe("dark");
    expect(problems).toEqual([]);
    await context.close();
  });
});
