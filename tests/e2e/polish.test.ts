import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { signedInContext } from "#tests/support/session.ts";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

describe("the shell and its pages as a new user meets them", () => {
  let server: TestServer;
  let browser: Browser;
  let member: { desktop: BrowserContext; phone: BrowserContext };

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}` }),
      launchBrowser(),
    ]);
    const desktop = await signedInContext(browser, server, "newcomer@example.com", { viewport: DESKTOP });
    const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    await phone.addCookies(await desktop.context.cookies());
    member = { desktop: desktop.context, phone };
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page, hydrated, with every console error (hydration mismatches included) and page error collected. */
  async function open(
    context: BrowserContext,
    path: string,
    shell = ".site-header, .dash",
  ): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(`${server.url}${path}`, { waitUntil: "networkidle" });
    await hydrated(page, shell);
    return { page, problems };
  }

  it("has exactly one main region on every kind of page, at phone and desktop width", async () => {
    const anonymous = await browser.newContext({ viewport: PHONE });
    const pages: Array<[BrowserContext, string]> = [
      [anonymous, "/"],
      [anonymous, "/pricing"],
      [anonymous, "/auth/login"],
      [anonymous, "/auth/register"],
      [anonymous, "/blog"],
      [anonymous, "/docs"],
      [anonymous, "/no/such/page"],
      [member.desktop, "/user/profile"],
      [member.desktop, "/user/orders"],
      [member.desktop, "/user/admin"],
      [member.phone, "/dashboard/home"],
      [member.phone, "/dashboard/api"],
      [member.desktop, "/dashboard/image/create/text-to-image"],
    ];
    for (const [context, path] of pages) {
      const page = await context.newPage();
      await page.goto(`${server.url}${path}`);
      await expect(page.locator("main").count(), path).resolves.toBe(1);
      await page.close();
    }
    await anonymous.close();
  });

  it("offers back-to-top on dashboard pages once scrolled down", async () => {
    for (const context of [member.desktop, member.phone]) {
      const { page, problems } = await open(context, "/de/dashboard/image/create/text-to-image");
      // Room to scroll, as a long gallery would make.
      await page.evaluate(() => {
        const filler = document.createElement("div");
        filler.style.height = "3000px";
        document.querySelector("#content")!.append(filler);
      });
      const button = page.getByRole("button", { name: text("de", "common", "nav.backToTop") });
      await expect(button.count()).resolves.toBe(0);
      await page.evaluate(() => window.scrollTo(0, 1200));
      await button.waitFor();
      await button.click();
      await page.waitForFunction(() => window.scrollY === 0);
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it("hydrates the profile without a mismatch, however long ago the session was active", async () => {
    const { page, problems } = await open(member.desktop, "/fr/user/profile");
    await page.locator(".profile").waitFor();
    expect(problems.filter((p) => /hydrat|did not match|#418|#423|#425/i.test(p))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("does not ask to sign in to buy when nothing can be bought here", async () => {
    const anonymous = await browser.newContext({ viewport: DESKTOP });
    const { page } = await open(anonymous, "/ru/pricing");
    await page.getByText(text("ru", "billing", "pricing.notConfigured")).waitFor();
    await expect(page.getByText(text("ru", "billing", "pricing.signInToBuy")).count()).resolves.toBe(0);
    const buy = page.locator(".pricing-pack button");
    await expect(buy.count()).resolves.toBeGreaterThan(0);
    for (const button of await buy.all()) await expect(button.isDisabled()).resolves.toBe(true);
    await anonymous.close();
  });
});
