import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import sharp from "sharp";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { pageApi, signedInContext } from "#tests/support/session.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { toolPath, type GenerationTool } from "#common/tools.ts";

/**
 * Whether the offline demo model makes an upscaled image of the input's size times the scale. Until it does (it
 * draws its own scene at a fixed size), the width check below is off; turn this on with the demo's upscaling.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

interface Generation {
  id: string;
  tool: string;
  status: string;
  creditsCharged: number | null;
  input: { id: string; width: number | null; height: number | null } | null;
  params: { scale?: number; extend?: { top: number; right: number; bottom: number; left: number } };
  outputs: Array<{ id: string; width: number | null; height: number | null; mimeType: string }>;
  mask?: { id: string; url: string; width: number | null; height: number | null; mimeType: string } | null;
}

/** The page, with every script error and every answer of 500 or more collected. */
async function open(context: BrowserContext, url: string) {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(url);
  await hydrated(page, ".studio-form, .dash-page");
  return { page, problems };
}

const png = (width: number, height: number, background: { r: number; g: number; b: number }) =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

/** A mask of an image's size: its right half white (to change), the rest black. */
const maskPng = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([
      {
        input: { create: { width: width / 2, height, channels: 3, background: { r: 255, g: 255, b: 255 } } },
        left: width / 2,
        top: 0,
      },
    ])
    .png()
    .toBuffer();

/** Chooses a file through the browser's file chooser, opened by clicking `button`; returns the upload's asset id. */
async function chooseFile(page: Page, button: Locator, file: { name: string; buffer: Buffer }) {
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), button.click()]);
  const uploaded = page.waitForResponse((r) => r.url().endsWith("/api/uploads") && r.request().method() === "POST");
  await chooser.setFiles({ name: file.name, mimeType: "image/png", buffer: file.buffer });
  const answer = await uploaded;
  expect(answer.status()).toBe(201);
  return ((await answer.json()) as { upload: { id: string } }).upload.id;
}

/** The credits the form quotes ("1 credit", "1 クレジット"). */
const costOnPage = async (page: Page) =>
  Number(/\d+/.exec((await page.locator(".studio-cost strong").first().textContent()) ?? "")?.[0]);
const balance = (page: Page) => page.locator(".credit-balance-value").first();

