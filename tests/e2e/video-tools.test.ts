import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { freePort, runRole, startServer, tempDir, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { pageApi, signedInContext, uploadImage } from "#tests/support/session.ts";
import { IMAGE_ASPECT_RATIOS, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_STYLES } from "#common/generation.ts";
import { toolPath } from "#common/tools.ts";

/**
 * Two models the operator added on the offline demo's engines: a video model that animates images too, priced per
 * second, twice as dear from an image and at 720p, with sound and a setting of its own; and an image model that
 * takes no seed.
 */
const CATALOG = [
  {
    id: "motion-video",
    kind: "video",
    name: "Motion Video",
    enabled: true,
    visibility: "everyone",
    position: 0,
    tools: ["text-to-video", "image-to-video"],
    bindings: [{ provider: "demo", model: "demo-video" }],
    price: {
      unit: "videoSecond",
      credits: 1,
      multipliers: { tool: { "image-to-video": 2 }, resolution: { "720p": 2 } },
    },
    options: {
      aspectRatios: [...VIDEO_ASPECT_RATIOS],
      maxCount: 1,
      durations: [...VIDEO_DURATIONS],
      styles: [...VIDEO_STYLES],
      negativePrompt: false,
      seed: true,
      strength: false,
      audio: true,
      resolutions: ["480p", "720p"],
    },
    parameters: [
      {
        name: "camera_motion",
        type: "string",
        label: "Camera motion",
        choices: ["static", "pan"],
        default: "static",
      },
    ],
    expectedSeconds: 2,
    timeoutSeconds: 120,
  },
  {
    id: "still-image",
    kind: "image",
    name: "Still Image",
    enabled: true,
    visibility: "everyone",
    position: 1,
    tools: ["text-to-image"],
    bindings: [{ provider: "demo", model: "demo-image" }],
    price: { unit: "image", credits: 1 },
    options: {
      aspectRatios: [...IMAGE_ASPECT_RATIOS],
      maxCount: 1,
      negativePrompt: false,
      seed: false,
      strength: false,
    },
    expectedSeconds: 1,
    timeoutSeconds: 60,
  },
];

const I2V = toolPath("image-to-video");
const T2I = toolPath("text-to-image");
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

interface View {
  id: string;
  tool: string;
  status: string;
  prompt: string;
  model: { id: string };
  params: { seed?: number; resolution?: string; audio?: boolean; options?: Record<string, unknown> };
  creditsCharged: number | null;
  outputs: { id: string }[];
  input: { id: string } | null;
  end: { id: string } | null;
}

async function open(context: BrowserContext, url: string, ready = ".studio-form, .dash-page") {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(url);
  await hydrated(page, ready);
  return { page, problems };
}

const balance = async (page: Page) =>
  Number((await page.locator(".credit-balance-value").first().textContent())!.replace(/\D/g, ""));
const shownCost = async (page: Page) =>
  Number(/\d+/.exec((await page.locator(".studio-cost strong").first().textContent())!)![0]);

const png = (r: number, g: number, b: number) =>
  sharp({ create: { width: 480, height: 270, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

describe("image to video and making more from a result, in Chromium on the offline models", () => {
  let server: TestServer;
  let browser: Browser;
  let api: ReturnType<typeof pageApi>;
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
    api = pageApi(server, server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    for (const dir of [dataDir, catalogDir]) rmSync(dir, { recursive: true, force: true });
  });

  const read = async (cookie: string, id: string): Promise<View> =>
    ((await (await api("GET", `/api/generations/${id}`, cookie)).json()) as { generation: View }).generation;
  /** Starts a generation over the pages' API and waits for it to end. */
  async function made(cookie: string, body: object): Promise<View> {
    const res = await api("POST", "/api/generations", cookie, body);
    expect(res.status).toBe(201);
    const { generation } = (await res.json()) as { generation: View };
    await expect.poll(async () => (await read(cookie, generation.id)).status, { timeout: 60_000 }).toBe("succeeded");
    return read(cookie, generation.id);
  }
  /** Waits for the video just started on the page to finish, and opens its result page. */
  async function finishedVideo(page: Page): Promise<string> {
    const card = page.locator(".gen-card").first();
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 120_000 });
    const id = (await card.getAttribute("data-id"))!;
    await card.locator(".gen-card-prompt").click();
    await page.waitForURL(new RegExp(`${I2V}/${id}$`));
    await hydrated(page, ".result-side");
    return id;
  }

  it.each([
    ["desktop", "en", DESKTOP],
    ["phone", "ja", PHONE],
  ] as const)("animates an image result from its page (%s), charged the cost it quoted", async (_, lng, viewport) => {
    const { context, cookie } = await signedInContext(browser, server, `animate-${lng}@example.com`, { viewport });
    const prefix = lng === "en" ? "" : `/${lng}`;
    const t = (key: string) => text(lng, "studio", key);
    const image = await made(cookie, {
      tool: "text-to-image",
      model: "demo-image",
      prompt: "A lighthouse on a cliff at dusk",
    });
    const { page, problems } = await open(context, `${server.url}${prefix}${T2I}/${image.id}`, ".result-side");
    // Every tool the offered models serve is there, with variations.
    for (const label of ["animate", "edit", "extend", "upscale", "removeBackground", "variations"]) {
      await expect(
        page
          .locator(".result-chain-actions")
          .getByText(t(`actions.${label}`))
          .count(),
      ).resolves.toBe(1);
    }
    await page.locator(".result-chain-actions [data-tool=image-to-video]").click();
    await page.waitForURL(`${server.url}${prefix}${I2V}?input=${image.outputs[0]!.id}`);
    await hydrated(page, ".studio-form");
    await expect(page.locator("h1").textContent()).resolves.toBe(t("tools.image-to-video.title"));
    // The image is in, and both video tools are a click away.
    await expect(page.locator("#video-input .studio-input-chosen img").getAttribute("src")).resolves.toBe(
      `/media/${image.outputs[0]!.id}/thumb.webp`,
    );
    await expect(page.locator(".video-tools a").allTextContents()).resolves.toEqual([
      t("tools.text-to-video.title"),
      t("tools.image-to-video.title"),
    ]);
    await page.fill("#video-prompt", "The camera pushes in as the light turns on");
    // Motion Video from an image: 5 s × 1 credit × 2.
    await expect.poll(() => shownCost(page)).toBe(10);
    const quoted = await shownCost(page);
    const before = await balance(page);
    await page.click(".studio-submit");
    const id = await finishedVideo(page);

    const chain = page.getByTestId("made-from");
    await expect(chain.locator("h2").textContent()).resolves.toContain(t("chain.madeFrom"));
    const link = chain.locator("a");
    await expect(link.getAttribute("href")).resolves.toBe(`${prefix}${T2I}/${image.id}`);
    await expect(link.locator("img").getAttribute("src")).resolves.toBe(`/media/${image.outputs[0]!.id}/thumb.webp`);
    await expect.poll(() => balance(page)).toBe(before - quoted);
    const video = await read(cookie, id);
    expect(video).toMatchObject({
      tool: "image-to-video",
      creditsCharged: quoted,
      input: { id: image.outputs[0]!.id },
    });
    if (viewport === PHONE)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // The image's page now lists what was made from it.
    await link.click();
    await page.waitForURL(`${server.url}${prefix}${T2I}/${image.id}`);
    await page.getByTestId("made-from-this").locator(`a[href$="${id}"]`).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it.each([
    ["desktop", "en", DESKTOP],
    ["phone", "de", PHONE],
  ] as const)("animates an uploaded start image towards an uploaded end frame (%s)", async (_, lng, viewport) => {
    const { context, cookie } = await signedInContext(browser, server, `frames-${lng}@example.com`, { viewport });
    const prefix = lng === "en" ? "" : `/${lng}`;
    const t = (key: string) => text(lng, "studio", key);
    // The prompt typed before the page's scripts ran is kept.
    const early = await openBeforeScripts(context, `${server.url}${prefix}${I2V}`);
    await early.page.fill("#video-prompt", "Von Blau nach Rot");
    early.release();
    await hydrated(early.page, ".studio-form");
    const page = early.page;
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await expect.poll(() => page.inputValue("#video-prompt")).toBe("Von Blau nach Rot");
    await expect(page.locator("#video-end-label").textContent()).resolves.toBe(t("form.endImage"));

    // Without a start image nothing is sent.
    await page.click(".studio-submit");
    await expect(page.locator(".studio-field-error").textContent()).resolves.toBe(
      text(lng, "messages", "generation.errors.startImageRequired"),
    );
    await page.setInputFiles("#video-input [data-testid=input-image-file]", {
      name: "blue.png",
      mimeType: "image/png",
      buffer: await png(30, 80, 220),
    });
    await page.locator("#video-input .studio-input-chosen img").waitFor();
    await page.setInputFiles("#video-end [data-testid=input-image-file]", {
      name: "red.png",
      mimeType: "image/png",
      buffer: await png(220, 40, 30),
    });
    await page.locator("#video-end .studio-input-chosen img").waitFor();
    await expect(page.locator("#video-input .studio-input-label").textContent()).resolves.toBe("blue.png");
    await expect(page.locator("#video-end .studio-input-label").textContent()).resolves.toBe("red.png");
    await expect(page.locator(".studio-field-error").count()).resolves.toBe(0);
    const quoted = await shownCost(page);
    const before = await balance(page);
    await page.click(".studio-submit");
    const id = await finishedVideo(page);

    const video = await read(cookie, id);
    expect(video.input).not.toBeNull();
    expect(video.end).not.toBeNull();
    expect(video.creditsCharged).toBe(quoted);
    // The page shows both frames it was given, and no parent (the images were uploads).
    const given = page.locator(".result-chain-given li");
    await expect(given.allTextContents()).resolves.toEqual([t("form.startImage"), t("chain.endFrame")]);
    await expect(given.locator("img").first().getAttribute("src")).resolves.toMatch(`/media/${video.input!.id}`);
    await expect(page.getByTestId("made-from").count()).resolves.toBe(0);
    await expect.poll(() => balance(page)).toBe(before - quoted);
    if (viewport === PHONE)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("reuses a video's settings: its resolution, sound, own setting and both frames", async () => {
    const { context, cookie } = await signedInContext(browser, server, "reuse@example.com");
    const [start, end] = await Promise.all([
      uploadImage(server, server.url, cookie),
      uploadImage(server, server.url, cookie),
    ]);
    const video = await made(cookie, {
      tool: "image-to-video",
      model: "motion-video",
      prompt: "Slow pan over the harbour",
      duration: 5,
      resolution: "720p",
      audio: true,
      options: { camera_motion: "pan" },
      inputAssetId: start,
      endAssetId: end,
    });
    const { page, problems } = await open(context, `${server.url}${I2V}/${video.id}`, ".result-side");
    await page.getByRole("button", { name: text("en", "studio", "actions.reuse") }).click();
    await page.waitForURL(`${server.url}${I2V}?from=${video.id}`);
    await hydrated(page, ".studio-form");
    await expect(page.inputValue("#video-prompt")).resolves.toBe("Slow pan over the harbour");
    await expect(page.locator("#video-resolution .ant-segmented-item-selected").textContent()).resolves.toBe("720p");
    await expect(page.locator("#video-audio").getAttribute("aria-checked")).resolves.toBe("true");
    await page.locator("#video-advanced summary").click();
    await expect(page.locator("#video-advanced").textContent()).resolves.toContain("pan");
    await expect(page.locator("#video-input .studio-input-chosen img").getAttribute("src")).resolves.toMatch(
      `/media/${start}`,
    );
    await expect(page.locator("#video-end .studio-input-chosen img").getAttribute("src")).resolves.toMatch(
      `/media/${end}`,
    );
    // Priced as the first one was charged.
    await expect.poll(() => shownCost(page)).toBe(video.creditsCharged);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("makes variations: the same request with a new seed, linked to its source and charged once", async () => {
    const { context, cookie } = await signedInContext(browser, server, "variations@example.com");
    const source = await made(cookie, {
      tool: "text-to-image",
      model: "demo-image",
      prompt: "A red kite over green hills",
      aspectRatio: "16:9",
      seed: 42,
    });
    const { page, problems } = await open(context, `${server.url}${T2I}/${source.id}`, ".result-side");
    const before = await balance(page);
    await page.getByRole("button", { name: text("en", "studio", "actions.variations") }).click();
    await page.waitForURL((url) => url.pathname.startsWith(`${T2I}/`) && !url.pathname.endsWith(source.id));
    await hydrated(page, ".result-side");
    const id = page.url().split("/").pop()!;
    await expect(page.getByTestId("made-from").locator("a").getAttribute("href")).resolves.toBe(`${T2I}/${source.id}`);
    await expect.poll(async () => (await read(cookie, id)).status, { timeout: 60_000 }).toBe("succeeded");
    const variation = await read(cookie, id);
    expect(variation).toMatchObject({ tool: "text-to-image", model: { id: "demo-image" }, prompt: source.prompt });
    expect((variation.params as { aspectRatio?: string }).aspectRatio).toBe("16:9");
    expect(variation.params.seed).toEqual(expect.any(Number));
    expect(variation.params.seed).not.toBe(42);
    await expect.poll(() => balance(page)).toBe(before - 1);
    const list = (await (await api("GET", "/api/generations?limit=10", cookie)).json()) as { items: View[] };
    expect(list.items).toHaveLength(2);

    // A model without seeds varies too, with none sent; from the card's menu in the list.
    const still = await made(cookie, { tool: "text-to-image", model: "still-image", prompt: "A still pond" });
    await page.goto(`${server.url}${T2I}`);
    await hydrated(page, ".studio-form");
    const card = page.locator(`.gen-card[data-id="${still.id}"]`);
    await card.locator(".gen-card-actions").click();
    await page.locator(".ant-dropdown-menu-item", { hasText: text("en", "studio", "actions.variations") }).click();
    await page.waitForURL((url) => url.pathname.startsWith(`${T2I}/`));
    const second = page.url().split("/").pop()!;
    await expect.poll(async () => (await read(cookie, second)).status, { timeout: 60_000 }).toBe("succeeded");
    const seedless = await read(cookie, second);
    expect(seedless.params.seed).toBeUndefined();
    expect(seedless.prompt).toBe("A still pond");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("names any tool on a share page, and links the parent there only once it is public too", async () => {
    const { context, cookie } = await signedInContext(browser, server, "sharer-chain@example.com");
    const image = await made(cookie, { tool: "text-to-image", model: "demo-image", prompt: "A harbour at dawn" });
    const video = await made(cookie, {
      tool: "image-to-video",
      model: "demo-video",
      prompt: "Boats rocking in the harbour",
      inputAssetId: image.outputs[0]!.id,
    });
    const share = (id: string) => api("PATCH", `/api/generations/${id}`, cookie, { visibility: "public" });
    expect((await share(video.id)).status).toBe(200);
    const stranger = await browser.newContext({ viewport: PHONE });
    const page = await stranger.newPage();
    await page.goto(`${server.url}/ja/share/${video.id}`);
    await expect(page.locator(".share-tool").textContent()).resolves.toBe(
      text("ja", "studio", "tools.image-to-video.title"),
    );
    await expect(page.getByTestId("made-from").count()).resolves.toBe(0);
    expect((await share(image.id)).status).toBe(200);
    await page.reload();
    const link = page.getByTestId("made-from").locator("a");
    await expect(link.getAttribute("href")).resolves.toBe(`/ja/share/${image.id}`);
    await expect(link.textContent()).resolves.toBe(text("ja", "studio", "tools.text-to-image.title"));
    await Promise.all([stranger.close(), context.close()]);
  });

  it("starts a tool with the viewer's own image only: someone else's is ignored", async () => {
    const { cookie: ownerCookie } = await signedInContext(browser, server, "owner-input@example.com");
    const theirs = await uploadImage(server, server.url, ownerCookie);
    const { context, cookie } = await signedInContext(browser, server, "other-input@example.com");
    const mine = await uploadImage(server, server.url, cookie);
    for (const tool of [I2V, toolPath("image-to-image")]) {
      const { page, problems } = await open(context, `${server.url}${tool}?input=${theirs}`);
      await expect(page.locator(".studio-input-chosen").count()).resolves.toBe(0);
      await page.goto(`${server.url}${tool}?input=${mine}`);
      await hydrated(page, ".studio-form");
      await expect(page.locator(".studio-input-chosen img").first().getAttribute("src")).resolves.toMatch(
        `/media/${mine}`,
      );
      await page.goto(`${server.url}${tool}?input=not-an-id`);
      await hydrated(page, ".studio-form");
      await expect(page.locator(".studio-input-chosen").count()).resolves.toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    }
    await context.close();
  });
});
