import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { pageApi, signedInContext } from "#tests/support/session.ts";
import { readStream } from "#tests/support/chat-stream.ts";
import { startFakeOpenAIChat, type FakeOpenAIChat } from "#tests/fakes/openai-chat.ts";

const TIMEOUT = 15_000;

/**
 * What a model may answer: math inline and as a block, code, a table, and markup meant to run in the reader's page
 * (scripts, handlers, a `javascript:` link, a picture from a server that notes every request it gets).
 */
const answer = (canary: string) =>
  [
    "The area of a circle is $\\pi r^2$, and its circumference $2\\pi r$.",
    "",
    "$$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$",
    "",
    "```python",
    "def area(r):",
    "    return 3.14159 * r ** 2",
    "```",
    "",
    "| Shape | Area |",
    "| --- | --- |",
    "| Square | $a^2$ |",
    "| Circle | $\\pi r^2$ |",
    "",
    '<script>alert("script")</script> <img src=x onerror="alert(\'img\')"> <svg onload="alert(\'svg\')"></svg>',
    "[click me](javascript:alert('link')) and a bad formula $\\href{javascript:alert('katex')}{x}$ and $\\frac{1}{$",
    `![tracking pixel](${canary}/pixel.png)`,
  ].join("\n");

describe("a conversation with math, code, tables and hostile markup, on its page and its share link", () => {
  let server: TestServer;
  let browser: Browser;
  let fake: FakeOpenAIChat;
  let canary: Server;
  let canaryUrl: string;
  const canaryHits: string[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAIChat();
    canary = createServer((req, res) => {
      canaryHits.push(req.url ?? "");
      res.end();
    });
    const canaryPort = await freePort();
    await new Promise<void>((resolve) => canary.listen(canaryPort, "127.0.0.1", resolve));
    canaryUrl = `http://127.0.0.1:${canaryPort}`;
    fake.reply = () => answer(canaryUrl);
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        OPENAI_COMPATIBLE_BASE_URL: fake.apiUrl,
        OPENAI_COMPATIBLE_API_KEY: "local-key",
        OPENAI_COMPATIBLE_CHAT_MODELS: "Fake-Chat",
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fake?.close();
    await new Promise((resolve) => canary?.close(resolve));
  });

  /** Opens a page, noting page errors, dialogs and server failures; checks the content once its scripts ran. */
  async function check(page: Page, url: string, problems: string[]) {
    await page.goto(url);
    await hydrated(page, ".chat-answer");
    // The math arrives with its own module, after the page's scripts: the formulas are then drawn by KaTeX.
    await expect.poll(() => page.locator(".chat-answer .katex").count(), { timeout: TIMEOUT }).toBeGreaterThan(4);
    const content = page.locator(".chat-answer .chat-markdown").last();
    await expect(content.locator(".katex-display").count()).resolves.toBe(1);
    await expect(content.locator("pre code").textContent()).resolves.toContain("return 3.14159 * r ** 2");
    await expect(content.locator("table td").count()).resolves.toBe(4);
    await expect(content.locator("table .katex").count()).resolves.toBe(2);
    // The markup is shown as text; nothing of it runs or loads.
    await expect(content.textContent()).resolves.toContain('<script>alert("script")</script>');
    await expect(content.locator("script, img, svg[onload], [onerror]").count()).resolves.toBe(0);
    await expect(content.locator('a[href^="javascript:"]').count()).resolves.toBe(0);
    await expect(content.locator(`a[href="${canaryUrl}/pixel.png"]`).count()).resolves.toBe(1);
    // No 500 page: the conversation is still there after a moment.
    await expect(page.locator(".chat-answer").count()).resolves.toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }

  const watch = (page: Page, problems: string[]) => {
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("dialog", (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on("response", (r) => {
      if (r.url().startsWith(server.url) && r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
    });
  };

  it("draws the formulas and keeps the page, for the owner and for a visitor of the share link, in two languages", async () => {
    const { context, cookie } = await signedInContext(browser, server, "math@example.com");
    const call = (method: string, path: string, body?: unknown) =>
      pageApi(server, server.url)(method, path, cookie, body);
    const created = await call("POST", "/api/chat/conversations", { model: "compat-fake-chat" });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
    await readStream(
      await call("POST", `/api/chat/conversations/${id}/messages`, { text: "What is the area of a circle, $A$?" }),
    );
    const shared = await call("POST", `/api/chat/conversations/${id}/share`);
    expect(shared.status).toBe(201);
    const { path } = ((await shared.json()) as { share: { path: string } }).share;

    const owner = await context.newPage();
    const problems: string[] = [];
    watch(owner, problems);
    await check(owner, `${server.url}/dashboard/chat/${id}`, problems);
    await check(owner, `${server.url}/ja/dashboard/chat/${id}`, problems);

    const visitor = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const reader = await visitor.newPage();
    watch(reader, problems);
    await check(reader, `${server.url}${path}`, problems);
    await check(reader, `${server.url}/de${path}`, problems);
    await visitor.close();
    await context.close();
    expect(canaryHits).toEqual([]);
  });
});
