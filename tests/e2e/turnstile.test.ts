import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { startFakeTurnstile, TURNSTILE_TEST, type FakeTurnstile } from "#tests/fakes/turnstile.ts";

/**
 * Stands in for Cloudflare's widget script (no internet in tests): `render` adds the response field the real widget
 * adds, holding the token the dummy site keys emit, and records the options it was given.
 */
const FAKE_WIDGET = `
window.turnstile = {
  render(el, options) {
    window.__turnstileOptions = options;
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = "cf-turnstile-response";
    input.value = ${JSON.stringify(TURNSTILE_TEST.dummyToken)};
    el.appendChild(input);
    return "widget-1";
  },
  remove() {},
};`;

describe("the bot check in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let fake: FakeTurnstile;

  beforeAll(async () => {
    fake = await startFakeTurnstile();
    [server, browser] = await Promise.all([
      startServer({
        TURNSTILE_SITE_KEY: TURNSTILE_TEST.siteKeyPass,
        TURNSTILE_SECRET_KEY: TURNSTILE_TEST.secretPass,
        TURNSTILE_VERIFY_URL: fake.verifyUrl,
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fake?.close();
  });

  async function openWith(widget: string | null, path: string): Promise<Page> {
    const page = await browser.newPage();
    await page.route("https://challenges.cloudflare.com/turnstile/v0/api.js**", (route) =>
      widget === null ? route.abort() : route.fulfill({ status: 200, contentType: "text/javascript", body: widget }),
    );
    await page.goto(`${server.url}${path}`);
    return page;
  }

  it("loads the widget in the page's language and sends its token with the sign-up", async () => {
    const page = await openWith(FAKE_WIDGET, "/zh/auth/register");
    await page.locator(".turnstile input[name=cf-turnstile-response]").waitFor({ state: "attached" });
    expect(
      await page.evaluate(() => (window as unknown as { __turnstileOptions: unknown }).__turnstileOptions),
    ).toEqual({
      sitekey: TURNSTILE_TEST.siteKeyPass,
      language: "zh-cn",
      theme: "auto",
    });
    await page.fill("#field-name", "Mei");
    await page.fill("#field-email", "mei@example.com");
    await page.fill("#field-password", "lantern-Quiet-58!");
    await page.check("#field-terms");
    const before = fake.requests.length;
    await page.click("button[type=submit]");
    await page.locator(".ant-result-success").waitFor();
    expect(await page.locator(".ant-result-title").textContent()).toBe(text("zh", "auth", "register.checkInboxTitle"));
    expect(fake.requests.slice(before)).toEqual([
      { secret: TURNSTILE_TEST.secretPass, response: TURNSTILE_TEST.dummyToken, remoteip: "127.0.0.1" },
    ]);
    await page.close();
  });

  it("explains the refusal when the widget could not run", async () => {
    const page = await openWith(null, "/fr/auth/login");
    await hydrated(page, "form");
    await page.fill("#field-email", "someone@example.com");
    await page.fill("#field-password", "lantern-Quiet-58!");
    await page.click("button[type=submit]");
    await expect(page.locator("[role=alert]").textContent()).resolves.toBe(text("fr", "auth", "error.botCheck"));
    await page.close();
  });
});
