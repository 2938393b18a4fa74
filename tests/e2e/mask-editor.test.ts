import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

const t = (key: string) => text("en", "studio", key);

const PATH = "/dashboard/__test/mask-editor";
const WIDTH = 640;
const HEIGHT = 480;
const WHITE = 255;
const BLACK = 0;

interface Mask {
  name: string;
  width: number;
  height: number;
  /** The red channel of (x, y), and whether the pixel is opaque. */
  at(x: number, y: number): number;
  opaque(x: number, y: number): boolean;
}

/** What the editor gave last, once it has given something after `after`: the PNG decoded, or null for no mask. */
async function nextMask(page: Page, after: number): Promise<{ version: number; mask: Mask | null }> {
  const handle = await page.waitForFunction((v) => {
    const out = document.querySelector<HTMLElement>("[data-testid=mask-result]");
    const version = Number(out?.dataset.version ?? 0);
    return version > v ? { version, value: out!.textContent ?? "" } : null;
  }, after);
  const { version, value } = (await handle.jsonValue()) as { version: number; value: string };
  if (!value) return { version, mask: null };
  const [name, url] = value.split("|") as [string, string];
  expect(url.startsWith("data:image/png;base64,")).toBe(true);
  const png = Buffer.from(url.slice("data:image/png;base64,".length), "base64");
  expect((await sharp(png).metadata()).format).toBe("png");
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const offset = (x: number, y: number) => (Math.round(y) * info.width + Math.round(x)) * info.channels;
  return {
    version,
    mask: {
      name,
      width: info.width,
      height: info.height,
      at: (x, y) => data[offset(x, y)]!,
      opaque: (x, y) => data[offset(x, y) + 3] === 255,
    },
  };
}

/** Turns image pixels into the page's coordinates, from where the canvas is shown now. */
async function screenOf(page: Page) {
  const box = (await page.getByTestId("mask-canvas").boundingBox())!;
  return (x: number, y: number) => ({ x: box.x + (x / WIDTH) * box.width, y: box.y + (y / HEIGHT) * box.height });
}

/** A stroke with the mouse through points given in image pixels. */
async function mouseStroke(page: Page, points: [number, number][]) {
  const at = await screenOf(page);
  const [first, ...rest] = points.map(([x, y]) => at(x, y));
  await page.mouse.move(first!.x, first!.y);
  await page.mouse.down();
  for (const p of rest) await page.mouse.move(p.x, p.y, { steps: 6 });
  await page.mouse.up();
}

/**
 * A stroke with one finger, through the browser's own touch input, through points given in image pixels. The
 * session stays open: closed straight after the touch ends, the browser would take the next tap for part of it.
 */
async function touchStroke(context: BrowserContext, page: Page, points: [number, number][]) {
  const at = await screenOf(page);
  const cdp = await context.newCDPSession(page);
  const [first, ...rest] = points.map(([x, y]) => at(x, y));
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [first!] });
  for (const p of rest) await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [p] });
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
}

async function open(context: BrowserContext) {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  const res = await page.goto(`${PATH}`, { waitUntil: "networkidle" });
  expect(res?.status()).toBe(200);
  await hydrated(page, "[data-testid=mask-canvas]");
  return { page, problems };
}

const clickTool = (page: Page, name: string) => page.getByRole("button", { name }).click();
const pressed = (page: Page, name: string) => page.getByRole("button", { name }).getAttribute("aria-pressed");

