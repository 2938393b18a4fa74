import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, settled } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { pageApi, signedInContext } from "#tests/support/session.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";

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

const balance = (page: Page) => page.locator(".credit-balance-value").first();

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const boxOf = (page: Page, selector: string): Promise<Box[]> =>
  page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * A finished generation's thumbnail in a list: one picture covering the whole area (not strips of several), and
 * "+N" when it has more than one.
 */
async function expectWholeThumbnail(page: Page, id: string, more: number) {
  const card = `.gen-card[data-id="${id}"]`;
  const [media] = await boxOf(page, `${card} .gen-media`);
  const pictures = await boxOf(page, `${card} .gen-media img`);
  expect(pictures).toHaveLength(1);
  for (const side of ["x", "y", "width", "height"] as const) {
    expect(Math.abs(pictures[0]![side] - media![side]), side).toBeLessThanOrEqual(1);
  }
  if (more > 0) {
    const badge = page.locator(`${card} [data-testid=gen-media-more] [aria-hidden]`);
    await expect(badge.innerText()).resolves.toBe(`+${more}`);
  } else await expect(page.locator(`${card} [data-testid=gen-media-more]`).count()).resolves.toBe(0);
}

describe("the image studio in Chromium, on the offline models", () => {
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

  it("makes two images from text, shows them in place with the credits spent, then on their result page", async () => {
    const { context } = await signedInContext(browser, server, "painter@example.com");
    const { page, problems } = await open(context, `${server.url}/fr/dashboard/image/create/text-to-image`);
    const t = (key: string) => text("fr", "studio", key);
    await expect(page.locator("h1").textContent()).resolves.toBe(t("tools.text-to-image.title"));
    await expect(page.locator(".studio-model-select").textContent()).resolves.toContain(
      text("fr", "messages", "generation.offlineDemo"),
    );
    await page.fill("#studio-prompt", "Un phare sur une falaise au crépuscule");
    await page.locator(".ant-segmented-item", { hasText: "16:9" }).click();
    await page.locator(".ant-segmented-item", { hasText: /^2$/ }).click();
    await expect(page.locator(".studio-cost").textContent()).resolves.toContain("18");
    // Ctrl+Enter submits from the prompt.
    await page.focus("#studio-prompt");
    await page.keyboard.press("Control+Enter");
    const card = page.locator(".gen-card").first();
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 60_000 });
    await expectWholeThumbnail(page, (await card.getAttribute("data-id"))!, 1);
    // The offline demo's results say what they are, above the list and under each result, with the way to a provider.
    const listNotice = page.getByTestId("demo-notice");
    await expect(listNotice.textContent()).resolves.toContain(text("fr", "messages", "generation.demoHistory"));
    await expect(listNotice.getByRole("link").getAttribute("href")).resolves.toBe("/fr/docs/configuration");
    await expect(card.locator(".model-tag-offline").textContent()).resolves.toBe(
      text("fr", "messages", "generation.offlineDemo"),
    );
    await expect.poll(() => balance(page).textContent()).toBe("18");
    // The job is in the address: a reload shows it.
    expect(new URL(page.url()).searchParams.get("id")).toMatch(/^[0-9a-f-]{36}$/);
    await page.reload();
    await page.locator(".gen-card[data-status=succeeded]").waitFor();

    await page.locator(".gen-card-media").first().click();
    await page.waitForURL(/\/fr\/dashboard\/image\/7595af7e\/[0-9a-f-]{36}$/);
    await page.locator(".result-side").waitFor();
    await expect(page.locator(".result-images img").count()).resolves.toBe(2);
    const notice = page.locator(".result-main").getByTestId("demo-notice");
    await expect(notice.textContent()).resolves.toContain(text("fr", "messages", "generation.demoNotice"));
    const connect = notice.getByRole("link", { name: text("fr", "messages", "generation.demoConnect") });
    await expect(connect.getAttribute("href")).resolves.toBe("/fr/docs/configuration");
    await expect(fetch(`${server.url}/fr/docs/configuration`).then((r) => r.status)).resolves.toBe(200);
    await expect(page.locator(".result-prompt-text").textContent()).resolves.toBe(
      "Un phare sur une falaise au crépuscule",
    );
    const details = await page.locator(".result-details").textContent();
    expect(details).toContain("16:9");
    expect(details).toContain("Atelier Demo Image");
    // The download is the image itself.
    const href = await page.locator(".result-actions a[download]").first().getAttribute("href");
    const download = await fetch(`${server.url}${href}`, {
      headers: { Cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
    });
    expect(download.headers.get("content-type")).toBe("image/png");

    // The dashboard home counts the two credits spent today and lists the job.
    await page.goto(`${server.url}/fr/dashboard/home`);
    await expect(page.locator(".dash-usage-total").textContent()).resolves.toBe(
      text("fr", "dashboard", "home.usageTotal").replace("{{formatted}}", "2"),
    );
    await expect(page.locator(".usage-chart rect").count()).resolves.toBe(30);
    await expect(page.locator(".dash-recent .gen-card").count()).resolves.toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("transforms an uploaded picture, on a phone", async () => {
    const { context } = await signedInContext(browser, server, "retoucher@example.com", {
      viewport: { width: 390, height: 844 },
    });
    const { page, problems } = await open(context, `${server.url}/de/dashboard/image/create/image-to-image`);
    // Submitting without an input image says so and sends nothing.
    await page.fill("#studio-prompt", "Als Aquarell");
    await page.click(".studio-submit");
    await expect(page.locator(".studio-field-error").textContent()).resolves.toBe(
      text("de", "messages", "generation.errors.inputRequired"),
    );
    const png = await sharp({
      create: { width: 320, height: 200, channels: 3, background: { r: 40, g: 120, b: 200 } },
    })
      .png()
      .toBuffer();
    await page.setInputFiles("[data-testid=input-image-file]", {
      name: "meer.png",
      mimeType: "image/png",
      buffer: png,
    });
    await page.locator(".studio-input-chosen img").waitFor();
    await expect(page.locator(".studio-input-label").textContent()).resolves.toBe("meer.png");
    await page.click(".studio-submit");
    await page.locator(".gen-card[data-status=succeeded]").waitFor({ timeout: 60_000 });
    await page.locator(".gen-card-media").first().click();
    await page.locator(".result-input-thumb").waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shares a public result signed out, hides a private one, and deletes", async () => {
    const { context, cookie } = await signedInContext(browser, server, "sharer@example.com");
    const submitted = await fetch(`${server.url}/api/generations`, {
      method: "POST",
      headers: {
        Cookie: cookie,
        Origin: server.url,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ tool: "text-to-image", model: "demo-image", prompt: "A quiet harbour at dawn" }),
    });
    const { generation } = (await submitted.json()) as { generation: { id: string } };
    const { page } = await open(context, `${server.url}/dashboard/image/7595af7e/${generation.id}`);
    await page.locator(".result-share").waitFor({ timeout: 60_000 });
    const stranger = await browser.newContext();
    const before = await stranger.request.get(`${server.url}/share/${generation.id}`);
    expect(before.status()).toBe(404);

    await page.locator(".result-share-toggle .ant-switch").click();
    const link = page.locator(".result-share-link input");
    await link.waitFor();
    const shareUrl = await link.inputValue();
    expect(shareUrl).toBe(`${server.url}/share/${generation.id}`);
    const shared = await stranger.newPage();
    const answer = await shared.goto(shareUrl);
    expect(answer?.status()).toBe(200);
    await expect(shared.locator(".share-prompt").textContent()).resolves.toBe("A quiet harbour at dawn");
    await expect(shared.locator(".share-media img").first().isVisible()).resolves.toBe(true);

    await page.locator(".result-share-toggle .ant-switch").click();
    await link.waitFor({ state: "detached" });
    expect((await stranger.request.get(shareUrl)).status()).toBe(404);

    // Another account cannot see the result page, and an unknown tool id is no page at all.
    const { context: other } = await signedInContext(browser, server, "nosy@example.com");
    expect((await other.request.get(`${server.url}/dashboard/image/7595af7e/${generation.id}`)).status()).toBe(404);
    expect((await other.request.get(`${server.url}/dashboard/image/deadbeef/${generation.id}`)).status()).toBe(404);
    expect((await other.request.get(`${server.url}/dashboard/image/deadbeef`)).status()).toBe(404);

    await page
      .locator(".result-actions .ant-btn-dangerous", { hasText: text("en", "studio", "actions.delete") })
      .click();
    await page.locator(".ant-popconfirm .ant-btn-dangerous").click();
    await page.waitForURL(`${server.url}/dashboard/image`);
    expect((await context.request.get(`${server.url}/dashboard/image/7595af7e/${generation.id}`)).status()).toBe(404);
    await Promise.all([context.close(), stranger.close(), other.close()]);
  });

  it("keeps the prompt when the credits run short and shows the way to top up", async () => {
    const { context } = await signedInContext(browser, server, "spender@example.com");
    const { page } = await open(context, `${server.url}/es/dashboard/image/create/text-to-image`);
    // 20 credits: four images of the 1-credit model cost 4; five such requests leave nothing for a sixth.
    for (let i = 0; i < 5; i++) {
      await page.fill("#studio-prompt", `Cuadro ${i}`);
      await page.locator(".ant-segmented-item", { hasText: /^4$/ }).click();
      // The previous request has been answered (a busy button ignores the click)
      await page.locator(".studio-submit:not([aria-busy])").waitFor();
      await page.click(".studio-submit");
      // (The answer may take more than the poll's default second on a loaded machine.)
      await expect.poll(() => page.locator(".gen-card").count(), { timeout: 30_000 }).toBeGreaterThan(Math.min(i, 3));
    }
    await expect.poll(() => balance(page).textContent(), { timeout: 30_000 }).toBe("0");
    await page.fill("#studio-prompt", "Un prompt que no se pierde");
    await expect(page.locator(".studio-cost-short a").getAttribute("href")).resolves.toBe("/es/pricing");
    await page.click(".studio-submit");
    const alert = page.locator(".studio-form [role=alert]");
    // What was being done, then why it failed.
    await expect(alert.locator(".ant-alert-title").textContent()).resolves.toBe(
      text("es", "messages", "msg.generation.submitFailed"),
    );
    await expect(alert.locator(".ant-alert-description").textContent()).resolves.toBe(
      text("es", "messages", "msg.generation.insufficientCredits"),
    );
    await expect(alert.locator("a").getAttribute("href")).resolves.toBe("/es/pricing");
    await expect(page.inputValue("#studio-prompt")).resolves.toBe("Un prompt que no se pierde");

    // An answer that is not the server's (a captive portal's page, with 200) is said to be unreadable.
    await page.route("**/api/generations", (route) =>
      route.request().method() === "POST"
        ? route.fulfill({
            status: 200,
            contentType: "text/html",
            body: "<html><body>Sign in to the Wi-Fi</body></html>",
          })
        : route.fallback(),
    );
    await page.click(".studio-submit");
    await expect
      .poll(() => alert.locator(".ant-alert-title").textContent())
      .toBe(text("es", "messages", "msg.generation.parseResponseError"));
    await expect(page.inputValue("#studio-prompt")).resolves.toBe("Un prompt que no se pierde");
    await context.close();
  });

  it("shows results of several images whole with +N, and cards of one shape on the dashboard home", async () => {
    const { context, cookie } = await signedInContext(browser, server, "curator@example.com", {
      viewport: { width: 1366, height: 900 },
    });
    const call = pageApi(server, server.url);
    const make = async (input: object) => {
      const res = await call("POST", "/api/generations", cookie, input);
      expect(res.status).toBe(201);
      return ((await res.json()) as { generation: { id: string } }).generation.id;
    };
    const four = await make({ tool: "text-to-image", model: "demo-image", prompt: "Four foxes", count: 4 });
    const one = await make({ tool: "text-to-image", model: "demo-image", prompt: "One fox" });
    const status = async (id: string) =>
      ((await (await call("GET", `/api/generations/${id}`, cookie)).json()) as { generation: { status: string } })
        .generation.status;
    // A video from its studio: the notice that it is done covers none of the header's controls (the balance, the
    // menu).
    const studio = await open(context, `${server.url}/dashboard/video/create`);
    await studio.page.fill("#video-prompt", "Paper boats drifting down a rainy street at night");
    await studio.page.click(".studio-submit");
    const done = studio.page.locator(".ant-notification-notice", {
      hasText: text("en", "messages", "msg.generation.videoCompleted"),
    });
    await done.waitFor({ timeout: 120_000 });
    await settled(studio.page, ".ant-notification");
    const [notice] = await boxOf(studio.page, ".ant-notification-notice");
    for (const control of await boxOf(studio.page, ".dash-header-tools > *")) {
      expect(overlaps(notice!, control)).toBe(false);
    }
    const video = (await studio.page.locator(".gen-card[data-status=succeeded]").first().getAttribute("data-id"))!;
    for (const id of [four, one]) await expect.poll(() => status(id), { timeout: 120_000 }).toBe("succeeded");

    // The gallery: each result as one picture, the one of four with "+3".
    const gallery = await open(context, `${server.url}/dashboard/image`);
    await gallery.page.locator(`.gen-card[data-id="${four}"] .gen-media img`).first().waitFor();
    await expectWholeThumbnail(gallery.page, four, 3);
    await expectWholeThumbnail(gallery.page, one, 0);

    // The dashboard home: the same, every card's picture in one shape (the video's too, which covers its own), and
    // room between the chart and the recent results.
    const home = await open(context, `${server.url}/dashboard/home`);
    await expectWholeThumbnail(home.page, four, 3);
    await expectWholeThumbnail(home.page, video, 0);
    const shapes = (await boxOf(home.page, ".dash-recent .gen-media")).map((b) => (b.width / b.height).toFixed(2));
    expect(new Set(shapes).size, shapes.join(" ")).toBe(1);
    const [chart] = await boxOf(home.page, ".dash-usage");
    const [recent] = await boxOf(home.page, ".dash-recent");
    expect(recent!.y - (chart!.y + chart!.height)).toBeGreaterThanOrEqual(16);
    expect([...studio.problems, ...gallery.problems, ...home.problems]).toEqual([]);
    await context.close();
  });

  it("lists the images in the gallery with filters, and leads from an empty one to a tool", async () => {
    const { context } = await signedInContext(browser, server, "collector@example.com");
    const { page } = await open(context, `${server.url}/ja/dashboard/image`);
    await expect(page.locator(".gallery-empty").textContent()).resolves.toContain(
      text("ja", "studio", "gallery.empty"),
    );
    await page.locator(".gallery-empty .ant-btn").click();
    await page.waitForURL(`${server.url}/ja/dashboard/image/create/text-to-image`);
    await hydrated(page, ".studio-form");
    await page.fill("#studio-prompt", "静かな湖");
    await page.click(".studio-submit");
    await page.locator(".gen-card[data-status=succeeded]").waitFor({ timeout: 60_000 });
    await page.goto(`${server.url}/ja/dashboard/image`);
    await expect(page.locator(".gen-card").count()).resolves.toBe(1);
    // The card says what the filters filter by: its tool and who may see it.
    const meta = page.locator(".gen-card .gen-card-meta");
    await expect(meta.locator(".gen-card-tool").textContent()).resolves.toBe(
      text("ja", "studio", "tools.text-to-image.title"),
    );
    await expect(meta.locator(".gen-card-visibility").textContent()).resolves.toContain(
      text("ja", "studio", "visibility.private"),
    );
    await page.goto(`${server.url}/ja/dashboard/image?visibility=public`);
    await expect(page.locator(".gen-card").count()).resolves.toBe(0);
    await expect(page.locator(".gallery-empty").textContent()).resolves.toContain(
      text("ja", "studio", "gallery.emptyFiltered"),
    );
    await context.close();
  });
});

