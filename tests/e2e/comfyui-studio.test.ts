import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { freePort, runRole, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { startComfyFake, type ComfyFake } from "#tests/fakes/comfyui.ts";

const SHOTS = process.env.E2E_SHOTS ?? "";
const PROMPT = "A lighthouse on a cliff under a violet sky";

describe("a ComfyUI workflow on a pool of two servers, used in the image studio", () => {
  let server: TestServer;
  let browser: Browser;
  let a: ComfyFake;
  let b: ComfyFake;

  beforeAll(async () => {
    // Slow steps, so the page sees the run under way; sped up once it has.
    [a, b] = await Promise.all([
      startComfyFake({ stepMs: 2000, maxSteps: 8 }),
      startComfyFake({ stepMs: 2000, maxSteps: 8 }),
    ]);
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}`, ADMIN_EMAILS: "chief@example.com" }),
      launchBrowser(),
    ]);
    const admin = async (...args: string[]) => {
      const run = runRole("admin", { DATA_DIR: server.dataDir }, args);
      expect(await run.exited, run.output()).toBe(0);
    };
    await admin(...["connections", "add", "comfyui", "--name", "GPUs", "--id", "gpus", "--url", a.url, "--url", b.url]);
    await admin(
      ...["models", "add", "comfyui:docs/comfyui/text-to-image.json", "--connection", "gpus", "--credits", "2"],
      ...["--id", "my-sd15", "--name", "My SD 1.5", "--enable"],
    );
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  it("runs the user's prompt, ratio and seed in the workflow, its progress shown, the image at the ratio's size", async () => {
    const t = (key: string) => text("en", "studio", key);
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
    await page.locator(".ant-select-item-option", { hasText: "My SD 1.5" }).click();
    await expect.poll(() => page.locator(".studio-model-select").textContent()).toContain("My SD 1.5");
    await page.fill("#studio-prompt", PROMPT);
    await page.locator(".studio-ratios .ant-segmented-item", { hasText: "16:9" }).click();
    await page.getByRole("switch", { name: t("form.seedFixedLabel") }).click();
    const seed = page.getByRole("spinbutton", { name: t("form.seed") });
    await seed.fill("777");
    await seed.blur();
    await expect.poll(() => seed.inputValue()).toBe("777");
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

    // One server ran it, with the user's prompt, seed and the workflow's 512×512 pixels at 16:9.
    const sent = [...a.prompts, ...b.prompts];
    expect(sent).toHaveLength(1);
    const graph = sent[0]!.graph;
    const nodes = Object.values(graph);
    const sampler = nodes.find((n) => n.class_type === "KSampler");
    expect(sampler?.inputs.seed).toBe(777);
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
