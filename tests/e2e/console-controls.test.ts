import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { signedInContext } from "#tests/support/session.ts";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

describe("the console's controls, tables and tabs on a phone, and Japanese line breaks", () => {
  let server: TestServer;
  let browser: Browser;
  let desktop: BrowserContext;
  let phone: BrowserContext;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}`, ADMIN_EMAILS: "chief@example.com" }),
      launchBrowser(),
    ]);
    desktop = (await signedInContext(browser, server, "chief@example.com", { viewport: DESKTOP })).context;
    phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    await phone.addCookies(await desktop.cookies());
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(context: BrowserContext, path: string, shell = "main"): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${server.url}${path}`, { waitUntil: "networkidle" });
    await hydrated(page, shell);
    return page;
  }

  /** Each element's box lies within the phone's screen: nothing is pushed or cut off at its right edge. */
  async function withinScreen(page: Page, selector: string) {
    const boxes = await page
      .locator(selector)
      .evaluateAll((els) =>
        els.map((el) => ({ ...el.getBoundingClientRect().toJSON(), clipped: el.scrollWidth > el.clientWidth + 1 })),
      );
    expect(boxes.length, selector).toBeGreaterThan(0);
    for (const box of boxes as Array<{ x: number; width: number; clipped: boolean }>) {
      expect(box.x, selector).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, selector).toBeLessThanOrEqual(PHONE.width + 0.5);
      expect(box.clipped, selector).toBe(false);
    }
  }

  it("filters the audit log with Ant Design's select and calendars in German, and a filter applies at once", async () => {
    const page = await open(desktop, "/de/user/admin/audit", ".admin-filters");
    const filters = page.locator(".admin-filters");
    await filters.locator(".ant-select").waitFor();
    await expect(filters.locator("select").count()).resolves.toBe(0);
    await expect(filters.locator("input[type=date]").count()).resolves.toBe(0);
    await expect(filters.locator(".ant-picker").count()).resolves.toBe(2);
    // Drawn by Ant Design's stylesheet: the picker's frame around a borderless field.
    const frame = await filters
      .locator(".ant-picker")
      .first()
      .evaluate((picker) => ({
        outer: getComputedStyle(picker).borderTopStyle,
        inner: getComputedStyle(picker.querySelector("input")!).borderTopStyle,
      }));
    expect(frame).toEqual({ outer: "solid", inner: "none" });

    // The area list: choosing applies at once.
    await filters.locator(".ant-select").click();
    await page.locator(".ant-select-item-option", { hasText: text("de", "admin", "audit.areas.codes") }).click();
    await page.waitForURL(/[?&]area=codes(&|$)/);
    await expect(filters.locator(".ant-select").textContent()).resolves.toBe(text("de", "admin", "audit.areas.codes"));

    // The first day: a calendar in German (its weekdays), and a day typed in applies at once.
    await page.click("#filter-from");
    await expect
      .poll(() => page.locator(".ant-picker-dropdown:visible .ant-picker-content thead th").allTextContents())
      .toEqual(expect.arrayContaining(["Mo", "Di", "Mi"]));
    await page.fill("#filter-from", "2026-01-02");
    await page.keyboard.press("Enter");
    await page.waitForURL(/[?&]from=2026-01-02(&|$)/);
    expect(new URL(page.url()).searchParams.get("area")).toBe("codes");
    await expect(page.locator("#filter-from").inputValue()).resolves.toBe("2026-01-02");
    await page.close();
  });

  it("keeps a filter chosen before the scripts arrive, in the browser's own list, once Ant Design's takes its place", async () => {
    const early = await openBeforeScripts(desktop, `${server.url}/user/admin/audit`);
    await early.page.selectOption("select[name=area]", "orders");
    await early.page.fill("input[type=date][name=to]", "2026-03-04");
    early.release();
    await hydrated(early.page, ".admin-filters");
    const select = early.page.locator(".admin-filters .ant-select");
    await select.waitFor();
    await expect(select.textContent()).resolves.toBe(text("en", "admin", "audit.areas.orders"));
    await expect(early.page.locator("#filter-to").inputValue()).resolves.toBe("2026-03-04");
    await early.page.click(".admin-filters button[type=submit]");
    await early.page.waitForURL(/area=orders/);
    const params = new URL(early.page.url()).searchParams;
    expect(params.get("area")).toBe("orders");
    expect(params.get("to")).toBe("2026-03-04");
    await early.page.close();
  });

  it("says there were no payments in the quiet size of an empty list, not as a headline", async () => {
    const page = await open(desktop, "/user/admin", ".overview-figures");
    const sizes = await page.locator("[data-testid=overview-revenue]").evaluate((figure) => {
      const value = figure.querySelector(".overview-figure-value")!;
      const label = figure.querySelector(".overview-figure-label")!;
      const words = value.firstElementChild ?? value;
      return {
        text: value.textContent,
        value: parseFloat(getComputedStyle(words).fontSize),
        label: parseFloat(getComputedStyle(label).fontSize),
        weight: Number(getComputedStyle(words).fontWeight),
      };
    });
    expect(sizes.text).toBe(text("en", "admin", "overview.noRevenue"));
    expect(sizes.value).toBeLessThanOrEqual(14);
    expect(sizes.value).toBeGreaterThanOrEqual(sizes.label);
    expect(sizes.weight).toBeLessThan(600);
    await page.close();
  });

  it("creates codes that expire on a day picked in Japanese, offered as a download with room and an icon", async () => {
    const page = await open(desktop, "/ja/user/admin/codes", ".admin-codes-form");
    await expect(page.locator(".admin-codes-form input[type=date]").count()).resolves.toBe(0);
    await page.fill("input[name=name]", "Picked day");
    await page.fill("input[name=credits]", "5");
    await page.click("#codes-expires");
    await expect
      .poll(() => page.locator(".ant-picker-dropdown:visible .ant-picker-content thead th").allTextContents())
      .toEqual(expect.arrayContaining(["月", "火", "水"]));
    await page.fill("#codes-expires", "2099-12-31");
    await page.keyboard.press("Enter");
    await expect(page.locator(".admin-codes-form input[type=hidden][name=expires]").inputValue()).resolves.toBe(
      "2099-12-31",
    );
    await page.getByRole("button", { name: text("ja", "admin", "codes.submit") }).click();
    const download = page.getByRole("link", { name: text("ja", "admin", "codes.download") });
    await download.waitFor();
    const csv = decodeURIComponent((await download.getAttribute("href"))!);
    expect(csv).toContain(`"Picked day",5,1,2099-12-31`);
    const look = await download.evaluate((a) => ({
      classes: a.className,
      icon: a.querySelector("svg") !== null,
      padding: parseFloat(getComputedStyle(a).paddingInlineStart),
    }));
    expect(look.classes).not.toContain("ant-btn-primary");
    expect(look.icon).toBe(true);
    expect(look.padding).toBeGreaterThanOrEqual(12);
    await page.close();
  });

  it("shows every console section whole on a phone, in German", async () => {
    const page = await open(phone, "/de/user/admin/orders", ".admin-nav");
    await expect(page.locator(".admin-nav").evaluate((nav) => nav.scrollWidth <= nav.clientWidth)).resolves.toBe(true);
    await withinScreen(page, ".admin-nav-link");
    await expect(page.locator(".admin-nav-link.active").textContent()).resolves.toBe(text("de", "admin", "nav.orders"));
    await page.close();
  });

  it("shows the status page's every column on a phone, as cards, in German", async () => {
    const page = await open(phone, "/de/test", ".site-header");
    await withinScreen(page, ".status-table tbody td, .status-table tbody th");
    // Each value says which column it is.
    await expect(page.locator(".status-table tbody td").first().getAttribute("data-label")).resolves.toBe(
      text("de", "status", "models.state"),
    );
    await page.close();
  });

  it("shows an empty list of webhook deliveries whole on a phone, in German", async () => {
    const page = await open(phone, "/de/dashboard/api", ".dash");
    const empty = page.getByText(text("de", "api", "webhooks.deliveries.empty"));
    await empty.waitFor();
    await withinScreen(page, ".webhook-deliveries .ant-table-placeholder .ant-table-cell > *");
    await page.close();
  });

  it("breaks Japanese text between phrases, not inside words, on the video studio's style cards", async () => {
    const page = await open(desktop, "/ja/dashboard/video", ".dash");
    const hints = page.locator(".video-style-hint");
    await expect(hints.first().evaluate((el) => getComputedStyle(el).wordBreak)).resolves.toBe("auto-phrase");
    // The line each character sits on, for the words that broke before ("観|察的", "劇的|な光").
    const split = await hints.evaluateAll((els) => {
      const broken: string[] = [];
      for (const el of els) {
        const node = el.firstChild!;
        const content = node.textContent ?? "";
        for (const word of ["観察的", "劇的", "色調補正", "手持ち"]) {
          const at = content.indexOf(word);
          if (at < 0) continue;
          const tops = new Set<number>();
          for (let i = at; i < at + word.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            tops.add(Math.round(range.getBoundingClientRect().top));
          }
          if (tops.size > 1) broken.push(word);
        }
      }
      return broken;
    });
    expect(split).toEqual([]);
    await page.close();
  });
});
