import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, runRole, startServer, tempDir, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { signedInContext } from "#tests/support/session.ts";
import { IMAGE_ASPECT_RATIOS, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_STYLES } from "#common/generation.ts";

/**
 * Two models added by the operator on the offline demo's engines, each with a price formula: an image model priced
 * by resolution and by its own quality setting, and a video model priced per second with sound costing more.
 */
const CATALOG = [
  {
    id: "studio-formula-image",
    kind: "image",
    name: "Formula Image",
    enabled: true,
    visibility: "everyone",
    position: 0,
    tools: ["text-to-image"],
    bindings: [{ provider: "demo", model: "demo-image" }],
    price: { unit: "image", credits: 2, multipliers: { resolution: { "1080p": 2 }, quality: { high: 3 } } },
    options: {
      aspectRatios: [...IMAGE_ASPECT_RATIOS],
      maxCount: 4,
      negativePrompt: false,
      seed: true,
      strength: false,
      resolutions: ["720p", "1080p"],
    },
    parameters: [
      {
        name: "quality",
        type: "string",
        label: "Quality",
        description: "Higher takes longer.",
        choices: ["low", "high"],
        default: "low",
      },
      { name: "guidance_scale", type: "number", label: "Guidance scale", default: 3.5, minimum: 1, maximum: 20 },
      { name: "num_inference_steps", type: "integer", label: "Steps", default: 28, minimum: 1 },
      { name: "enable_safety_checker", type: "boolean", label: "Safety checker", default: true },
      { name: "style_words", type: "string", label: "Style words", maxLength: 10 },
    ],
    expectedSeconds: 1,
    timeoutSeconds: 60,
  },
  {
    id: "studio-formula-video",
    kind: "video",
    name: "Formula Video",
    enabled: true,
    visibility: "everyone",
    position: 0,
    tools: ["text-to-video"],
    bindings: [{ provider: "demo", model: "demo-video" }],
    price: { unit: "videoSecond", credits: 2, multipliers: { audio: { true: 1.5 } } },
    options: {
      aspectRatios: [...VIDEO_ASPECT_RATIOS],
      maxCount: 1,
      durations: [...VIDEO_DURATIONS],
      styles: [...VIDEO_STYLES],
      negativePrompt: false,
      seed: true,
      strength: false,
      audio: true,
    },
    expectedSeconds: 2,
    timeoutSeconds: 120,
  },
];

async function open(context: BrowserContext, url: string) {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(url);
  await hydrated(page, ".studio-form");
  return { page, problems };
}

/** The credits the cost line shows. */
const shownCost = async (page: Page) =>
  Number(/\d+/.exec((await page.locator(".studio-cost strong").first().textContent())!)![0]);
const balance = async (page: Page) =>
  Number((await page.locator(".credit-balance-value").first().textContent())!.replace(/\D/g, ""));