describe("the image tools in Chromium, on the offline models", () => {
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

  /**
   * Opens a tool's page signed in, refuses it without its input image, gives the input and what else the tool needs
   * (`prepare`), submits, and checks what the server recorded: the tool, the input, the exact charge of the quoted
   * cost, and the result page showing it.
   */
  async function runTool(options: {
    tool: GenerationTool;
    lng: string;
    viewport: { width: number; height: number };
    email: string;
    prompt?: string;
    /** What the account has before the page opens (its session cookie). */
    setup?: (cookie: string) => Promise<void>;
    /** Gives the input image; returns its asset id. */
    giveInput: (page: Page) => Promise<string>;
    /** What the tool needs besides its input, refusals included. */
    prepare?: (page: Page) => Promise<void>;
  }) {
    const { tool, lng } = options;
    const { context, cookie } = await signedInContext(browser, server, options.email, { viewport: options.viewport });
    await options.setup?.(cookie);
    const prefix = lng === "en" ? "" : `/${lng}`;
    const { page, problems } = await open(context, `${server.url}${prefix}/dashboard/image/create/${tool}`);
    const t = (key: string) => text(lng, "studio", key);
    await expect(page.locator("h1").textContent()).resolves.toBe(t(`tools.${tool}.title`));
    // The switcher lists every image tool the demo serves, this one current.
    const current = page.locator(".studio-switcher [aria-current=page]");
    await expect(current.textContent()).resolves.toBe(t(`tools.${tool}.title`));
    await expect(current.getAttribute("href")).resolves.toBe(`${prefix}${toolPath(tool)}`);
    await expect(page.locator(".studio-switcher a").count()).resolves.toBe(6);

    let posted = 0;
    page.on("request", (r) => {
      if (r.url().endsWith("/api/generations") && r.method() === "POST") posted++;
    });
    if (options.prompt) await page.fill("#studio-prompt", options.prompt);
    // Without its input image: refused with the translated message (the first), the field focused, nothing sent.
    await page.click(".studio-submit");
    await expect(page.locator(".studio-field-error").first().textContent()).resolves.toBe(
      text(lng, "messages", "generation.errors.inputRequired"),
    );
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("studio-input");
    const inputId = await options.giveInput(page);
    await page.locator(".studio-input-chosen img").first().waitFor();
    await options.prepare?.(page);

    expect(posted).toBe(0);
    const cost = await costOnPage(page);
    expect(cost).toBeGreaterThan(0);
    const before = Number(await balance(page).textContent());
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/generations") && r.method() === "POST");
    const answered = page.waitForResponse(
      (r) => r.url().endsWith("/api/generations") && r.request().method() === "POST",
    );
    await page.click(".studio-submit");
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    const answer = await answered;
    expect(answer.status(), await answer.text()).toBe(201);
    const { id } = ((await answer.json()) as { generation: { id: string } }).generation;
    expect(body.tool).toBe(tool);
    expect(body.inputAssetId).toBe(inputId);

    const card = page.locator(`.gen-card[data-id="${id}"]`);
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 60_000 });
    const call = pageApi(server, server.url);
    const generation = (
      (await (await call("GET", `/api/generations/${id}`, cookie)).json()) as { generation: Generation }
    ).generation;
    expect(generation.tool).toBe(tool);
    expect(generation.input?.id).toBe(inputId);
    expect(generation.creditsCharged).toBe(cost);
    await expect.poll(() => balance(page).textContent()).toBe(String(before - cost));

    // The result page, under the tool's own address, says which tool made it.
    await card.locator(".gen-card-media").click();
    await page.waitForURL(new RegExp(`${toolPath(tool)}/${id}$`));
    await expect(page.locator(".result-title").textContent()).resolves.toBe(t(`tools.${tool}.title`));
    await page.locator(".result-images img").first().waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(options.viewport.width);
    expect(problems).toEqual([]);
    return { page, context, body, generation };
  }

  const upload =
    (name: string, width = 320, height = 200) =>
    async (page: Page) =>
      chooseFile(page, page.locator(".studio-dropzone .ant-btn").first(), {
        name,
        buffer: await png(width, height, { r: 40, g: 120, b: 200 }),
      });

  for (const [device, viewport, lng] of [
    ["desktop", DESKTOP, "en"],
    ["phone", PHONE, "ja"],
  ] as const) {
    it(`edits with a mask on a ${device}: the mask required, then sent with the image`, async () => {
      let maskId = "";
      const { body, context, page, generation } = await runTool({
        tool: "inpaint",
        lng,
        viewport,
        email: `masker-${device}@example.com`,
        prompt: "A vase of sunflowers",
        giveInput: upload("room.png"),
        prepare: async (page) => {
          await page.click(".studio-submit");
          await expect(page.locator(".studio-field-error").textContent()).resolves.toBe(
            text(lng, "messages", "generation.errors.maskRequired"),
          );
          await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("studio-mask");
          if (device === "desktop") {
            // A mask made elsewhere, chosen as a file.
            maskId = await chooseFile(page, page.locator(".studio-mask .ant-btn").last(), {
              name: "mask.png",
              buffer: await maskPng(320, 200),
            });
            await page.locator(".studio-mask .studio-input-chosen img").waitFor();
          } else {
            // Painted in the editor over the image: one stroke across its middle.
            const stage = page.locator(".mask-editor-canvas");
            await stage.waitFor();
            const box = (await stage.boundingBox())!;
            await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.5);
            await page.mouse.down();
            await page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.5, { steps: 12 });
            await page.mouse.up();
          }
        },
      });
      // The server took the mask (it refuses an inpaint without one, or with another's).
      if (maskId) expect(body.maskAssetId).toBe(maskId);
      else {
        // The painted mask was kept as drawn: the image's size, white along the stroke, black away from it.
        expect(generation.mask).toMatchObject({ id: body.maskAssetId, mimeType: "image/png", width: 320, height: 200 });
        const bytes = Buffer.from(
          await (await context.request.get(new URL(generation.mask!.url, server.url).href)).body(),
        );
        const grey = await sharp(bytes).extractChannel(0).raw().toBuffer();
        expect(grey[100 * 320 + 160]).toBe(255);
        expect(grey[5 * 320 + 5]).toBe(0);
      }
      expect(body.prompt).toBe("A vase of sunflowers");
      expect(page.url()).toContain(toolPath("inpaint"));
      await context.close();
    });

    it(`extends the canvas on a ${device}: pixels per side, previewed, and the new size recorded`, async () => {
      const { body, generation, context } = await runTool({
        tool: "outpaint",
        lng,
        viewport,
        email: `extender-${device}@example.com`,
        giveInput: upload("beach.png"),
        prepare: async (page) => {
          const t = (key: string) => text(lng, "studio", key);
          // A new ratio is offered, but not the image's own shape; pixels per side: none is no extension.
          await page.locator(".studio-extend .ant-segmented-item", { hasText: t("extend.byPixels") }).click();
          await page.click(".studio-submit");
          await expect(page.locator(".studio-field-error").textContent()).resolves.toBe(
            text(lng, "messages", "generation.errors.extendRequired"),
          );
          await page.fill("#studio-extend-right", "128");
          await page.fill("#studio-extend-top", "64");
          await page.locator("#studio-extend-top").blur();
          await expect
            .poll(() => page.getByTestId("extend-size").textContent())
            .toBe(t("extend.newSize").replace("{{size}}", "448 × 264"));
          // The preview draws the image where it sits: on the left, below the added top.
          const [canvas, image] = await Promise.all([
            page.locator(".extend-preview").boundingBox(),
            page.locator(".extend-preview-image").boundingBox(),
          ]);
          expect(Math.abs(image!.x - canvas!.x)).toBeLessThanOrEqual(1);
          expect(image!.y).toBeGreaterThan(canvas!.y + 5);
          expect(image!.width / canvas!.width).toBeCloseTo(320 / 448, 1);
        },
      });
      expect(body.extend).toEqual({ top: 64, right: 128, bottom: 0, left: 0 });
      expect(generation.params.extend).toEqual({ top: 64, right: 128, bottom: 0, left: 0 });
      await context.close();
    });

    it(`removes the background on a ${device}: no prompt, and the result on a checkerboard`, async () => {
      const { body, page, context } = await runTool({
        tool: "remove-background",
        lng,
        viewport,
        email: `cutter-${device}@example.com`,
        giveInput: upload("portrait.png"),
        prepare: async (page) => {
          await expect(page.locator("#studio-prompt").count()).resolves.toBe(0);
        },
      });
      expect(body.prompt).toBeUndefined();
      const background = await page
        .locator(".result-images img")
        .first()
        .evaluate((img) => getComputedStyle(img).backgroundImage);
      expect(background).toContain("linear-gradient");
      await context.close();
    });
  }

  it("upscales a picture picked from the gallery ×4 on a desktop, the result's size shown before", async () => {
    const lng = "de";
    const call = pageApi(server, server.url);
    let made = "";
    let picked = "";
    const { generation, context } = await runTool({
      tool: "upscale",
      lng,
      viewport: DESKTOP,
      email: "enlarger@example.com",
      // A finished image of the user's own, to pick.
      setup: async (cookie) => {
        const res = await call("POST", "/api/generations", cookie, {
          tool: "text-to-image",
          model: "demo-image",
          prompt: "A fox",
          aspectRatio: "4:3",
        });
        made = ((await res.json()) as { generation: { id: string } }).generation.id;
        const read = async () =>
          ((await (await call("GET", `/api/generations/${made}`, cookie)).json()) as { generation: Generation })
            .generation;
        await expect.poll(async () => (await read()).status, { timeout: 60_000 }).toBe("succeeded");
        picked = (await read()).outputs[0]!.id;
      },
      giveInput: async (page) => {
        await page.locator(".studio-dropzone .ant-btn").nth(1).click();
        await page.locator(".studio-picker button").first().click();
        return picked;
      },
      prepare: async (page) => {
        await expect(page.locator("#studio-prompt").count()).resolves.toBe(1);
        await page.locator(".ant-segmented-item", { hasText: "×4" }).click();
        // The demo's 4:3 picture is 1024 × 768.
        await expect(page.getByTestId("upscale-size").textContent()).resolves.toBe(
          text(lng, "studio", "upscale.result").replace("{{size}}", "4096 × 3072"),
        );
        await page.locator(".ant-segmented-item", { hasText: "×2" }).click();
        await expect(page.getByTestId("upscale-size").textContent()).resolves.toBe(
          text(lng, "studio", "upscale.result").replace("{{size}}", "2048 × 1536"),
        );
      },
    });
    expect(generation.params.scale).toBe(2);
    expect(generation.input?.id).toBe(picked);
    expect(made).not.toBe(generation.id);
    expect(generation.outputs[0]!.width).toBe(generation.input!.width! * 2);
    await context.close();
  });

  it("keeps a scale and a prompt chosen before the page's scripts ran", async () => {
    const { context, cookie } = await signedInContext(browser, server, "hasty@example.com", { viewport: PHONE });
    const { page, release } = await openBeforeScripts(context, `${server.url}/dashboard/image/create/upscale`);
    await page.locator(".ant-segmented-item", { hasText: "×4" }).click();
    await page.fill("#studio-prompt", "Typed before the scripts");
    release();
    await hydrated(page, ".studio-form");
    await page.setInputFiles("[data-testid=input-image-file]", {
      name: "early.png",
      mimeType: "image/png",
      buffer: await png(200, 100, { r: 200, g: 80, b: 40 }),
    });
    await expect
      .poll(() => page.getByTestId("upscale-size").textContent())
      .toBe(text("en", "studio", "upscale.result").replace("{{size}}", "800 × 400"));
    await page.click(".studio-submit");
    const card = page.locator(".gen-card").first();
    await card.waitFor();
    const { generation } = (await (
      await pageApi(server, server.url)("GET", `/api/generations/${await card.getAttribute("data-id")}`, cookie)
    ).json()) as { generation: Generation & { prompt: string } };
    expect(generation.params.scale).toBe(4);
    expect(generation.prompt).toBe("Typed before the scripts");
    await context.close();
  });

  it("upscales an uploaded picture on a phone", async () => {
    const { generation, context } = await runTool({
      tool: "upscale",
      lng: "ja",
      viewport: PHONE,
      email: "enlarger-phone@example.com",
      giveInput: upload("small.png", 300, 200),
      prepare: async (page) => {
        await page.locator(".ant-segmented-item", { hasText: "×4" }).click();
        await expect(page.getByTestId("upscale-size").textContent()).resolves.toBe(
          text("ja", "studio", "upscale.result").replace("{{size}}", "1200 × 800"),
        );
      },
    });
    expect(generation.params.scale).toBe(4);
    expect(generation.outputs[0]!.width).toBe(1200);
    await context.close();
  });
});

