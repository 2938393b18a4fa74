import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";

const t = (key: string) => text("en", "common", key);

describe("the full-screen error page in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ TEST_ROUTES: "1" }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(path: string, status: number) {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().includes(`status of ${status}`)) problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    const res = await page.goto(`${server.url}${path}`, { waitUntil: "networkidle" });
    expect(res?.status()).toBe(status);
    // Hydrated: React has attached itself to the page's buttons.
    await hydrated(page, ".error-page .ant-btn");
    return { page, problems };
  }

  const buttons = (page: Page) => page.locator(".error-page .ant-result-extra .ant-btn").allInnerTexts();

  const cases = [
    { status: 400, illustration: "error", subtitle: "error.400subtitle", message: "error.400" },
    { status: 401, illustration: "error", subtitle: "error.401" },
    { status: 403, illustration: "403", subtitle: "error.403" },
    { status: 404, illustration: "404", subtitle: "error.404" },
    { status: 500, illustration: "error", subtitle: "error.500" },
    { status: 503, illustration: "error", subtitle: "error.unknown" },
  ];

  for (const { status, illustration, subtitle, message } of cases) {
    it(`${status}: the code as title, its subtitle and illustration, and the right buttons`, async () => {
      const { page, problems } = await open(`/__test/error/${status}`, status);
      await expect(page.title()).resolves.toContain(String(status));
      await expect(page.locator(".ant-result-title").innerText()).resolves.toBe(String(status));
      await expect(page.locator(".ant-result-subtitle").innerText()).resolves.toBe(t(subtitle));
      await expect(
        page
          .locator(`.ant-result-${illustration} .ant-result-image, .ant-result-${illustration} .ant-result-icon`)
          .count(),
      ).resolves.toBe(1);
      if (message) await expect(page.locator(".error-page-message").innerText()).resolves.toBe(t(message));
      // It replaces the whole app: no header, no footer.
      await expect(page.locator(".site-header, .site-footer").count()).resolves.toBe(0);
      const expected = [
        ...(status === 401 ? [t("action.signIn")] : []),
        t("action.backHome"),
        ...(status >= 500 ? [t("action.retry")] : []),
      ];
      await expect(buttons(page)).resolves.toEqual(expected);
      if (status === 401) {
        await expect(page.getByRole("link", { name: t("action.signIn") }).getAttribute("href")).resolves.toBe(
          `/auth/login?redirect=${encodeURIComponent(`/__test/error/401`)}`,
        );
      }
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  it("an unexpected error is a 500 that shows the unknown-error text and never its internals; Retry reloads", async () => {
    const { page, problems } = await open("/__test/error/crash", 500);
    await expect(page.locator(".ant-result-title").innerText()).resolves.toBe("500");
    await expect(page.locator(".ant-result-subtitle").innerText()).resolves.toBe(t("error.500"));
    await expect(page.locator(".error-page-message").innerText()).resolves.toBe(t("error.unknown"));
    const html = await page.content();
    expect(html).not.toContain("internal detail");
    expect(html).not.toContain("postgres://");

    await page.evaluate(() => ((window as unknown as { beforeRetry: boolean }).beforeRetry = true));
    const reloaded = page.waitForEvent("load");
    await page.getByRole("button", { name: t("action.retry") }).click();
    await reloaded;
    await expect(page.evaluate(() => "beforeRetry" in window)).resolves.toBe(false);
    await expect(page.locator(".ant-result-title").innerText()).resolves.toBe("500");

    await page.getByRole("link", { name: t("action.backHome") }).click();
    await page.waitForURL(`${server.url}/`);
    await expect(page.locator(".site-header").count()).resolves.toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });
});
