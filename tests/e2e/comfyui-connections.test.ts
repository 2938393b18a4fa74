import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, startServer, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

const HEADER = "Authorization: Bearer pool-proxy-token-7f3a";

/**
 * A ComfyUI server as far as a connection's test asks it (`/system_stats` and `/queue`), behind a proxy asking for a
 * header: enough to see each server's answer in the console.
 */
async function comfyHealth(gpu: string, header?: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (header && req.headers.authorization !== header.slice(header.indexOf(":") + 1).trim()) {
      res.writeHead(401).end();
      return;
    }
    const body =
      req.url === "/system_stats"
        ? {
            system: { os: "posix", python_version: "3.12.3" },
            devices: [{ name: gpu, type: "cuda", vram_total: 24 * 2 ** 30, vram_free: 20 * 2 ** 30 }],
          }
        : req.url === "/queue"
          ? { queue_running: [], queue_pending: [] }
          : null;
    if (!body) res.writeHead(404).end();
    else res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("a ComfyUI pool in the console, before the page's scripts", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let gpuA: Awaited<ReturnType<typeof comfyHealth>>;
  let gone: string;
  let chief: string;
  const dataDir = serverDataDir("atelier-comfyui-console-");
  const notice = (page: Page) => page.locator(".admin-notice");
  const say = (key: string, values: Record<string, string> = {}) =>
    Object.entries(values).reduce((s, [k, v]) => s.replace(`{{${k}}}`, v), text("en", "admin", key));

  beforeAll(async () => {
    gpuA = await comfyHealth("NVIDIA GeForce RTX 4090", HEADER);
    // A server that does not answer: a port nothing listens on.
    gone = `http://127.0.0.1:${await freePort()}`;
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: dataDir,
        ADMIN_EMAILS: "chief@example.com",
      }),
      launchBrowser(),
    ]);
    chief = await signedIn(server, server.url, "chief@example.com");
    // The forms as the server renders them, with no script: they must work on their own.
    context = await browser.newContext({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: false });
    await context.addCookies(
      chief.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await gpuA?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("adds a pool of two servers with a header, shows its servers and each one's answer, and edits it", async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/connections?add=comfyui`);
    const form = page.locator("form[data-add=comfyui]");
    await form.locator("input[name=name]").fill("GPU pool");
    await form.locator("textarea[name='setting.servers']").fill(`${gpuA.url} weight=2 max=3\n${gone}`);
    await form.locator("input[name='setting.perAccount']").fill("3");
    await form.locator("textarea[name='setting.headers']").fill(`${gpuA.url} ${HEADER}`);
    await form.getByRole("button", { name: text("en", "admin", "connections.addSubmit") }).click();
    expect(await notice(page).textContent()).toBe(say("connections.added", { name: "GPU pool" }));
    const row = page.locator(".ant-table-row", { has: page.locator("[data-connection='comfyui-2']") });
    expect(await row.locator("[data-server]").allTextContents()).toEqual([`${gpuA.url} weight=2 maxJobs=3`, gone]);
    expect(await row.locator("[data-key-hint]").textContent()).toBe("…7f3a");
    expect(await page.content()).not.toContain("pool-proxy-token");

    // The test asks each server: the one behind the proxy answers with its GPU, the other is named as silent.
    await row.getByRole("button", { name: text("en", "admin", "connections.testAction") }).click();
    expect(await notice(page).textContent()).toBe(say("connections.test.ok", { name: "GPU pool" }));
    const detail = await page
      .locator(".ant-table-row", { has: page.locator("[data-connection='comfyui-2']") })
      .locator("[data-check-detail]")
      .textContent();
    expect(detail).toContain(`${gpuA.url}: NVIDIA GeForce RTX 4090`);
    expect(detail).toContain(`${gone} does not answer`);

    // The edit form shows the servers as lines and the header only as set, never its value.
    await page.goto(`${server.url}/user/admin/connections?edit=comfyui-2`);
    const edit = page.locator("form", { has: page.locator("input[name=connection][value='comfyui-2']") });
    expect(await edit.locator("textarea[name='setting.servers']").inputValue()).toBe(
      `${gpuA.url} weight=2 maxJobs=3\n${gone}`,
    );
    expect(await edit.locator("input[name='setting.perAccount']").inputValue()).toBe("3");
    expect(await edit.locator("[data-kept=headers]").textContent()).toContain(`${gpuA.url}`);
    expect(await edit.locator("[data-kept=headers]").textContent()).toContain("…7f3a");
    expect(await page.content()).not.toContain("pool-proxy-token");
    // The silent server taken out, the header left blank: it is kept, and the pool still answers through its proxy.
    await edit.locator("textarea[name='setting.servers']").fill(`${gpuA.url} weight=2 max=3`);
    await edit.getByRole("button", { name: text("en", "admin", "connections.save") }).click();
    expect(await notice(page).textContent()).toBe(say("connections.saved", { name: "GPU pool" }));
    const saved = page.locator(".ant-table-row", { has: page.locator("[data-connection='comfyui-2']") });
    expect(await saved.locator("[data-server]").allTextContents()).toEqual([`${gpuA.url} weight=2 maxJobs=3`]);
    await saved.getByRole("button", { name: text("en", "admin", "connections.testAction") }).click();
    expect(await notice(page).textContent()).toBe(say("connections.test.ok", { name: "GPU pool" }));

    // A weight that is no number is refused, naming the field, and nothing is saved.
    await page.goto(`${server.url}/user/admin/connections?edit=comfyui-2`);
    await edit.locator("textarea[name='setting.servers']").fill(`${gpuA.url} weight=heavy`);
    await edit.getByRole("button", { name: text("en", "admin", "connections.save") }).click();
    expect(await notice(page).textContent()).toContain("servers.0.weight");
    await page.goto(`${server.url}/user/admin/connections`);
    expect(
      await page
        .locator(".ant-table-row", { has: page.locator("[data-connection='comfyui-2']") })
        .locator("[data-server]")
        .allTextContents(),
    ).toEqual([`${gpuA.url} weight=2 maxJobs=3`]);
    await page.close();
  });

  it("draws the pool's form on a phone without a sideways scroll", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    await phone.addCookies(
      chief.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
    const page = await phone.newPage();
    await page.goto(`${server.url}/user/admin/connections?edit=comfyui-2`);
    await hydrated(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.close();
  });
});
