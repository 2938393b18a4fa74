import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts, typeWhileHydrating } from "#tests/support/browser.ts";
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

  it("lays the dashboard out without blank scroll or sideways scroll, in Russian on a phone", async () => {
    for (const context of [member.phone, member.desktop]) {
      const { page } = await open(context, "/ru/dashboard/home");
      const layout = await page.evaluate(() => {
        const page = document.querySelector(".dash-page")!;
        return {
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
          scrollHeight: document.documentElement.scrollHeight,
          viewportHeight: window.innerHeight,
          contentBottom: page.getBoundingClientRect().bottom + window.scrollY,
        };
      });
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
      // Nothing below the page's content but the layout's own padding (a short page fills the screen).
      expect(layout.scrollHeight).toBeLessThanOrEqual(Math.max(layout.viewportHeight, layout.contentBottom + 80));
      await page.close();
    }
  });

  it("shows every column of a table on a phone, as cards, in Russian, Turkish and German", async () => {
    const created = await fetch(`${server.url}/api/keys`, {
      method: "POST",
      headers: {
        Cookie: (await member.desktop.cookies()).map((c) => `${c.name}=${c.value}`).join("; "),
        Origin: server.url,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ name: "Телефон" }),
    });
    expect(created.status).toBe(201);
    const inView = async (page: Page, selector: string) => {
      const cells = await page.locator(selector).all();
      expect(cells.length, selector).toBeGreaterThan(0);
      for (const cell of cells) {
        const box = (await cell.boundingBox())!;
        expect(box.x, selector).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, selector).toBeLessThanOrEqual(PHONE.width + 0.5);
      }
    };
    const keys = await open(member.phone, "/ru/dashboard/api", ".dash");
    await keys.page.locator(".api-keys-table tbody tr[data-row-key]").waitFor();
    await inView(keys.page, ".api-keys-table tbody tr[data-row-key] td");
    await keys.page.close();
    for (const locale of ["ru", "tr", "de"]) {
      const orders = await open(member.phone, `/${locale}/user/orders`);
      await inView(orders.page, "section[aria-labelledby=history-heading] tbody tr.ant-table-row td");
      await orders.page.close();
      const pricing = await open(member.phone, `/${locale}/pricing`);
      await inView(pricing.page, ".pricing-table tbody td, .pricing-table tbody th");
      await pricing.page.close();
    }
  });

  it("keeps the studio's texts apart and whole, and says keyboard shortcuts only where there is a keyboard", async () => {
    const overlap = (a: DOMRect, b: DOMRect) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    for (const context of [member.phone, member.desktop]) {
      const { page } = await open(context, "/ja/dashboard/video", ".dash");
      await expect(page.locator(".studio-keys").isVisible()).resolves.toBe(context === member.desktop);
      await page.click(".studio-submit");
      const error = page.locator(".studio-field-error");
      await error.waitFor();
      const [count, message] = await Promise.all([
        page.locator(".ant-input-data-count").evaluate((el) => el.getBoundingClientRect().toJSON() as DOMRect),
        error.evaluate((el) => el.getBoundingClientRect().toJSON() as DOMRect),
      ]);
      expect(overlap(count, message)).toBe(false);
      // Each style's name on one line: no lone "ー" (ドキュメンタリー) on a line of its own.
      const lines = await page
        .locator(".video-style-name")
        .evaluateAll((names) =>
          names.map((n) => Math.round(n.getBoundingClientRect().height / parseFloat(getComputedStyle(n).lineHeight))),
        );
      expect(lines.every((n) => n === 1)).toBe(true);
      await page.close();
    }
  });

  it("draws opaque headers, and a phone's menu without the sidebar's border", async () => {
    const { page } = await open(member.phone, "/dashboard/home", ".dash");
    const alpha = (selector: string) =>
      page.locator(selector).evaluate((el) => {
        const color = getComputedStyle(el).backgroundColor;
        const parts = color.match(/[\d.]+/g)!.map(Number);
        return parts.length === 4 ? parts[3] : 1;
      });
    await expect(alpha(".dash-header")).resolves.toBe(1);
    await page.click(".dash-menu-button");
    const menu = page.locator(".dash-drawer .dash-menu");
    await menu.waitFor();
    await expect(menu.evaluate((el) => getComputedStyle(el).borderInlineEndWidth)).resolves.toBe("0px");
    await page.close();
    const anonymous = await browser.newContext({ viewport: PHONE });
    const site = await open(anonymous, "/");
    await expect(
      site.page.locator(".site-header").evaluate((el) => getComputedStyle(el).backgroundColor),
    ).resolves.toMatch(/^rgb\(/);
    await anonymous.close();
  });

  const beforeScripts = (context: BrowserContext, path: string) => openBeforeScripts(context, `${server.url}${path}`);

  it("keeps what is typed, chosen and submitted in a studio before its scripts run", async () => {
    const { page, release } = await beforeScripts(member.desktop, "/de/dashboard/image/create/text-to-image");
    await page.fill("#studio-prompt", "Ein Leuchtturm im Nebel");
    await page.locator(".ant-segmented-item", { hasText: "16:9" }).click();
    await page.locator(".ant-segmented-item", { hasText: /^2$/ }).click();
    await page.click(".studio-submit");
    release();
    // Held back, then sent once the page runs: no reload, the choices kept, the job made as asked.
    const card = page.locator(".gen-card").first();
    await card.waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).search).not.toContain("prompt=");
    await expect(page.inputValue("#studio-prompt")).resolves.toBe("Ein Leuchtturm im Nebel");
    // (Polled: Ant Design marks no item selected while its thumb slides to the new one.)
    await expect
      .poll(() => page.locator(".studio-form .ant-segmented-item-selected").allTextContents())
      .toEqual(["16:9", "2"]);
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 60_000 });
    // Two images: the first shown, "+1" for the other.
    await expect(card.getByTestId("gen-media-more").locator("[aria-hidden]").textContent()).resolves.toBe("+1");
    await page.close();

    const video = await beforeScripts(member.desktop, "/de/dashboard/video");
    await video.page.locator(".video-style", { hasText: text("de", "studio", "styles.documentary.name") }).click();
    await video.page.locator(".ant-segmented-item", { hasText: /^10/ }).click();
    video.release();
    await hydrated(video.page, ".studio-form");
    await expect
      .poll(() => video.page.locator(".video-style.is-selected").textContent())
      .toContain(text("de", "studio", "styles.documentary.name"));
    await expect
      .poll(() => video.page.locator(".studio-form .ant-segmented-item-selected").first().textContent())
      .toMatch(/^10/);
    await video.page.close();
  });

  it("answers clicks on the menus and buttons made before the scripts ran, once they run", async () => {
    // The phone's menu.
    const menu = await beforeScripts(member.phone, "/dashboard/home");
    await menu.page.click(".dash-menu-button");
    menu.release();
    await menu.page.locator(".ant-drawer-open .dash-menu").waitFor();
    await menu.page.close();
    // The language list.
    const languages = await beforeScripts(member.desktop, "/fr/dashboard/home");
    await languages.page.getByTestId("language-switcher").first().click();
    languages.release();
    await languages.page.getByRole("menuitem", { name: "Deutsch" }).waitFor();
    await languages.page.close();
    // "Create API key".
    const keys = await beforeScripts(member.desktop, "/dashboard/api");
    await keys.page.getByRole("button", { name: text("en", "api", "create.button") }).click();
    keys.release();
    await keys.page
      .getByRole("dialog")
      .getByText(text("en", "api", "create.title"))
      .waitFor();
    await keys.page.close();
    // A redemption code typed early is still there once the page runs.
    const orders = await beforeScripts(member.desktop, "/user/orders");
    await orders.page.fill("#redeem-code", "ATL-1234-5678-9ABC");
    orders.release();
    await hydrated(orders.page, ".orders-redeem");
    await expect.poll(() => orders.page.inputValue("#redeem-code"), { timeout: 5000 }).toBe("ATL-1234-5678-9ABC");
    await orders.page.close();
  });

  it("keeps a redemption code typed while the page hydrates, through the form's answer", async () => {
    const code = "ATL-2468-1357-ACEF";
    const page = await typeWhileHydrating(member.desktop, `${server.url}/ja/user/orders`, "#redeem-code", code);
    await page.waitForFunction(() => document.documentElement.hasAttribute("data-hydrated"));
    await hydrated(page, ".orders-redeem");
    // The field's component took the code as its own: React renders it back as the field's value attribute.
    await page.waitForFunction(
      (typed) => document.querySelector<HTMLInputElement>("#redeem-code")?.defaultValue === typed,
      code,
    );
    // Sent as typed; the answer (no such code) renders the form again, and the code is still there.
    const sent = page.waitForRequest((r) => r.method() === "POST" && (r.postData() ?? "").includes(code));
    await page.locator(".orders-redeem button[type=submit]").click();
    await sent;
    await page.locator(".ant-message-notice-error").waitFor();
    await expect(page.inputValue("#redeem-code")).resolves.toBe(code);
    await page.close();
  });

  it("fits a narrow phone in every language, signed out and signed in", async () => {
    const narrow = { viewport: { width: 360, height: 740 }, isMobile: true };
    const anonymous = await browser.newContext(narrow);
    const signed = await browser.newContext(narrow);
    await signed.addCookies(await member.desktop.cookies());
    for (const locale of ["en", "zh", "ru", "de", "fr", "ja", "ko", "es", "pt", "tr"]) {
      for (const [context, path] of [
        [anonymous, `/${locale}/`],
        [anonymous, `/${locale}/docs/api-reference`],
        [signed, `/${locale}/dashboard/home`],
      ] as const) {
        const page = await context.newPage();
        await page.goto(`${server.url}${path}`);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, path).toBeLessThanOrEqual(0);
        await page.close();
      }
    }
    await anonymous.close();
    await signed.close();
  });
});
