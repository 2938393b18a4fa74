import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { freePort, startServer, tempDir, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { startComfyFake, type ComfyFake } from "#tests/fakes/comfyui.ts";

const WORKFLOW = "docs/comfyui/text-to-image.json";
const SHOTS = process.env.E2E_SHOTS ?? "";
const PROMPT = "A lighthouse on a cliff under a violet sky";
const say = (namespace: string, key: string, values: Record<string, string | number> = {}) =>
  Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{{${k}}}`, String(v)), text("en", namespace, key));
const t = (key: string, values: Record<string, string | number> = {}) => say("admin", key, values);

/*
 * The whole path of a workflow on the operator's GPUs, in the browser: the admin adds a pool of two ComfyUI servers,
 * uploads the text-to-image workflow, chooses what users may set, tests it and switches it on (all before the
 * console's scripts arrive); a user then generates with it in the studio and watches its progress, and the server
 * that ran it received the user's prompt, seed and size in the workflow's nodes.
 */
describe("a ComfyUI workflow added in the console and used in the studio", () => {
  let server: TestServer;
  let browser: Browser;
  let a: ComfyFake;
  let b: ComfyFake;
  const notice = (page: Page) => page.locator(".admin-notice").first();

  beforeAll(async () => {
    [a, b] = await Promise.all([startComfyFake(), startComfyFake()]);
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}`, ADMIN_EMAILS: "chief@example.com" }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  it("adds the pool, reads the workflow on it, saves what users may set, tests it, switches it on and takes a new version", async () => {
    const { context } = await signedInContext(browser, server, "chief@example.com");
    const { page, release } = await openBeforeScripts(context, `${server.url}/user/admin/connections?add=comfyui`);

    // The pool: two servers.
    const pool = page.locator("form[data-add=comfyui]");
    await pool.locator("input[name=name]").fill("GPUs");
    await pool.locator("textarea[name='setting.servers']").fill(`${a.url}\n${b.url}`);
    await pool.getByRole("button", { name: t("connections.addSubmit") }).click();
    await page.waitForLoadState("domcontentloaded");
    expect(await notice(page).textContent()).toBe(t("connections.added", { name: "GPUs" }));
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/pool-added.png`, fullPage: true });
    }

    await page.goto(`${server.url}/user/admin/models/add`, { waitUntil: "domcontentloaded" });
    const upload = async (file: string) => {
      await page.locator("[data-describe-workflow] input[type=file]").setInputFiles(file);
      await page.locator("[data-describe-workflow] button[type=submit]").click();
      await page.waitForLoadState("domcontentloaded");
    };

    // A server of the pool without a node the workflow needs: refused, the server and the node named.
    b.knobs.lacks = ["KSampler"];
    await upload(WORKFLOW);
    await expect
      .poll(() => notice(page).textContent())
      .toBe(t("modelAdd.workflowRefused", { detail: `${b.url} lacks the node type KSampler` }));
    expect(await page.locator("[data-workflow-inputs]").count()).toBe(0);

    b.knobs.lacks = [];
    await upload(WORKFLOW);
    const card = page.locator("[data-workflow-inputs]");
    await card.waitFor();
    expect(await card.getAttribute("data-version")).toBe("1");
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/workflow-read.png`, fullPage: true });
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
    const model = "Text to image";
    b.knobs.lacks = ["SaveImage"];
    await page.locator('[data-test-card] button[value="enable"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect
      .poll(() => notice(page).textContent())
      .toBe(t("workflowInputs.problems", { model, detail: `${b.url} lacks the node type SaveImage` }));
    expect(await page.locator('[data-test-card] button[value="enable"]').count()).toBe(1);
    // The list's switch asks them too.
    await page.goto(`${server.url}/user/admin/models`, { waitUntil: "domcontentloaded" });
    const listed = page.locator('form:has(input[name="model"][value="text-to-image"]) button[value="enable"]');
    await listed.click();
    await page.waitForLoadState("domcontentloaded");
    await expect
      .poll(() => notice(page).textContent())
      .toBe(t("workflowInputs.problems", { model, detail: `${b.url} lacks the node type SaveImage` }));
    // Every server has what it needs now, but the workflow has not run yet: it is not offered before a test passes.
    b.knobs.lacks = [];
    await listed.click();
    await page.waitForLoadState("domcontentloaded");
    await expect.poll(() => notice(page).textContent()).toBe(t("workflowInputs.untested", { model, version: 1 }));

    await page.goto(`${server.url}/user/admin/models/text-to-image`, { waitUntil: "domcontentloaded" });
    expect(await page.locator("[data-untested]").textContent()).toBe(t("workflowInputs.testFirst", { version: 1 }));
    await page.locator('[data-test-card] button[value="check"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect.poll(() => notice(page).textContent()).toBe(t("models.checkStarted", { model }));
    // The test runs the workflow on the pool; the page (without its scripts) is read again until it has ended.
    await expect
      .poll(
        async () => {
          await page.reload({ waitUntil: "domcontentloaded" });
          return page.locator("[data-health] [data-provider=comfyui]").getAttribute("data-status");
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe("succeeded");
    const tests = [...a.prompts, ...b.prompts];
    expect(tests).toHaveLength(1);
    expect(await page.locator("[data-untested]").count()).toBe(0);
    await page.locator('[data-test-card] button[value="enable"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect.poll(() => notice(page).textContent()).toBe(t("models.enabled", { model }));

    // A new version: the same kind, numbered one more, the ticked setting kept; untested again, and the page says so.
    const next = join(tempDir(), "text-to-image-v2.json");
    writeFileSync(next, readFileSync(WORKFLOW, "utf8").replace('"steps": 20', '"steps": 25'));
    await page.locator("[data-workflow-version] input[type=file]").setInputFiles(next);
    await page.locator('[data-workflow-version] button[value="workflowVersion"]').click();
    await page.waitForLoadState("domcontentloaded");
    await expect.poll(() => notice(page).textContent()).toBe(t("workflowInputs.newVersion", { model, version: 2 }));
    expect(await page.locator("[data-workflow-inputs]").getAttribute("data-version")).toBe("2");
    expect(await page.locator('[data-slot="steps"] input[type=checkbox]').isChecked()).toBe(true);
    expect(await page.locator("[data-untested]").getAttribute("data-untested")).toBe("2");
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/model-page.png`, fullPage: true });
    release();
    await context.close();
  });

  it("runs a user's prompt, ratio and seed in the workflow on one server, its progress shown, the image at the ratio's size", async () => {
    const studio = (key: string) => say("studio", key);
    const { context } = await signedInContext(browser, server, "painter@example.com", {
      viewport: { width: 1366, height: 900 },
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("response", (r) => {
      if (r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${server.url}/dashboard/image/create/text-to-image`);
    await hydrated(page, ".studio-form");

    await page.click("#studio-model");
    await page.locator(".ant-select-item-option", { hasText: "Text to image" }).click();
    await expect.poll(() => page.locator(".studio-model-select").textContent()).toContain("Text to image");
    await page.fill("#studio-prompt", PROMPT);
    await page.locator(".studio-ratios .ant-segmented-item", { hasText: "16:9" }).click();
    await page.getByRole("switch", { name: studio("form.seedFixedLabel") }).click();
    const seed = page.getByRole("spinbutton", { name: studio("form.seed") });
    await seed.fill("777");
    await seed.blur();
    await expect.poll(() => seed.inputValue()).toBe("777");
    // Slow steps, so the page sees the run under way; sped up once it has.
    for (const fake of [a, b]) Object.assign(fake.knobs, { stepMs: 2000, maxSteps: 8 });
    await page.click(".studio-submit");

    // The bar moves: seen strictly between 0 and 100, and higher again, before the result shows.
    const card = page.locator(".gen-card").first();
    const bar = card.locator(".studio-progress [role=progressbar]");
    const seen: number[] = [];
    await expect
      .poll(
        async () => {
          const now = await bar.getAttribute("aria-valuenow", { timeout: 1000 }).catch(() => null);
          const value = Number(now);
          if (now !== null && value > 0 && value < 100 && value !== seen.at(-1)) seen.push(value);
          return seen.length >= 2 && seen.at(-1)! > seen[0]!;
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe(true);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/studio-running.png` });
    }
    for (const fake of [a, b]) fake.knobs.stepMs = 5;
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 60_000 });

    // One server ran it: the second version, with the user's prompt, seed and the workflow's 512×512 pixels at 16:9.
    const sent = [...a.prompts, ...b.prompts].filter((p) =>
      Object.values(p.graph).some((n) => n.class_type === "CLIPTextEncode" && n.inputs.text === PROMPT),
    );
    expect(sent).toHaveLength(1);
    const graph = sent[0]!.graph;
    const nodes = Object.values(graph);
    const sampler = nodes.find((n) => n.class_type === "KSampler");
    expect(sampler?.inputs).toMatchObject({ seed: 777, steps: 25 });
    const positive = graph[String((sampler?.inputs.positive as [string, number])[0])];
    expect(positive).toMatchObject({ class_type: "CLIPTextEncode", inputs: { text: PROMPT } });
    expect(nodes.find((n) => n.class_type === "EmptyLatentImage")?.inputs).toMatchObject({ width: 680, height: 384 });

    // The result page shows the image at that size.
    await card.locator(".gen-card-media").click();
    await page.waitForURL(/\/dashboard\/image\/[0-9a-f]+\/[0-9a-f-]{36}$/);
    const image = page.locator(".result-images img").first();
    await image.waitFor();
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]))
      .toEqual([680, 384]);
    await expect(page.locator(".result-prompt-text").textContent()).resolves.toBe(PROMPT);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/result.png` });
    expect(problems).toEqual([]);
    await context.close();
  });
});
