import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { freePort, runRole, startServer, tempDir, type TestServer } from "#tests/support/server.ts";
import { launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { startNodeServer } from "#tests/support/comfyui-nodes.ts";

const WORKFLOW = "docs/comfyui/text-to-image.json";
const t = (key: string, values: Record<string, string | number> = {}) =>
  Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{{${k}}}`, String(v)), text("en", "admin", key));

describe("a ComfyUI workflow added in the console, before the page's scripts", () => {
  let server: TestServer;
  let browser: Browser;
  let a: Awaited<ReturnType<typeof startNodeServer>>;
  let b: Awaited<ReturnType<typeof startNodeServer>>;
  const notice = (page: Page) => page.locator(".admin-notice").first();

  beforeAll(async () => {
    [a, b] = await Promise.all([startNodeServer(), startNodeServer()]);
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}`, ADMIN_EMAILS: "chief@example.com" }),
      launchBrowser(),
    ]);
    const add = runRole("admin", { DATA_DIR: server.dataDir }, [
      ...["connections", "add", "comfyui", "--name", "GPUs", "--url", a.url, "--url", b.url],
    ]);
    expect(await add.exited, add.output()).toBe(0);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  it("reads the file on the pool, names a server's lack, saves a ticked setting, refuses to switch on while a server lacks a node, and takes a new version", async () => {
    const cookie = await signedIn(server, server.url, "chief@example.com");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies(
      cookie.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
    const { page, release } = await openBeforeScripts(context, `${server.url}/user/admin/models/add`);
    const upload = async (file: string) => {
      await page.locator("[data-describe-workflow] input[type=file]").setInputFiles(file);
      await page.locator("[data-describe-workflow] button[type=submit]").click();
      await page.waitForLoadState("domcontentloaded");
    };

    // A server of the pool without a node the workflow needs: refused, the server and the node named.
    b.state.lacks = ["KSampler"];
    await upload(WORKFLOW);
    await expect
      .poll(() => notice(page).textContent())
      .toBe(t("modelAdd.workflowRefused", { detail: `${b.url} lacks the node type KSampler` }));
    expect(await page.locator("[data-workflow-inputs]").count()).toBe(0);

    b.state.lacks = [];
    await upload(WORKFLOW);
    const card = page.locator("[data-workflow-inputs]");
    await card.waitFor();
    expect(await card.getAttribute("data-version")).toBe("1");
    expect(
      await card.locator("[data-slot]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-role"))),
    ).toEqual([
      "prompt",
      "negativePrompt",
      "seed",
      "width",
      "height",
      "batch",
      "denoise",
      "setting",
      "setting",
      "setting",
      "setting",
      "setting",
    ]);
    expect(await card.locator('[data-slot="seed"]').textContent()).toContain(t("workflowInputs.fills.seed"));
    const steps = card.locator('[data-slot="steps"]');
    await steps.locator("input[type=checkbox]").check();
    await steps.locator('input[name$=".label"]').fill("Steps");
    await steps.locator('input[name$=".max"]').fill("50");
    await page.locator('button[value="add"]').click();
    await page.waitForURL(/\/user\/admin\/models\/text-to-image\?added=1$/, { waitUntil: "domcontentloaded" });

    const saved = page.locator("[data-workflow-inputs]");
    expect(await saved.getAttribute("data-version")).toBe("1");
    expect(await saved.locator('[data-slot="steps"] input[type=checkbox]').isChecked()).toBe(true);
    expect(await saved.locator('[data-slot="steps"] input[name$=".label"]').inputValue()).toBe("Steps");
    expect(await saved.locator('[data-slot="steps"] input[name$=".max"]').inputValue()).toBe("50");
    expect(await saved.locator('[data-slot="cfg"] input[type=checkbox]').isChecked()).toBe(false);

    // Saved as shown, the page keeps the workflow and what users may set.
    await page.locator('button[value="save"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect.poll(() => notice(page).textContent()).toBe(t("settings.unchanged"));
    expect(await page.locator("[data-workflow-inputs]").getAttribute("data-version")).toBe("1");
    expect(await page.locator('[data-slot="steps"] input[type=checkbox]').isChecked()).toBe(true);

    // Switching it on asks the servers first.
    b.state.lacks = ["SaveImage"];
    await page.locator('[data-test-card] button[value="enable"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect
      .poll(() => notice(page).textContent())
      .toBe(t("workflowInputs.problems", { model: "Text to image", detail: `${b.url} lacks the node type SaveImage` }));
    expect(await page.locator('[data-test-card] button[value="enable"]').count()).toBe(1);
    // The list's switch asks them too.
    await page.goto(`${server.url}/user/admin/models`, { waitUntil: "domcontentloaded" });
    await page.locator('form:has(input[name="model"][value="text-to-image"]) button[value="enable"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect
      .poll(() => notice(page).textContent())
      .toBe(t("workflowInputs.problems", { model: "Text to image", detail: `${b.url} lacks the node type SaveImage` }));
    await page.goto(`${server.url}/user/admin/models/text-to-image`, { waitUntil: "domcontentloaded" });
    b.state.lacks = [];
    await page.locator('[data-test-card] button[value="enable"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect.poll(() => notice(page).textContent()).toBe(t("models.enabled", { model: "Text to image" }));

    // A new version: the same kind, numbered one more, the ticked setting kept.
    const next = join(tempDir(), "text-to-image-v2.json");
    writeFileSync(next, readFileSync(WORKFLOW, "utf8").replace('"steps": 20', '"steps": 25'));
    await page.locator("[data-workflow-version] input[type=file]").setInputFiles(next);
    await page.locator('[data-workflow-version] button[value="workflowVersion"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect
      .poll(() => notice(page).textContent())
      .toBe(t("workflowInputs.newVersion", { model: "Text to image", version: 2 }));
    expect(await page.locator("[data-workflow-inputs]").getAttribute("data-version")).toBe("2");
    expect(await page.locator('[data-slot="steps"] input[type=checkbox]').isChecked()).toBe(true);
    release();
    await context.close();
  });
});
