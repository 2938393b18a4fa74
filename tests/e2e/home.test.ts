import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { nextMail } from "#tests/support/outbox.ts";
import { PASSWORD, signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

describe("the home page in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("is fully styled by the server's HTML alone, with JavaScript disabled", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const res = await page.goto(`${server.url}/`);
    expect(res?.status()).toBe(200);
    await expect(page.title()).resolves.toBe("Atelier — AI image and video studio");
    await expect(page.locator("h1").innerText()).resolves.toBe("Turn ideas into images and videos");
    // Only Ant Design's CSS-in-JS styles give a card its white surface and padded body, and an icon inline-flex.
    const looks = await page.evaluate(() => {
      const card = document.querySelector(".ant-card")!;
      const body = document.querySelector(".ant-card-body")!;
      const icon = document.querySelector(".home-feature-icon .anticon")!;
      return {
        cards: document.querySelectorAll(".ant-card").length,
        cardBackground: getComputedStyle(card).backgroundColor,
        bodyPadding: getComputedStyle(body).paddingTop,
        iconDisplay: getComputedStyle(icon).display,
        scripts: document.querySelectorAll("script").length,
      };
    });
    expect(looks.cards).toBe(6);
    expect(looks.cardBackground).toBe("rgb(255, 255, 255)");
    expect(looks.bodyPadding).not.toBe("0px");
    expect(looks.iconDisplay).toBe("inline-flex");
    expect(looks.scripts).toBeGreaterThan(0); // present, but never run in this context
    await context.close();
  });

  it("hydrates without a console error, a page error or a failed request, rendered or from the page cache", async () => {
    const seen: (string | undefined)[] = [];
    // The first visit renders the page; the cache fills right after, so a later visit gets the stored copy.
    for (let visit = 0; visit < 5 && !seen.includes("hit"); visit++) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
      });
      page.on("requestfailed", (r) => problems.push(`failed ${r.url()}`));
      const res = await page.goto(`${server.url}/`, { waitUntil: "networkidle" });
      seen.push(res?.headers()["x-cache"]);
      // React marks every element it has hydrated with its fiber; the heading has one once hydration is done.
      await hydrated(page, "h1");
      expect(problems).toEqual([]);
      await context.close();
      if (!seen.includes("hit")) await new Promise((r) => setTimeout(r, 200));
    }
    expect(seen).toContain("hit");
  });

  it("offers sign-up to visitors only: a signed-in visitor gets their balance and the way to the studio", async () => {
    const signUpOffers = (locale: string) => [
      text(locale, "home", "cta.button"),
      text(locale, "home", "prompt.note").split("{{credits}}")[1]!.trim(),
    ];
    const { context: signed } = await signedInContext(browser, server, "returning@example.com");
    const anonymous = await browser.newContext();
    for (const locale of ["en", "de"]) {
      const path = locale === "en" ? "/" : `/${locale}/`;
      // Signed out (rendered, then again from the page cache): the offer is there.
      for (let visit = 0; visit < 2; visit++) {
        const page = await anonymous.newPage();
        await page.goto(`${server.url}${path}`);
        const body = await page.locator("main").innerText();
        for (const offer of signUpOffers(locale)) expect(body).toContain(offer);
        await page.close();
      }
      // Signed in: none of it, their balance and their studio instead, and it hydrates as rendered.
      const page = await signed.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${server.url}${path}`);
      await hydrated(page, "h1");
      const body = await page.locator("main").innerText();
      for (const offer of signUpOffers(locale)) expect(body).not.toContain(offer);
      await expect(page.getByTestId("home-balance").innerText()).resolves.toContain(text(locale, "home", "member.buy"));
      const studio = page.getByRole("link", { name: text(locale, "home", "member.studio") });
      await expect(studio.getAttribute("href")).resolves.toMatch(/\/dashboard\/image\/create\/text-to-image$/);
      expect(errors).toEqual([]);
      await page.close();
    }
    await signed.close();
    await anonymous.close();
  });

  it("carries a prompt typed before the scripts arrive through sign-up to a finished image", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const prompt = "A paper boat on a rain puddle, macro photograph";
    // Typed and sent at once, without waiting for hydration: the prompt box is a plain form.
    await page.goto(`${server.url}/de/`, { waitUntil: "commit" });
    await page.fill("#home-prompt", prompt);
    await page.click(".home-prompt button[type=submit]");
    // Signed out, the studio sends the visitor to sign in, to come back with the prompt.
    await page.waitForURL(/\/de\/auth\/login\?redirect=/);
    const back = new URL(page.url()).searchParams.get("redirect")!;
    expect(back).toBe(
      `/de/dashboard/image/create/text-to-image?prompt=${encodeURIComponent(prompt).replace(/%20/g, "+")}`,
    );
    await hydrated(page, "form");
    await page.click(`a:has-text("${text("de", "auth", "login.createAccount")}")`);
    await page.waitForURL(/\/de\/auth\/register\?redirect=/);
    await hydrated(page, "form");
    await page.fill("#field-name", "Lena");
    await page.fill("#field-email", "lena@example.com");
    await page.fill("#field-password", PASSWORD);
    await page.check("#field-terms");
    await page.click("button[type=submit]");
    await page.locator(".ant-result-success").waitFor();
    // The confirmation link signs the new account in and lands in the studio, the prompt filled in.
    const mail = await nextMail(server.dataDir, "lena@example.com", (m) => m.link.includes("verify="));
    // The link names the configured site address; this server listens elsewhere.
    await page.goto(mail.link.replace(/^https?:\/\/[^/]+/, server.url));
    await page.waitForURL(/\/de\/dashboard\/image\/create\/text-to-image\?prompt=/);
    await hydrated(page, "#studio-prompt");
    await expect(page.locator("#studio-prompt").inputValue()).resolves.toBe(prompt);
    await page.focus("#studio-prompt");
    await page.keyboard.press("Control+Enter");
    const card = page.locator(".gen-card").first();
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 60_000 });
    await expect(card.locator(".gen-media img").count()).resolves.toBe(1);
    await context.close();
  });
});
