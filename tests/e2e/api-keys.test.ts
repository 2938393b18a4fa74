import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { signedInContext } from "#tests/support/session.ts";

const LOCALE = "pt";
const t = (key: string) => text(LOCALE, "api", key);
const msg = (key: string) => text(LOCALE, "common", `msg.apiKeys.${key}`);

describe("API keys in Chromium", () => {
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

  const toast = (page: Page, message: string) =>
    expect.poll(() => page.locator(".ant-message-notice").allTextContents()).toContain(message);
  const call = (secret: string, path = "/api/v1/credits") =>
    fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${secret}` } });

  it("creates, copies, deactivates, activates and deletes a key, each with its message, and the API follows", async () => {
    const { context } = await signedInContext(browser, server, "developer@example.com", {
      viewport: { width: 1280, height: 900 },
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${server.url}/${LOCALE}/dashboard/api`);
    await hydrated(page, ".api-keys-page");
    expect(await page.locator("h1").textContent()).toBe(t("title"));
    expect(await page.locator(".api-keys-table").textContent()).toContain(t("table.empty"));
    expect(await page.getByTestId("quick-start").textContent()).toContain(t("quickStart.placeholder"));

    // Create: a named key; the secret is shown once, copied to the clipboard.
    await page.getByRole("button", { name: t("create.button") }).click();
    await page.getByLabel(t("create.name")).fill("Servidor de produção");
    await page.getByRole("button", { name: t("create.submit"), exact: true }).click();
    const secretBox = page.getByTestId("api-key-secret");
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^atl_[\w-]{43}$/);
    expect(await page.locator(".ant-modal").last().textContent()).toContain(t("created.warning"));
    await page.getByRole("button", { name: t("created.copy") }).click();
    await toast(page, msg("copied"));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new Error("denied"));
    });
    await page.getByRole("button", { name: t("created.copy") }).click();
    await toast(page, msg("copyFailed"));
    await page.getByRole("button", { name: t("created.done"), exact: true }).click();
    await secretBox.waitFor({ state: "hidden" });
    expect(await page.getByTestId("quick-start").textContent()).toContain(secret);
    const row = page.locator(".api-keys-table tr.ant-table-row").first();
    expect(await row.textContent()).toContain("Servidor de produção");
    expect(await row.textContent()).toContain(`${secret.slice(0, 12)}••••••••`);
    expect(await row.textContent()).not.toContain(secret.slice(12, 20));
    expect((await call(secret)).status).toBe(200);

    // Deactivate → refused at once; activate → accepted again.
    const toggle = page.getByRole("switch", {
      name: text(LOCALE, "api", "toggle").replace("{{name}}", "Servidor de produção"),
    });
    await toggle.click();
    await toast(page, msg("deactivated"));
    expect(await row.getByTestId("api-key-status").textContent()).toBe(t("status.inactive"));
    const refused = await call(secret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("api_key_inactive");
    await toggle.click();
    await toast(page, msg("activated"));
    expect((await call(secret)).status).toBe(200);

    // The page counts the requests.
    await page.reload();
    await hydrated(page, ".api-keys-page");
    const requests = page.locator(".api-keys-table tr.ant-table-row").first().locator("td").nth(5);
    expect(await requests.textContent()).toBe("2");

    // Failures say so, and change nothing.
    await page.route("**/api/keys/*", (route) =>
      route.request().method() === "GET" ? route.continue() : route.fulfill({ status: 500, body: "{}" }),
    );
    await page.route("**/api/keys", (route) => route.fulfill({ status: 500, body: "{}" }));
    await page.getByRole("switch").first().click();
    await toast(page, msg("updateFailed"));
    await toast(page, msg("fetchFailed"));
    await page.getByRole("button", { name: t("create.button") }).click();
    await page.getByRole("button", { name: t("create.submit"), exact: true }).click();
    await toast(page, msg("createFailed"));
    await page.getByRole("button", { name: t("create.cancel"), exact: true }).click();
    const deleteButton = page.getByRole("button", {
      name: text(LOCALE, "api", "delete.label").replace("{{name}}", "Servidor de produção"),
    });
    await deleteButton.click();
    await page
      .getByRole("button", { name: t("delete.confirm"), exact: true })
      .last()
      .click();
    await toast(page, msg("deleteFailed"));
    expect((await call(secret)).status).toBe(200);
    await page.unrouteAll();

    // Delete → gone from the list, refused by the API.
    await page.reload();
    await hydrated(page, ".api-keys-page");
    await deleteButton.click();
    await page
      .getByRole("button", { name: t("delete.confirm"), exact: true })
      .last()
      .click();
    await toast(page, msg("deleted"));
    await expect.poll(() => page.locator(".api-keys-table tr.ant-table-row").count()).toBe(0);
    const gone = await call(secret);
    expect(gone.status).toBe(401);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("fits a phone: an unnamed key, no horizontal scroll", async () => {
    const { context } = await signedInContext(browser, server, "phone-dev@example.com", {
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    const page = await context.newPage();
    await page.goto(`${server.url}/${LOCALE}/dashboard/api`);
    await hydrated(page, ".api-keys-page");
    await page.getByRole("button", { name: t("create.button") }).click();
    await page.getByRole("button", { name: t("create.submit"), exact: true }).click();
    await page.getByTestId("api-key-secret").waitFor();
    await page.getByRole("button", { name: t("created.done"), exact: true }).click();
    expect(await page.getByTestId("api-key-name").first().textContent()).toBe(t("unnamed"));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await context.close();
  });
});
