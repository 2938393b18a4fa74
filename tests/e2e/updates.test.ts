import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ROOT, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";

const running = JSON.parse(readFileSync(join(ROOT, "build/client/build.json"), "utf8")) as {
  id: string;
  timestamp: number;
};

describe("new versions and missing chunks in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(context: BrowserContext, path: string) {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}${path}`, { waitUntil: "networkidle" });
    await hydrated(page);
    return { page, errors };
  }

  const notices = (page: Page) => page.locator(".update-notice");

  it("registers the service worker at the root; a new build's worker brings one bottom-right notice that reloads", async () => {
    const context = await browser.newContext();
    const { page, errors } = await open(context, "/ja/");
    await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active?.state === "activated");
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    await expect(page.evaluate(async () => (await navigator.serviceWorker.ready).scope)).resolves.toBe(
      `${server.url}/`,
    );
    const [worker] = context.serviceWorkers();
    expect(worker).toBeDefined();

    // The worker of the running build announcing itself is no news.
    const announce = (build: string) =>
      worker!.evaluate(async (build) => {
        const scope = self as unknown as {
          clients: { matchAll(o: object): Promise<{ postMessage(m: unknown): void }[]> };
        };
        for (const client of await scope.clients.matchAll({ type: "window" })) {
          client.postMessage({ type: "UPDATE_AVAILABLE", build });
        }
      }, build);
    await announce(running.id);
    await page.waitForTimeout(300);
    await expect(notices(page).count()).resolves.toBe(0);

    await announce("next-build");
    await announce("next-build");
    const notice = notices(page);
    await notice.waitFor();
    await expect(notices(page).count()).resolves.toBe(1);
    await expect(notice.locator(".ant-notification-notice-title").innerText()).resolves.toBe(
      text("ja", "common", "msg.newVersion"),
    );
    await expect(page.locator(".ant-notification-bottomRight .update-notice").count()).resolves.toBe(1);
    // Persistent: still there after the notification's usual 4.5 s.
    await page.waitForTimeout(5000);
    await expect(notice.isVisible()).resolves.toBe(true);

    await page.evaluate(() => ((window as unknown as { beforeReload: boolean }).beforeReload = true));
    const reloaded = page.waitForEvent("load");
    await notice.getByRole("button", { name: text("ja", "common", "msg.refreshNow") }).click();
    await reloaded;
    await expect(page.evaluate(() => "beforeReload" in window)).resolves.toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("checks the build file hourly: another build offers New Version Available; a failed check stays silent", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.clock.install();
    let published: unknown = running;
    let fail = false;
    const requested: string[] = [];
    await page.route("**/build.json*", (route) => {
      requested.push(route.request().url());
      return fail ? route.fulfill({ status: 503, body: "down" }) : route.fulfill({ json: published });
    });
    await page.goto(`${server.url}/`, { waitUntil: "networkidle" });
    await page.waitForFunction(() => !!document.querySelector(".site-header"));
    await expect(page.evaluate(() => localStorage.getItem("app_version"))).resolves.toBe(String(running.timestamp));

    // Nothing new: no notice.
    await page.clock.runFor("01:00:01");
    await expect.poll(() => requested.length).toBe(1);
    expect(new URL(requested[0]!).searchParams.get("t")).toMatch(/^\d+$/);
    await expect(notices(page).count()).resolves.toBe(0);

    // The server is down for a while: logged, silent.
    fail = true;
    await page.clock.runFor("01:00:00");
    await expect.poll(() => requested.length).toBe(2);
    await expect(notices(page).count()).resolves.toBe(0);

    fail = false;
    published = { ...running, id: "next-build", timestamp: running.timestamp + 1000 };
    await page.clock.runFor("01:00:00");
    await notices(page).waitFor();
    await expect(notices(page).locator(".ant-notification-notice-title").innerText()).resolves.toBe(
      text("en", "common", "msg.newVersion"),
    );
    await page.clock.runFor("01:00:00");
    await expect.poll(() => requested.length).toBe(4);
    await expect(notices(page).count()).resolves.toBe(1);
    await context.close();
  });

  it("reloads once when a script chunk is missing", async () => {
    const context = await browser.newContext();
    const { page } = await open(context, "/docs");
    // What happened on the way, for the failure message should the reload not come.
    const seen: string[] = [];
    page.on("console", (m) => seen.push(`${m.type()}: ${m.text()}`));
    page.on("framenavigated", (f) => seen.push(`navigated: ${f.url()}`));
    // The interactive reference's code is loaded when someone asks for it.
    await page.route("**/assets/scalar-reference-*.js", (route) => {
      seen.push(`aborted: ${route.request().url()}`);
      return route.abort();
    });
    await page
      .locator(".docs-card")
      .filter({ hasText: text("en", "docs", "reference.title") })
      .click();
    await page.waitForURL(/\/docs\/api-reference$/);
    const reloaded = page.waitForEvent("load", { timeout: 30_000 }).catch(() => {
      throw new Error(`no reload; saw:\n${seen.join("\n")}`);
    });
    await page.getByRole("link", { name: text("en", "docs", "reference.interactive.open") }).click();
    await reloaded;
    const record = await page.evaluate(() => JSON.parse(sessionStorage.getItem("chunk_reload") ?? "{}") as object);
    expect(Object.keys(record)).toContain("/docs/api-reference");
    await context.close();
  });
});
