import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { codeMadeBeforeStart, freePort, startServer, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { hydrated, launchBrowser, watchChat } from "#tests/support/browser.ts";
import { signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

const TIMEOUT = 15_000;

/**
 * An idea long enough that the offline helper's answer (the idea twice, with its phrases) costs more than one credit
 * can pay for: with the sign-up bonus set to one credit, the first answer runs out of credits half-way.
 */
const LONG_IDEA =
  "ein stiller Hafen bei Nacht, Fischerboote schaukeln am Steg, Laternen spiegeln sich auf nassem Kopfsteinpflaster, " +
  "ein alter Leuchtturm streicht mit seinem Licht über tiefe Wolken, eine Katze schläft auf einem Tau, eine Bäckerei " +
  "öffnet früh mit warmem Licht in den Fenstern, Möwen kreisen über den Masten und Nebel zieht vom offenen Meer herein";

describe("the chat in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let code: string;
  let secondCode: string;

  beforeAll(async () => {
    const dataDir = serverDataDir();
    code = await codeMadeBeforeStart(dataDir, 60);
    secondCode = await codeMadeBeforeStart(dataDir, 20);
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        DATA_DIR: dataDir,
        SITE_URL: `http://127.0.0.1:${port}`,
        SIGNUP_BONUS_CREDITS: "1",
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const answers = (page: Page) => page.locator(".chat-answer");
  const lastAnswer = (page: Page) => answers(page).last();
  const questions = (page: Page) => page.locator(".chat-question");
  const balance = (page: Page) => page.locator(".credit-balance-value").first();
  /** Waits for the answer being written to end: its footer (cost, actions) appears. */
  const answered = async (page: Page, count: number) => {
    await expect.poll(() => answers(page).count(), { timeout: TIMEOUT }).toBe(count);
    await lastAnswer(page).locator(".chat-msg-foot .chat-cost").waitFor({ timeout: TIMEOUT });
  };
  /** Waits, frame by frame, until the answer at `index` has written a few words. */
  const writing = (page: Page, index: number) =>
    page.waitForFunction(
      (i) =>
        (document.querySelectorAll(".chat-answer")[i]?.querySelector(".chat-markdown")?.textContent?.length ?? 0) > 20,
      index,
      { polling: "raf", timeout: TIMEOUT },
    );
  /**
   * Makes the share link in the dialog just opened. A click that lands while the dialog still opens (its animation,
   * slow on a busy machine) may reach nothing: clicked again until the link is shown (the newest link is shown).
   */
  const shareLink = async (page: Page, create: string) => {
    const field = page.locator("#chat-share-link");
    for (let tries = 0; (await field.count()) === 0; tries++) {
      if (tries === 5) throw new Error("the share link was not shown after 5 clicks");
      await page
        .getByRole("button", { name: create })
        .click({ timeout: 5_000 })
        .catch(() => undefined);
      await field.waitFor({ timeout: 5_000 }).catch(() => undefined);
    }
    return field.inputValue();
  };
  /** Asks in the composer (pressing Enter in it: focus can still move as a drawer closes). */
  const ask = async (page: Page, question: string) => {
    await page.fill("#chat-input", question);
    await page.locator("#chat-input").press("Enter");
  };

  it("asks, runs out of credits mid-answer and continues after a redemption; stops with Esc and continues; regenerates, branches, searches, survives a refresh, draws an image and shares the conversation (German)", async () => {
    const t = (key: string) => text("de", "chat", key);
    const { context } = await signedInContext(browser, server, "chat-de@example.com");
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    const chat = watchChat(page);
    await chat.explained(async () => {
      page.on("response", (r) => {
        if (r.url().startsWith(server.url) && r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
      });

      await page.goto(`${server.url}/de/dashboard/chat`);
      await hydrated(page, ".chat-composer");
      // The sidebar's entry is a live link now.
      await expect(page.locator(`.dash-sider a[href="/de/dashboard/chat"]`).count()).resolves.toBe(1);
      await expect(page.locator("#chat-estimate").textContent()).resolves.toContain("1");

      // One credit pays for part of the answer: it ends there, with the way to go on.
      await ask(page, LONG_IDEA);
      await page.waitForURL(/\/de\/dashboard\/chat\/[0-9a-f-]{36}$/, { timeout: TIMEOUT });
      await page.locator(".chat-topup").waitFor({ timeout: TIMEOUT });
      await expect(lastAnswer(page).textContent()).resolves.toContain(text("de", "chat", "helper.intro").slice(0, 40));
      await expect(lastAnswer(page).textContent()).resolves.not.toContain(text("de", "chat", "helper.tip"));
      await expect.poll(() => balance(page).textContent(), { timeout: TIMEOUT }).toBe("0");

      // A code redeemed in the card: the answer goes on from where it stopped, as the same answer.
      await page.fill("#redeem-code", code);
      await page.getByRole("button", { name: text("de", "billing", "orders.redeem.submit") }).click();
      await expect
        .poll(() => lastAnswer(page).textContent(), { timeout: TIMEOUT })
        .toContain(text("de", "chat", "helper.tip"));
      await answered(page, 1);
      await expect.poll(() => page.locator(".chat-topup").count(), { timeout: TIMEOUT }).toBe(0);
      await expect.poll(() => balance(page).textContent(), { timeout: TIMEOUT }).not.toBe("0");

      // Esc stops the answer being written; what it wrote stays, and Continue writes the rest.
      await ask(page, `${LONG_IDEA}, im Stil eines Ölgemäldes`);
      // As soon as it has written a few words (watched every frame: the helper writes for about two seconds).
      await writing(page, 1);
      await page.keyboard.press("Escape");
      await lastAnswer(page).getByText(t("page.stopped"), { exact: true }).waitFor({ timeout: TIMEOUT });
      await expect(lastAnswer(page).textContent()).resolves.not.toContain(text("de", "chat", "helper.tip"));
      await lastAnswer(page)
        .getByRole("button", { name: t("page.continue") })
        .click();
      await expect
        .poll(() => lastAnswer(page).textContent(), { timeout: TIMEOUT })
        .toContain(text("de", "chat", "helper.tip"));
      await answered(page, 2);
      await expect
        .poll(() => lastAnswer(page).getByText(t("page.stopped"), { exact: true }).count(), { timeout: TIMEOUT })
        .toBe(0);

      // Another answer is a sibling: < 2 / 2 >, and the first one is still there.
      const first = await lastAnswer(page).locator(".chat-markdown").textContent();
      await lastAnswer(page)
        .getByRole("button", { name: t("page.regenerate") })
        .click();
      await expect
        .poll(() => lastAnswer(page).locator(".chat-siblings-count").textContent(), { timeout: TIMEOUT })
        .toBe("2 / 2");
      await lastAnswer(page).locator(".chat-msg-foot .chat-cost").waitFor({ timeout: TIMEOUT });
      await lastAnswer(page)
        .getByRole("button", { name: t("page.previousVersion") })
        .click();
      await expect(lastAnswer(page).locator(".chat-siblings-count").textContent()).resolves.toBe("1 / 2");
      await expect(lastAnswer(page).locator(".chat-markdown").textContent()).resolves.toBe(first);

      // An edited question, saved and rerun, is a branch of its own with its own answer.
      await questions(page)
        .last()
        .getByRole("button", { name: t("page.edit") })
        .click();
      await page.locator(".chat-editing textarea").fill("ein Fuchs im Schnee");
      await page.getByRole("button", { name: t("page.saveAndRerun") }).click();
      await expect
        .poll(() => questions(page).last().locator(".chat-siblings-count").textContent(), { timeout: TIMEOUT })
        .toBe("2 / 2");
      await expect.poll(() => lastAnswer(page).textContent(), { timeout: TIMEOUT }).toContain("ein Fuchs im Schnee");
      await answered(page, 2);

      // Full-text search over titles and messages.
      await page.fill("#chat-search", "Fuchs");
      await expect.poll(() => page.locator(".chat-list-item").count(), { timeout: TIMEOUT }).toBe(1);
      await page.fill("#chat-search", "Zebrastreifen");
      await page.getByText(t("page.noMatch")).waitFor({ timeout: TIMEOUT });
      await page.fill("#chat-search", "");

      // The answer survives a refresh: the page reconnects and shows it to its end.
      await ask(page, "ein Leuchtturm im Sturm bei Nacht, von oben gesehen, mit tosenden Wellen und Blitzen");
      await writing(page, 2);
      await page.reload();
      await hydrated(page, ".chat-composer");
      await expect
        .poll(() => lastAnswer(page).textContent(), { timeout: TIMEOUT })
        .toContain(text("de", "chat", "helper.tip"));
      await answered(page, 3);

      // Asked to draw, the offline helper writes the prompt and starts the image with the offline image model; the
      // picture appears in the answer, linked to its page.
      await ask(page, "Zeichne einen Leuchtturm im Sturm");
      await answered(page, 4);
      expect(await lastAnswer(page).textContent()).toContain(t("helper.started"));
      const picture = lastAnswer(page).locator(".chat-tool-result img");
      await picture.waitFor({ timeout: 30_000 });
      await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
      await expect(lastAnswer(page).locator(".chat-tool-result a").first().getAttribute("href")).resolves.toMatch(
        /^\/de\/dashboard\/image\/[\w-]+\/[0-9a-f-]{36}$/,
      );
      // The picture says it is the offline demo's illustration, with the way to connect a provider.
      const notice = lastAnswer(page).getByTestId("demo-notice");
      await expect(notice.textContent()).resolves.toContain(text("de", "messages", "generation.demoNotice"));
      await expect(notice.getByRole("link").getAttribute("href")).resolves.toBe("/de/docs/configuration");

      // Shared as a read-only link, read by someone signed out, kept out of search engines.
      await page.getByRole("button", { name: t("share.title") }).click();
      const link = await shareLink(page, t("share.create"));
      expect(link).toMatch(/\/de\/share\/chat\/[\w-]{32}$/);
      const visitor = await browser.newContext();
      const shared = await visitor.newPage();
      await shared.goto(link);
      await shared.getByText(t("shared.kicker")).waitFor({ timeout: TIMEOUT });
      await expect(shared.locator(".chat-question").last().textContent()).resolves.toBe(
        "Zeichne einen Leuchtturm im Sturm",
      );
      await expect(shared.locator('meta[name="robots"]').getAttribute("content")).resolves.toContain("noindex");
      await visitor.close();

      expect(problems).toEqual([]);
    });
    await context.close();
  });

  it("answers in Japanese on a phone, with the conversations in a drawer; draws an image after a redemption and shares it", async () => {
    const t = (key: string) => text("ja", "chat", key);
    const { context } = await signedInContext(browser, server, "chat-ja@example.com", {
      viewport: { width: 390, height: 844 },
    });
    const page = await context.newPage();
    const chat = watchChat(page);
    await chat.explained(async () => {
      await page.goto(`${server.url}/ja/dashboard/chat`);
      await hydrated(page, ".chat-composer");
      await ask(page, "嵐の中の灯台");
      await page.waitForURL(/\/ja\/dashboard\/chat\/[0-9a-f-]{36}$/, { timeout: TIMEOUT });
      await answered(page, 1);
      await expect(lastAnswer(page).textContent()).resolves.toContain(text("ja", "chat", "helper.imageHeading"));
      await expect(page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).resolves.toBe(0);

      await page.locator(".chat-list-button").click();
      const drawer = page.locator(".chat-drawer");
      await drawer.locator(".chat-list-item").first().waitFor({ timeout: TIMEOUT });
      await expect(drawer.locator(".chat-list-title").first().textContent()).resolves.toBe("嵐の中の灯台");
      await drawer.getByRole("link", { name: t("page.newChat") }).click();
      await page.waitForURL(/\/ja\/dashboard\/chat$/, { timeout: TIMEOUT });
      await page.getByText(t("page.emptyTitle")).waitFor({ timeout: TIMEOUT });
      // The drawer closed itself on the way.
      await drawer.waitFor({ state: "hidden", timeout: TIMEOUT });

      // The credits are spent: the question is kept with the way to go on, and a redeemed code answers it. Asked to
      // draw, the offline helper starts the image, which appears in the answer.
      await ask(page, "猫を描いて");
      await page.locator(".chat-topup").waitFor({ timeout: TIMEOUT });
      await page.fill("#redeem-code", secondCode);
      await page.getByRole("button", { name: text("ja", "billing", "orders.redeem.submit") }).click();
      await answered(page, 1);
      expect(await lastAnswer(page).textContent()).toContain(t("helper.started"));
      await lastAnswer(page).locator(".chat-tool-result img").waitFor({ timeout: 30_000 });
      await expect.poll(() => page.locator(".chat-topup").count(), { timeout: TIMEOUT }).toBe(0);

      // Shared from the phone, read by someone signed out.
      await page.getByRole("button", { name: t("share.title") }).click();
      const link = await shareLink(page, t("share.create"));
      expect(link).toMatch(/\/ja\/share\/chat\/[\w-]{32}$/);
      const visitor = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const shared = await visitor.newPage();
      await shared.goto(link);
      await shared.getByText(t("shared.kicker")).waitFor({ timeout: TIMEOUT });
      await expect(shared.locator(".chat-question").first().textContent()).resolves.toBe("猫を描いて");
      await visitor.close();
    });
    await context.close();
  });
});