describe("a slow provider in the image studio", () => {
  let server: TestServer;
  let browser: Browser;
  let openai: FakeOpenAI;

  beforeAll(async () => {
    // The fake first: a port handed out by freePort is free only until something else listens, and the fake's own
    // listen may be given the same one.
    openai = await startFakeOpenAI();
    const port = await freePort();
    // Long enough to cancel in; the job is stopped long before.
    openai.delayMs = 60_000;
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: `${openai.url}/v1`,
        // Shorter than the offline video model takes, so the page gives up checking before it is done.
        VIDEO_POLL_TIMEOUT_SECONDS: "5",
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await openai?.close();
  });

  it("offers the provider's model with its price, and cancels a running job with its credits given back", async () => {
    const { context } = await signedInContext(browser, server, "hesitant@example.com");
    const { page } = await open(context, `${server.url}/dashboard/image/7595af7e`);
    await page.fill("#studio-prompt", "A slow sunrise");
    await page.click("#studio-model");
    const option = page.locator(".ant-select-item-option", { hasText: "GPT Image 1" });
    // Its price depends on its quality (a quarter for low, four times for high): the list says from what.
    await expect(option.textContent()).resolves.toContain("from 2 credits / image");
    await option.click();
    await page.click(".studio-submit");
    const card = page.locator(".gen-card").first();
    await card.and(page.locator("[data-status=processing]")).waitFor({ timeout: 30_000 });
    await expect.poll(() => balance(page).textContent()).toBe("12");
    await card.getByRole("button", { name: text("en", "studio", "actions.cancel") }).click();
    await card.and(page.locator("[data-status=canceled]")).waitFor();
    await expect.poll(() => balance(page).textContent()).toBe("20");
    await context.close();
  });

  it("makes a video: prompt required, checking until the configured timeout, check again, then the notification", async () => {
    const { context } = await signedInContext(browser, server, "director@example.com");
    const { page, problems } = await open(context, `${server.url}/ko/dashboard/video/create`);
    const t = (key: string) => text("ko", "studio", key);
    await page.click(".studio-submit");
    await expect(page.locator(".studio-field-error").textContent()).resolves.toBe(
      text("ko", "messages", "msg.generation.videoPromptRequired"),
    );
    await page.fill("#video-prompt", "비 오는 밤거리를 떠내려가는 종이배");
    await page.locator(".video-style", { hasText: t("styles.documentary.name") }).click();
    await page.locator(".ant-segmented-item", { hasText: t("seconds_other").replace("{{count}}", "10") }).click();
    await expect(page.locator(".studio-cost").textContent()).resolves.toContain("5");
    await page.click(".studio-submit");
    const task = page.getByTestId("video-task");
    // Waiting in the queue first (said as such, not as processing), then processing.
    await expect(task.locator("strong").textContent()).resolves.toMatch(
      new RegExp(`^(${t("video.queued")}|${text("ko", "messages", "msg.generation.videoProcessing")})$`),
    );
    await expect
      .poll(() => task.locator("strong").textContent(), { timeout: 20_000 })
      .toBe(text("ko", "messages", "msg.generation.videoProcessing"));
    // Auto check off: a button to check by hand. The five seconds of checking count from when the job showed: on a
    // busy machine they may run out during these clicks, and the controls then give way to the timeout's message,
    // which is what comes next anyway.
    const timeout = task.locator("[role=alert]");
    const unlessTimedOut = async (step: () => Promise<void>) => {
      await step().catch(async (error: unknown) => {
        if (!(await timeout.isVisible())) throw error;
      });
    };
    await unlessTimedOut(() => task.locator(".ant-switch").click({ timeout: 30_000 }));
    await unlessTimedOut(() => task.getByRole("button", { name: t("video.checkNow") }).click({ timeout: 30_000 }));
    await unlessTimedOut(() => task.locator(".ant-switch").click({ timeout: 30_000 }));
    // Five seconds later the page stops checking and says so; checking again goes on to the end.
    await expect(timeout.locator(".ant-alert-title").textContent()).resolves.toBe(
      text("ko", "messages", "msg.generation.queryTimeout"),
    );
    const done = page.locator(".ant-notification-notice", {
      hasText: text("ko", "messages", "msg.generation.videoCompleted"),
    });
    // The video may outlast another five seconds of checking: check again each time the page gives up.
    const deadline = Date.now() + 120_000;
    while (!(await done.isVisible())) {
      if (Date.now() > deadline) throw new Error("the video never completed");
      if (await timeout.isVisible()) await timeout.getByRole("button", { name: t("video.checkAgain") }).click();
      await page.waitForTimeout(250);
    }
    const player = page.locator(".gen-card[data-status=succeeded] video");
    await player.waitFor();
    const src = await player.getAttribute("src");
    const head = await context.request.get(`${server.url}${src}`, { headers: { Range: "bytes=0-99" } });
    expect(head.status()).toBe(206);
    expect(head.headers()["content-type"]).toBe("video/mp4");
    await expect.poll(() => balance(page).textContent()).toBe("15");
    expect(problems).toEqual([]);
    await context.close();
  });
});