describe("the mask editor in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let desktop: BrowserContext;
  let phone: BrowserContext;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ TEST_ROUTES: "1" }), launchBrowser()]);
    ({ context: desktop } = await signedInContext(browser, server, "painter@example.com", {
      viewport: { width: 1366, height: 900 },
      baseURL: server.url,
    }));
    ({ context: phone } = await signedInContext(browser, server, "pocket@example.com", {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
      baseURL: server.url,
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("is not there without TEST_ROUTES", async () => {
    const plain = await startServer();
    try {
      const { context } = await signedInContext(browser, plain, "plain@example.com");
      const page = await context.newPage();
      const res = await page.goto(`${plain.url}${PATH}`);
      expect(res?.status()).toBe(404);
      await context.close();
    } finally {
      await plain.close();
    }
  });

  it("on a desktop, paints with the mouse into a PNG of the image's size; erases, undoes, redoes, inverts, clears", async () => {
    const { page, problems } = await open(desktop);
    await expect(page.getByText(t("mask.hint")).isVisible()).resolves.toBe(true);
    // Shown smaller than the image's own size (in the studio's form column), and the mask is still 640×480.
    const shown = (await page.getByTestId("mask-canvas").boundingBox())!;
    expect(shown.width).toBeLessThan(WIDTH);
    expect(shown.height / shown.width).toBeCloseTo(HEIGHT / WIDTH, 1);

    expect(await pressed(page, t("mask.brush"))).toBe("true");
    expect(await pressed(page, t("mask.eraser"))).toBe("false");
    await expect(page.getByRole("button", { name: t("mask.undo") }).isDisabled()).resolves.toBe(true);

    // A horizontal line across the upper part, 24 pixels wide (the brush's size for a 640×480 image).
    await mouseStroke(page, [
      [100, 100],
      [540, 100],
    ]);
    let { version, mask } = await nextMask(page, 0);
    expect(mask).not.toBeNull();
    expect(mask!.name).toBe("mask.png");
    expect([mask!.width, mask!.height]).toEqual([WIDTH, HEIGHT]);
    for (const [x, y] of [
      [100, 100],
      [320, 100],
      [540, 100],
      [320, 94],
      [320, 106],
    ] as const) {
      expect(mask!.at(x, y), `(${x}, ${y}) under the stroke`).toBe(WHITE);
    }
    for (const [x, y] of [
      [0, 0],
      [320, 80],
      [320, 120],
      [60, 100],
      [580, 100],
      [320, 400],
      [639, 479],
    ] as const) {
      expect(mask!.at(x, y), `(${x}, ${y}) away from it`).toBe(BLACK);
      expect(mask!.opaque(x, y)).toBe(true);
    }

    // The eraser takes a gap out of the middle of the line.
    await clickTool(page, t("mask.eraser"));
    expect(await pressed(page, t("mask.eraser"))).toBe("true");
    expect(await pressed(page, t("mask.brush"))).toBe("false");
    await mouseStroke(page, [
      [320, 60],
      [320, 140],
    ]);
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(320, 100)).toBe(BLACK);
    expect(mask!.at(150, 100)).toBe(WHITE);

    // Undo with the button brings the gap's pixels back; redo and undo again from the keyboard.
    await page.getByRole("button", { name: t("mask.undo") }).click();
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(320, 100)).toBe(WHITE);
    await page.keyboard.press("Control+Shift+Z");
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(320, 100)).toBe(BLACK);
    await page.keyboard.press("Control+Z");
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(320, 100)).toBe(WHITE);
    await page.keyboard.press("Control+Y");
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(320, 100)).toBe(BLACK);
    await expect(page.getByRole("button", { name: t("mask.redo") }).isDisabled()).resolves.toBe(true);

    // Invert: what was kept is now to change, and the other way round.
    await page.getByRole("button", { name: t("mask.invert") }).click();
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(320, 400)).toBe(WHITE);
    expect(mask!.at(0, 0)).toBe(WHITE);
    expect(mask!.at(150, 100)).toBe(BLACK);
    expect(mask!.at(320, 100)).toBe(WHITE);

    // Clear leaves nothing to change: no mask at all. Undo brings the inverted mask back.
    await page.getByRole("button", { name: t("mask.clear") }).click();
    ({ version, mask } = await nextMask(page, version));
    expect(mask).toBeNull();
    await expect(page.getByRole("button", { name: t("mask.clear") }).isDisabled()).resolves.toBe(true);
    await page.keyboard.press("Meta+Z");
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(320, 400)).toBe(WHITE);
    expect(mask!.at(150, 100)).toBe(BLACK);

    // Erasing everything that was painted also leaves no mask.
    await page.getByRole("button", { name: t("mask.clear") }).click();
    ({ version } = await nextMask(page, version));
    await clickTool(page, t("mask.brush"));
    await mouseStroke(page, [
      [200, 300],
      [260, 300],
    ]);
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(230, 300)).toBe(WHITE);
    await clickTool(page, t("mask.eraser"));
    // Wider than the brush went, so that no anti-aliased edge is left of it.
    await mouseStroke(page, [
      [190, 292],
      [270, 292],
      [270, 308],
      [190, 308],
    ]);
    ({ mask } = await nextMask(page, version));
    expect(mask).toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });

  it("the brush size sets the stroke's width in image pixels; a tap paints a dot", async () => {
    const { page } = await open(desktop);
    const slider = page.getByRole("slider", { name: t("mask.size") });
    await slider.focus();
    await page.keyboard.press("End");
    await expect(slider.inputValue()).resolves.toBe("120");
    const at = await screenOf(page);
    const centre = at(320, 240);
    await page.mouse.click(centre.x, centre.y);
    const { mask } = await nextMask(page, 0);
    // A dot of 120 pixels across: 55 pixels from its centre is inside it, 65 outside.
    expect(mask!.at(320 + 55, 240)).toBe(WHITE);
    expect(mask!.at(320, 240 - 55)).toBe(WHITE);
    expect(mask!.at(320 + 65, 240)).toBe(BLACK);
    expect(mask!.at(320, 240 + 65)).toBe(BLACK);
    await page.close();
  });

  it("a form that forgets the mask clears the editor; one handed back is painted on", async () => {
    const { page } = await open(desktop);
    await mouseStroke(page, [
      [100, 100],
      [200, 100],
    ]);
    let { version, mask } = await nextMask(page, 0);
    expect(mask!.at(150, 100)).toBe(WHITE);
    await page.getByTestId("mask-keep").evaluate((b: HTMLElement) => b.click());
    await page.getByTestId("mask-forget").evaluate((b: HTMLElement) => b.click());
    ({ version } = await nextMask(page, version));
    await expect(page.getByRole("button", { name: t("mask.clear") }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole("button", { name: t("mask.undo") }).isDisabled()).resolves.toBe(true);

    // Handed back, the kept mask is the editor's first edit: a new stroke adds to it.
    await page.getByTestId("mask-restore").evaluate((b: HTMLElement) => b.click());
    ({ version } = await nextMask(page, version));
    await page.waitForFunction(() => !document.querySelector<HTMLButtonElement>("[data-testid=mask-clear]")!.disabled);
    await mouseStroke(page, [
      [400, 300],
      [500, 300],
    ]);
    ({ mask } = await nextMask(page, version));
    expect(mask!.at(150, 100)).toBe(WHITE);
    expect(mask!.at(450, 300)).toBe(WHITE);
    expect(mask!.at(300, 200)).toBe(BLACK);
    await page.close();
  });

  it("on a phone, fits the screen and paints with a finger and with the mouse, in the image's own pixels", async () => {
    const { page, problems } = await open(phone);
    const shown = (await page.getByTestId("mask-canvas").boundingBox())!;
    expect(shown.x).toBeGreaterThanOrEqual(0);
    expect(shown.x + shown.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expect(page.getByRole("button", { name: t("mask.invert") }).isVisible()).resolves.toBe(true);

    // The tools answer taps.
    await page.getByRole("button", { name: t("mask.eraser") }).tap();
    expect(await pressed(page, t("mask.eraser"))).toBe("true");
    await page.getByRole("button", { name: t("mask.brush") }).tap();
    expect(await pressed(page, t("mask.brush"))).toBe("true");

    // A diagonal with a finger, from the upper left towards the lower right.
    await touchStroke(phone, page, [
      [80, 60],
      [160, 120],
      [240, 180],
      [320, 240],
    ]);
    let { version, mask } = await nextMask(page, 0);
    expect([mask!.width, mask!.height]).toEqual([WIDTH, HEIGHT]);
    for (const [x, y] of [
      [80, 60],
      [200, 150],
      [320, 240],
    ] as const) {
      expect(mask!.at(x, y), `(${x}, ${y}) under the finger`).toBe(WHITE);
    }
    expect(mask!.at(320, 60)).toBe(BLACK);
    expect(mask!.at(80, 240)).toBe(BLACK);
    expect(mask!.at(400, 300)).toBe(BLACK);

    await mouseStroke(page, [
      [400, 400],
      [600, 400],
    ]);
    ({ version, mask } = await nextMask(page, version));
    expect(mask!.at(500, 400)).toBe(WHITE);
    expect(mask!.at(200, 150)).toBe(WHITE);
    expect(mask!.at(500, 300)).toBe(BLACK);

    await page.getByRole("button", { name: t("mask.undo") }).click();
    ({ mask } = await nextMask(page, version));
    expect(mask!.at(500, 400)).toBe(BLACK);
    expect(mask!.at(200, 150)).toBe(WHITE);
    expect(problems).toEqual([]);
    await page.close();
  });
});
