import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, settled } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { signedInContext } from "#tests/support/session.ts";

const LOCALE = "pt";
const t = (key: string) => text(LOCALE, "api", key);
const msg = (key: string) => text(LOCALE, "messages", `msg.apiKeys.${key}`);

describe("API keys in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  // A webhook receiver on this machine (the server allows private networks): `/ok` accepts, `/down` fails
  let receiver: http.Server;
  let receiverUrl: string;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(req.url === "/ok" ? 204 : 500).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "on",
        WEBHOOK_RETRY_DELAY_SECONDS: "1",
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((r) => receiver?.close(r));
  });

  // A toast stays three seconds and its call may take a moment on a loaded machine: the page itself watches for it
  // (reading the notices from the test between polls could miss one that came and went).
  const toast = (page: Page, message: string) =>
    page
      .locator(".ant-message-notice", { hasText: new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) })
      .first()
      .waitFor({ timeout: 30_000 });
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
    await expect
      .poll(() => page.getByLabel(t("create.name")).evaluate((el) => el === document.activeElement))
      .toBe(true);
    await settled(page, ".ant-modal");
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

  it("shows, copies and rotates the webhook signing secret, and lists deliveries as they go (Korean)", async () => {
    const ko = (key: string, vars: Record<string, string> = {}) =>
      Object.entries(vars).reduce((s, [k, v]) => s.replace(`{{${k}}}`, v), text("ko", "api", `webhooks.${key}`));
    const { context, cookie } = await signedInContext(browser, server, "hooks@example.com", {
      viewport: { width: 1280, height: 900 },
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${server.url}/ko/dashboard/api`);
    await hydrated(page, ".api-keys-page");
    expect(await page.locator("#webhooks-heading").textContent()).toBe(ko("title"));
    expect(await page.locator(".webhook-deliveries").textContent()).toContain(ko("deliveries.empty"));
    // The verification sample's comments in Korean, its code as it is
    const sample = (await page.getByTestId("webhook-verify").textContent())!;
    expect(sample).toContain(`// ${ko("verify.comments.input")}`);
    expect(sample).toContain(
      `// ${ko("verify.comments.type", { types: '"generation.succeeded" | "generation.failed" | "generation.canceled"' })}`,
    );
    expect(sample).toContain("new Webhook(process.env.ATELIER_WEBHOOK_SECRET).verify(rawBody, headers);");
    expect(sample).not.toContain("the request body exactly as received");

    // Hidden until asked for; shown, hidden again, copied
    const box = page.getByTestId("webhook-secret");
    expect(await box.inputValue()).not.toMatch(/^whsec_[A-Za-z0-9+/]/);
    await page.getByRole("button", { name: ko("secret.show") }).click();
    await expect.poll(() => box.inputValue()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const first = await box.inputValue();
    await page.getByRole("button", { name: ko("secret.hide") }).click();
    await expect.poll(() => box.inputValue()).not.toBe(first);
    await page.getByRole("button", { name: ko("secret.copy") }).click();
    await toast(page, text("ko", "common", "msg.copySuccess"));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);

    // Rotate: a new secret, shown; the previous one still signs for a day
    await page.getByRole("button", { name: ko("secret.rotate") }).click();
    await page.getByRole("button", { name: ko("secret.rotateConfirm"), exact: true }).click();
    await toast(page, ko("secret.rotated"));
    await expect.poll(() => box.inputValue()).toMatch(/^whsec_/);
    expect(await box.inputValue()).not.toBe(first);
    await page.getByTestId("webhook-previous").waitFor();

    // Two generations through the API: one receiver accepts, one keeps failing
    const created = (await (
      await fetch(`${server.url}/api/keys`, {
        method: "POST",
        headers: { Cookie: cookie, Origin: server.url, "Sec-Fetch-Site": "same-origin" },
        body: "{}",
      })
    ).json()) as { secret: string };
    for (const path of ["/ok", "/down"]) {
      const res = await fetch(`${server.url}/api/v1/images`, {
        method: "POST",
        headers: { Authorization: `Bearer ${created.secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ model: "demo-image", prompt: `To ${path}`, webhook_url: `${receiverUrl}${path}` }),
      });
      expect(res.status).toBe(201);
    }
    const statuses = async () => {
      await page.getByRole("button", { name: ko("deliveries.refresh") }).click();
      return (await page.getByTestId("webhook-status").allTextContents()).sort();
    };
    await expect
      .poll(statuses, { timeout: 60_000, interval: 1000 })
      .toEqual([ko("status.delivered"), ko("status.retrying")].sort());
    const rows = page.locator(".webhook-deliveries tr.ant-table-row");
    const failing = rows.filter({ hasText: `${receiverUrl}/down` });
    expect(await failing.textContent()).toContain(`${ko("deliveries.http", { code: "500" })} · ${ko("reason.status")}`);
    expect(await rows.filter({ hasText: `${receiverUrl}/ok` }).textContent()).toContain(ko("event.succeeded"));
    // Each row links to its generation
    await rows
      .first()
      .getByRole("link", { name: ko("deliveries.open") })
      .click();
    await page.waitForURL(/\/ko\/dashboard\/image\/[^/]+\/[0-9a-f-]{36}$/);
    await page.goBack();
    await hydrated(page, ".api-keys-page");

    // Failures say so
    await page.route("**/api/webhooks**", (route) => route.fulfill({ status: 500, body: "{}" }));
    await page.getByRole("button", { name: ko("deliveries.refresh") }).click();
    await toast(page, ko("deliveries.fetchFailed"));
    await page.getByRole("button", { name: ko("secret.rotate") }).click();
    await page.getByRole("button", { name: ko("secret.rotateConfirm"), exact: true }).click();
    await toast(page, ko("secret.rotateFailed"));
    await page.reload();
    await hydrated(page, ".api-keys-page");
    await page.getByRole("button", { name: ko("secret.show") }).click();
    await toast(page, ko("secret.fetchFailed"));
    await page.unrouteAll();
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
    // As a person would: the dialog's field is there (and its form with it) before the name is left empty.
    await expect
      .poll(() => page.getByLabel(t("create.name")).evaluate((el) => el === document.activeElement))
      .toBe(true);
    await settled(page, ".ant-modal");
    await page.getByRole("button", { name: t("create.submit"), exact: true }).click();
    await page.getByTestId("api-key-secret").waitFor();
    await page.getByRole("button", { name: t("created.done"), exact: true }).click();
    expect(await page.getByTestId("api-key-name").first().textContent()).toBe(t("unnamed"));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await context.close();
  });
});
