import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, watchChat } from "#tests/support/browser.ts";
import { signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

const TIMEOUT = 30_000;

describe("the chat's tools on the last image, in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}`, CHAT_CONFIRM_ABOVE_CREDITS: "3" }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const lastAnswer = (page: Page) => page.locator(".chat-answer").last();
  const ask = async (page: Page, count: number, question: string) => {
    await page.fill("#chat-input", question);
    await page.locator("#chat-input").press("Enter");
    await expect.poll(() => page.locator(".chat-answer").count(), { timeout: TIMEOUT }).toBe(count);
    await lastAnswer(page).locator(".chat-msg-foot .chat-cost").waitFor({ timeout: TIMEOUT });
  };
  const loaded = (page: Page, selector: string) =>
    expect
      .poll(
        () =>
          lastAnswer(page)
            .locator(selector)
            .first()
            .evaluate((img: HTMLImageElement) => img.naturalWidth),
        {
          timeout: TIMEOUT,
        },
      )
      .toBeGreaterThan(0);

  for (const { name, viewport } of [
    { name: "desktop", viewport: { width: 1366, height: 900 } },
    { name: "phone", viewport: { width: 390, height: 844 } },
  ])
    it(`removes the background of the last image (on a checkerboard, made from it) and animates it after a confirmation (${name})`, async () => {
      const t = (key: string, values: Record<string, string> = {}) =>
        Object.entries(values).reduce((s, [k, v]) => s.replace(`{{${k}}}`, v), text("en", "chat", key));
      const { context } = await signedInContext(browser, server, `tools-${name}@example.com`, { viewport });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(e.message));
      const chat = watchChat(page);
      await chat.explained(async () => {
        await page.goto(`${server.url}/en/dashboard/chat`);
        await hydrated(page, ".chat-composer");

        await ask(page, 1, "draw a red apple on a table");
        await loaded(page, ".chat-tool-result img");
        const apple = await lastAnswer(page).locator(".chat-tool-result a").first().getAttribute("href");
        expect(apple).toMatch(/^\/en\/dashboard\/image\/7595af7e\/[0-9a-f-]{36}$/);

        // The cut-out: on a checkerboard, made from the apple (linked to its page).
        await ask(page, 2, "remove its background");
        expect(await lastAnswer(page).textContent()).toContain(t("helper.changing.background"));
        const card = lastAnswer(page).getByRole("region", { name: t("tools.names.remove-background") });
        await expect(card.locator(".chat-tool-from").textContent()).resolves.toContain(t("tools.madeFrom"));
        await expect(card.locator(".chat-tool-from a").getAttribute("href")).resolves.toBe(apple);
        await loaded(page, ".chat-tool-checker img");
        await expect(lastAnswer(page).locator(".chat-tool-result a").first().getAttribute("href")).resolves.toMatch(
          /^\/en\/dashboard\/image\/fa2f6c7d\/[0-9a-f-]{36}$/,
        );

        // Animated: a video costs more than the threshold, so the card asks first; confirmed, a player shows it.
        await ask(page, 3, "animate the last image");
        const video = lastAnswer(page).getByRole("region", { name: t("tools.names.image-to-video") });
        await expect(video.locator(".chat-tool-note").textContent()).resolves.toBe(
          t("tools.confirm_other", { formatted: "5" }),
        );
        await video.getByRole("button", { name: t("tools.generate") }).click();
        const player = lastAnswer(page).locator(".chat-tool-result video[controls]");
        await player.waitFor({ timeout: 60_000 });
        await expect(player.getAttribute("src")).resolves.toMatch(/^\/media\/[0-9a-f-]{36}\.mp4$/);
        await expect(page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).resolves.toBe(0);
        expect(problems).toEqual([]);
      });
      await context.close();
    });
});
