import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Headless, with the background traffic that a closed network would refuse turned off. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Debian's Chromium with `CHROMIUM_ARGS`. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
}

/**
 * Waits until React has hydrated the element matching `selector` (React marks the elements it has taken over with
 * its fiber): before that, typing and clicks reach server-rendered markup that no script listens to yet.
 */
export async function hydrated(page: Page, selector = ".site-header"): Promise<void> {
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    return !!el && Object.keys(el).some((k) => k.startsWith("__reactFiber$") || k.startsWith("__reactProps$"));
  }, selector);
}

/**
 * Waits until nothing inside `selector` is animating (a dialog zooming in from where it was opened, say): on a
 * loaded machine a click aimed at a button that is still moving can land beside it.
 */
export async function settled(page: Page, selector: string): Promise<void> {
  await page.waitForFunction(
    (sel) =>
      document.getAnimations().every((a) => {
        const target = (a.effect as KeyframeEffect | null)?.target;
        return a.playState !== "running" || !(target instanceof Element) || !target.closest(sel);
      }),
    selector,
    { polling: "raf" },
  );
}

/**
 * Opens `url` with the page's scripts held back, as on a slow phone, so that a test can type and click in the
 * server-rendered page; `release` lets the scripts load.
 */
export async function openBeforeScripts(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; release: () => void }> {
  const page = await context.newPage();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/assets/**/*.js", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(url, { waitUntil: "domcontentloaded" });
  return { page, release };
}

/**
 * Opens `url` and types `value` into the field at `selector` while the page hydrates, as a person does while a slow
 * phone is still taking the page over: after the page's entry has noted the fields and started hydrating, before
 * React has hydrated them (it does so in tasks of its own). The typing is the browser's: the value, then an input
 * event.
 */
export async function typeWhileHydrating(
  context: BrowserContext,
  url: string,
  selector: string,
  value: string,
): Promise<Page> {
  const page = await context.newPage();
  const typing = `;(() => {
    const field = document.querySelector(${JSON.stringify(selector)});
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(field, ${JSON.stringify(value)});
    field.dispatchEvent(new Event("input", { bubbles: true }));
  })();`;
  // Appended to the client entry, whose last statement starts hydration.
  await page.route("**/assets/entry.client-*.js", async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: `${await response.text()}\n${typing}` });
  });
  await page.goto(url, { waitUntil: "domcontentloaded" });
  return page;
}

/**
 * What a chat test saw, for its failure message: the requests the page made to the chat's API and for its data
 * (when, method, path, the start of the body, and the answer's status), and the page's messages, notices and dialog as
 * shown (each one's class and text).
 */
export function watchChat(page: Page) {
  const requests: string[] = [];
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith("/api/chat/") || url.pathname.endsWith(".data"))
      requests.push(`${at()} ${request.method()} ${url.pathname} ${(request.postData() ?? "").slice(0, 80)}`);
  });
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith("/api/chat/") || url.pathname.endsWith(".data"))
      requests.push(`${at()} ← ${response.status()} ${response.request().method()} ${url.pathname}`);
  });
  const transcript = async (): Promise<string> => {
    const shown = await page
      .locator(".chat-msg, .ant-message-notice, .ant-modal-body")
      .evaluateAll((messages) =>
        messages.map((m) => `${m.className} [${m.getAttribute("data-status") ?? ""}]: ${m.textContent?.slice(0, 100)}`),
      )
      .catch((error: Error) => [`(the page could not be read: ${error.message})`]);
    return `requests:\n${requests.join("\n")}\nshown at ${at()}:\n${shown.join("\n")}`;
  };
  return {
    transcript,
    /** Runs `steps`; a failure says, beside its own message, what the page asked and showed. */
    async explained(steps: () => Promise<void>): Promise<void> {
      try {
        await steps();
      } catch (error) {
        if (error instanceof Error) error.message += `\n${await transcript()}`;
        throw error;
      }
    },
  };
}
