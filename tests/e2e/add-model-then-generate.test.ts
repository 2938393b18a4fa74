import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startServer, tempDir, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { signedIn, signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeReplicate, type FakeReplicate } from "#tests/fakes/replicate.ts";

/**
 * The whole path of a model that shipped this week: an administrator adds it in the console by its provider's id (fal
 * and Replicate serve its schema), sees its fields mapped, prices it with a formula, tests it and switches it on; a
 * member then makes something with it in the studio with one of its own settings changed, is charged the formula's
 * price as shown, and the provider receives the mapped inputs.
 */
describe("a model added by id in the console, then used in the studio, in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let fal: FakeFal;
  let replicate: FakeReplicate;
  let admin: BrowserContext;
  let member: BrowserContext;

  beforeAll(async () => {
    [fal, replicate] = await Promise.all([startFakeFal(), startFakeReplicate()]);
    fal.pollsToFinish = 1;
    [server, browser] = await Promise.all([
      startServer({
        DATA_DIR: tempDir("atelier-add-then-generate-"),
        ADMIN_EMAILS: "operator@example.com",
        SIGNUP_BONUS_CREDITS: "500",
        FAL_KEY: "fal-console-key-0c1e",
        FAL_BASE_URL: fal.url,
        REPLICATE_API_TOKEN: "r8_console_token_9d2a",
        REPLICATE_BASE_URL: `${replicate.url}/v1`,
      }),
      launchBrowser(),
    ]);
    const cookie = await signedIn(server, server.url, "operator@example.com");
    admin = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    await admin.addCookies(
      cookie.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
    ({ context: member } = await signedInContext(browser, server, "maker@example.com"));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await Promise.all([fal?.close(), replicate?.close()]);
  });

  /** Adds a model in the console by its provider's id with a price formula, tests it and switches it on. */
  async function addInConsole(o: {
    connection: string;
    providerModel: string;
    id: string;
    name: string;
    credits: number;
    unit?: "image" | "video" | "videoSecond";
    multiplier?: { setting: string; value: string; factor: string };
    expectMapped: Record<string, string>;
  }) {
    const page = await admin.newPage();
    await page.goto(`${server.url}/user/admin/models/add`);
    await hydrated(page, "form[data-describe]");
    await page.locator("select[name=connection]").selectOption(o.connection);
    await page.locator("input[name=providerModel]").fill(o.providerModel);
    await page.getByRole("button", { name: text("en", "admin", "modelAdd.describe") }).click();
    const proposal = page.locator(`form[data-proposal='${o.providerModel}']`);
    await proposal.waitFor({ timeout: 20_000 });
    // Its fields, mapped from the provider's schema.
    for (const [common, field] of Object.entries(o.expectMapped))
      expect(await proposal.locator(`[name='binding.0.map.${common}']`).inputValue(), common).toBe(field);
    await proposal.locator("input[name=id]").fill(o.id);
    await proposal.locator("input[name=name]").fill(o.name);
    if (o.unit) await proposal.locator("select[name='price.unit']").selectOption(o.unit);
    await proposal.locator("input[name='price.credits']").fill(String(o.credits));
    if (o.multiplier) {
      await proposal.locator("select[name='mult.0.setting']").selectOption(o.multiplier.setting);
      await proposal.locator("input[name='mult.0.value']").fill(o.multiplier.value);
      await proposal.locator("input[name='mult.0.factor']").fill(o.multiplier.factor);
    }
    await proposal.getByRole("button", { name: text("en", "admin", "modelAdd.submit") }).click();
    await page.waitForURL(new RegExp(`/user/admin/models/${o.id}(\\?|$)`), { timeout: 15_000 });
    await hydrated(page, "form[data-model-form]");
    await page.getByRole("button", { name: text("en", "admin", "models.check") }).click();
    await expect
      .poll(() => page.locator(`[data-test-card] [data-provider=${o.connection}]`).getAttribute("data-status"), {
        timeout: 90_000,
      })
      .toBe("succeeded");
    await page.getByRole("button", { name: text("en", "admin", "models.enable") }).click();
    await expect
      .poll(() => page.locator("[data-test-card] [data-state]").getAttribute("data-state"), { timeout: 30_000 })
      .toBe("on");
    await page.close();
  }

  const shownCost = async (page: Page) =>
    Number(/\d+/.exec((await page.locator(".studio-cost strong").first().textContent())!)![0]);
  const balance = async (page: Page) =>
    Number((await page.locator(".credit-balance-value").first().textContent())!.replace(/\D/g, ""));

  /** Opens a studio form with the model picked, and says what the balance is. */
  async function studioWith(path: string, modelName: string) {
    const page = await member.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("response", (r) => {
      if (r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${server.url}${path}`);
    await hydrated(page, ".studio-form");
    // The list is long: typing part of the name finds it.
    await page.locator(".studio-model-select").click();
    await page.keyboard.type(modelName);
    await page.locator(".ant-select-item-option", { hasText: modelName }).first().click();
    await expect.poll(() => page.locator(".studio-model-select").textContent()).toContain(modelName);
    return { page, problems };
  }

  /** Submits, waits for the result, and checks the balance fell by the price shown. */
  async function generateAndPay(page: Page, promptId: string, prompt: string, price: number) {
    await expect.poll(() => shownCost(page)).toBe(price);
    const before = await balance(page);
    await page.fill(promptId, prompt);
    await page.locator(".studio-submit").click();
    await page.locator(".gen-card[data-status=succeeded]").first().waitFor({ timeout: 120_000 });
    await expect.poll(() => balance(page)).toBe(before - price);
  }

  it("a fal image model: named sizes and the steps it is priced by", async () => {
    await addInConsole({
      connection: "fal",
      providerModel: "fal-ai/flux/dev",
      id: "week-flux",
      name: "Week FLUX",
      credits: 2,
      multiplier: { setting: "num_inference_steps", value: "50", factor: "2.5" },
      expectMapped: { prompt: "prompt", count: "num_images", aspectRatio: "image_size", seed: "seed" },
    });
    const { page, problems } = await studioWith("/dashboard/image/create/text-to-image", "Week FLUX");
    await page.locator(".studio-ratios .ant-segmented-item", { hasText: "16:9" }).click();
    await page.locator("#studio-advanced summary").click();
    await expect.poll(() => shownCost(page)).toBe(2);
    await page.fill("#studio-advanced-num_inference_steps", "50");
    await generateAndPay(page, "#studio-prompt", "A lighthouse in fog, from the console", 5);
    const sent = fal.requests.filter((r) => r.method === "POST" && r.path === "/fal-ai/flux/dev").at(-1)!.body;
    expect(sent).toMatchObject({
      prompt: "A lighthouse in fog, from the console",
      image_size: "landscape_16_9",
      num_inference_steps: 50,
      guidance_scale: 3.5,
      enable_safety_checker: true,
    });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a Replicate image model: its aspect ratio and guidance", async () => {
    await addInConsole({
      connection: "replicate",
      providerModel: "black-forest-labs/flux-dev",
      id: "week-replicate",
      name: "Week Replicate",
      credits: 3,
      expectMapped: { prompt: "prompt", aspectRatio: "aspect_ratio", seed: "seed" },
    });
    const { page, problems } = await studioWith("/dashboard/image/create/text-to-image", "Week Replicate");
    await page.locator(".studio-ratios .ant-segmented-item", { hasText: "9:16" }).click();
    await page.locator("#studio-advanced summary").click();
    await page.fill("#studio-advanced-guidance", "4.5");
    await generateAndPay(page, "#studio-prompt", "A paper boat on a pond", 3);
    const sent = replicate.requests.filter((r) => r.method === "POST" && /predictions$/.test(r.path)).at(-1)!.body as {
      input: Record<string, unknown>;
    };
    expect(sent.input).toMatchObject({ prompt: "A paper boat on a pond", aspect_ratio: "9:16", guidance: 4.5 });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a fal video model through the queue, priced per second", async () => {
    await addInConsole({
      connection: "fal",
      providerModel: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      id: "week-kling",
      name: "Week Kling",
      credits: 7,
      unit: "videoSecond",
      expectMapped: { prompt: "prompt", aspectRatio: "aspect_ratio", duration: "duration" },
    });
    const { page, problems } = await studioWith("/dashboard/video/create", "Week Kling");
    await page.locator(".ant-segmented-item", { hasText: "10" }).first().click();
    await page.locator("#video-advanced summary").click();
    await page.fill("#video-advanced-cfg_scale", "0.7");
    await generateAndPay(page, "#video-prompt", "Waves on a pier at night", 70);
    const sent = fal.requests
      .filter((r) => r.method === "POST" && r.path === "/queue/fal-ai/kling-video/v2.5-turbo/pro/text-to-video")
      .at(-1)!.body;
    expect(sent).toMatchObject({ duration: "10", cfg_scale: 0.7 });
    expect(problems).toEqual([]);
    await page.close();
  });
});