describe("the studio prices a model's own settings as it will charge them, in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  const dataDir = serverDataDir();
  const catalogDir = tempDir("atelier-catalog-");

  beforeAll(async () => {
    // Added before the site starts: the command line owns the embedded database while it runs.
    const file = join(catalogDir, "catalog.json");
    writeFileSync(file, JSON.stringify(CATALOG));
    const imported = runRole("admin", { DATA_DIR: dataDir }, ["models", "import", file]);
    const exit = await imported.exited;
    if (exit !== 0) throw new Error(`models import exited with ${exit}:\n${imported.output()}`);
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: dataDir,
        SIGNUP_BONUS_CREDITS: "200",
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    for (const dir of [dataDir, catalogDir]) rmSync(dir, { recursive: true, force: true });
  });

  it("shows the formula's price, changes it with the resolution and an advanced setting, and charges it", async () => {
    const { context } = await signedInContext(browser, server, "formula@example.com");
    const { page, problems } = await open(context, `${server.url}/dashboard/image/create/text-to-image`);
    await expect(page.locator(".studio-model-select").textContent()).resolves.toContain("Formula Image");
    // The list says the price depends on the settings.
    await page.locator(".studio-model-select").click();
    const option = page.locator(".studio-model-option", { hasText: "Formula Image" }).last();
    await expect(option.locator(".studio-model-price").textContent()).resolves.toBe(
      text("en", "studio", "price.from").replace("{{price}}", "2 credits / image"),
    );
    await page.keyboard.press("Escape");

    // 720p (the first resolution) and the default quality: the formula's base.
    await expect.poll(() => shownCost(page)).toBe(2);
    await page.locator(".studio-resolutions .ant-segmented-item", { hasText: "1080p" }).click();
    await expect.poll(() => shownCost(page)).toBe(4);

    // The advanced settings are folded away, each with its default preset.
    const advanced = page.locator("#studio-advanced");
    await expect(advanced.getAttribute("open")).resolves.toBeNull();
    await advanced.locator("summary").click();
    await expect(page.locator("#studio-advanced-guidance_scale").inputValue()).resolves.toBe("3.5");
    await expect(page.locator("#studio-advanced-num_inference_steps").inputValue()).resolves.toBe("28");
    await expect(page.locator("#studio-advanced-enable_safety_checker").getAttribute("aria-checked")).resolves.toBe(
      "true",
    );
    await expect(advanced.textContent()).resolves.toContain("Higher takes longer.");
    await page.locator("#studio-advanced-quality").click();
    await page.locator(".ant-select-item-option", { hasText: "high" }).click();
    await expect.poll(() => shownCost(page)).toBe(12);
    // Back to the defaults, and to the changed quality again.
    await page.locator(".studio-advanced-reset").click();
    await expect.poll(() => shownCost(page)).toBe(4);
    await page.locator("#studio-advanced-quality").click();
    await page.locator(".ant-select-item-option", { hasText: "high" }).click();
    await page.fill("#studio-advanced-guidance_scale", "7");
    await expect.poll(() => shownCost(page)).toBe(12);

    const before = await balance(page);
    await page.fill("#studio-prompt", "A lighthouse at dusk, priced by its settings");
    await page.locator(".studio-submit").click();
    const card = page.locator(".gen-card").first();
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 60_000 });
    // The balance drops by the price shown, no more.
    await expect.poll(() => balance(page)).toBe(before - 12);
    const id = (await card.getAttribute("data-id"))!;
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const { generation } = (await (
      await fetch(`${server.url}/api/generations/${id}`, { headers: { Cookie: cookie } })
    ).json()) as { generation: { creditsCharged: number; params: Record<string, unknown> } };
    expect(generation.creditsCharged).toBe(12);
    expect(generation.params).toMatchObject({
      resolution: "1080p",
      options: { quality: "high", guidance_scale: 7, num_inference_steps: 28, enable_safety_checker: true },
    });
    // "Reuse settings" brings the resolution and the model's own settings back, and their price.
    await page.goto(`${server.url}/dashboard/image/create/text-to-image?from=${id}`);
    await hydrated(page, ".studio-form");
    await expect.poll(() => shownCost(page)).toBe(12);
    await page.locator("#studio-advanced summary").click();
    expect(Number(await page.locator("#studio-advanced-guidance_scale").inputValue())).toBe(7);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("keeps a resolution and an advanced setting chosen before the page's scripts ran", async () => {
    const { context } = await signedInContext(browser, server, "slowphone@example.com");
    const { page, release } = await openBeforeScripts(context, `${server.url}/dashboard/image/create/text-to-image`);
    await page.locator(".studio-resolutions .ant-segmented-item", { hasText: "1080p" }).click();
    await page.locator("#studio-advanced summary").click();
    await page.fill("#studio-advanced-num_inference_steps", "40");
    release();
    await hydrated(page, ".studio-form");
    await expect.poll(() => shownCost(page)).toBe(4);
    await expect(page.locator("#studio-advanced").getAttribute("open")).resolves.toBe("");
    await expect.poll(() => page.locator("#studio-advanced-num_inference_steps").inputValue()).toBe("40");
    await page.fill("#studio-prompt", "Chosen before the scripts");
    await page.locator(".studio-submit").click();
    const card = page.locator(".gen-card").first();
    await card.waitFor();
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const { generation } = (await (
      await fetch(`${server.url}/api/generations/${await card.getAttribute("data-id")}`, {
        headers: { Cookie: cookie },
      })
    ).json()) as { generation: { creditsHeld: number; params: Record<string, unknown> } };
    expect(generation).toMatchObject({
      creditsHeld: 4,
      params: { resolution: "1080p", options: { num_inference_steps: 40 } },
    });
    await context.close();
  });

  it("says in the page's language which setting a model refuses, and sends nothing", async () => {
    const { context } = await signedInContext(browser, server, "grenzen@example.com");
    const { page, problems } = await open(context, `${server.url}/de/dashboard/image/create/text-to-image`);
    const before = await balance(page);
    await page.locator("#studio-advanced summary").click();
    await page.fill("#studio-advanced-style_words", "far too many words");
    await page.fill("#studio-prompt", "Ein Leuchtturm");
    await page.locator(".studio-submit").click();
    await expect(page.locator(".studio-field-error[role=alert]").textContent()).resolves.toBe(
      text("de", "messages", "generation.errors.settingInvalid")
        .replace("{{setting}}", "Style words")
        .replace("{{model}}", "Formula Image"),
    );
    await expect(page.locator(".gen-card").count()).resolves.toBe(0);
    expect(await balance(page)).toBe(before);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("prices sound with a video by the second, on a phone", async () => {
    const { context } = await signedInContext(browser, server, "filmer@example.com", {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const { page, problems } = await open(context, `${server.url}/ja/dashboard/video/create`);
    await expect(page.locator(".studio-model-select").textContent()).resolves.toContain("Formula Video");
    await expect.poll(() => shownCost(page)).toBe(10);
    await page.locator(".ant-segmented-item", { hasText: "10" }).first().click();
    await expect.poll(() => shownCost(page)).toBe(20);
    await page.locator("#video-audio").click();
    await expect.poll(() => shownCost(page)).toBe(30);
    await expect(page.locator(".studio-form").textContent()).resolves.toContain(text("ja", "studio", "form.audio"));
    // Nothing is wider than the phone.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    const before = await balance(page);
    await page.fill("#video-prompt", "波の音と灯台");
    await page.locator(".studio-submit").click();
    await page.locator(".gen-card[data-status=succeeded]").first().waitFor({ timeout: 120_000 });
    await expect.poll(() => balance(page)).toBe(before - 30);
    expect(problems).toEqual([]);
    await context.close();
  });
});