describe("image tools no offered model serves", () => {
  let server: TestServer;
  let browser: Browser;
  let openai: FakeOpenAI;

  beforeAll(async () => {
    // The fake first: a port handed out by freePort is free only until something else listens.
    openai = await startFakeOpenAI();
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        // No demo models: OpenAI's image model makes images from text and from an image, nothing else.
        DEMO_MODELS: "false",
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: `${openai.url}/v1`,
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await openai?.close();
  });

  it("offers only the tools some model serves, and says so on the page of one none serves", async () => {
    const { context } = await signedInContext(browser, server, "unserved@example.com", { viewport: PHONE });
    const { page, problems } = await open(context, `${server.url}/de/dashboard/image/create/upscale`);
    await expect(page.locator("h1").textContent()).resolves.toBe(text("de", "studio", "tools.upscale.title"));
    await expect(page.getByTestId("tool-unserved").locator(".ant-empty-description").textContent()).resolves.toBe(
      text("de", "studio", "unserved"),
    );
    await expect(page.locator(".studio-form").count()).resolves.toBe(0);
    const links = page.locator(".studio-switcher a");
    await expect(links.allTextContents()).resolves.toEqual([
      text("de", "studio", "tools.text-to-image.title"),
      text("de", "studio", "tools.image-to-image.title"),
    ]);
    await links.nth(1).click();
    await page.waitForURL(`${server.url}/de${toolPath("image-to-image")}`);
    await page.locator(".studio-form").waitFor();
    // The workspace of an unserved tool is a page too, not a 404.
    expect((await context.request.get(`${server.url}${toolPath("remove-background")}`)).status()).toBe(200);
    // The dashboard home offers the served image tools and the video studio.
    await page.goto(`${server.url}/de/dashboard/home`);
    await expect(page.locator(".dash-action strong").allTextContents()).resolves.toEqual([
      text("de", "studio", "tools.text-to-image.title"),
      text("de", "studio", "tools.image-to-image.title"),
      text("de", "studio", "tools.text-to-video.title"),
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
