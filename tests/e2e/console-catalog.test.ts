import { rmSync } from "node:fs";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { openPglite } from "#server/db/client.ts";
import { providerConnection } from "#server/db/schema/index.ts";
import { freePort, startServer, tempDir, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";

const FAL_KEY = "fal-console-key-9d3e7c41";
const LAST4 = FAL_KEY.slice(-4);

describe("the console's connections and models", () => {
  let server: TestServer;
  let browser: Browser;
  let fal: FakeFal;
  let chief: string;
  let member: string;
  let context: BrowserContext;
  const dataDir = tempDir("atelier-console-");

  const get = (path: string, cookie: string) => fetch(`${server.url}${path}`, { headers: { Cookie: cookie } });
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: chief, Origin: server.url, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams(fields),
    });
  const modelOrder = async () =>
    [...(await (await get("/user/admin/models", chief)).text()).matchAll(/data-model="([^"]+)"/g)].map((m) => m[1]);
  const notice = (page: Page) => page.locator(".admin-notice");
  const say = (key: string, values: Record<string, string> = {}) =>
    Object.entries(values).reduce((s, [k, v]) => s.replace(`{{${k}}}`, v), text("en", "admin", key));
  // The studio's list of models, as its page data carries it (a string in its JSON), and the list its form fetches.
  const studioOffers = async (id: string) => {
    const html = await (await get("/dashboard/image/create/text-to-image", member)).text();
    const api = (await (await get("/api/models", member)).json()) as { models: { id: string }[] };
    const inPage = html.includes(`\\"${id}\\"`) || html.includes(`"${id}"`);
    expect(api.models.some((m) => m.id === id)).toBe(inPage);
    return inPage;
  };

  beforeAll(async () => {
    fal = await startFakeFal({ key: FAL_KEY });
    // After the fake listens: its own port could otherwise be the one handed out here.
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
    [chief, member] = await Promise.all([
      signedIn(server, server.url, "chief@example.com"),
      signedIn(server, server.url, "member@example.com"),
    ]);
    context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
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
    await fal?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("adds a fal connection with its key, shows only the key's last four characters, and tests it", async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/connections`);
    await hydrated(page, ".admin-provider-picks");
    await page.locator(".admin-provider-pick", { hasText: /^fal$/ }).click();
    const form = page.locator("form[data-add=fal]");
    await form.locator("input[name=name]").fill("Studio fal");
    await form.locator("input[name='setting.apiKey']").fill(FAL_KEY);
    await form.locator("input[name='setting.baseURL']").fill(fal.url);
    // The fake runs on this machine: an address on the operator's own network is allowed explicitly.
    await form.locator("input[name=allowPrivateNetwork]").check();
    await form.getByRole("button", { name: text("en", "admin", "connections.addSubmit") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("connections.added", { name: "Studio fal" }));
    const row = page.locator(".ant-table-row", { has: page.locator("[data-connection='fal-2']") });
    await expect.poll(() => row.locator("[data-key-hint]").textContent()).toBe(`…${LAST4}`);
    await expect.poll(() => row.locator("[data-state]").getAttribute("data-state")).toBe("serves");
    expect(await page.content()).not.toContain(FAL_KEY);
    // The environment's connections are read-only, and the offline demo has nothing to test.
    const demo = page.locator(".ant-table-row", { has: page.locator("[data-connection='demo']") });
    expect(await demo.getByRole("button", { name: text("en", "admin", "connections.disable") }).count()).toBe(0);
    expect(await demo.getByRole("link").count()).toBe(0);
    // Nor in the page as served (its data included), nor in its edit form.
    for (const path of ["/user/admin/connections", "/user/admin/connections?edit=fal-2"]) {
      const html = await (await get(path, chief)).text();
      expect(html).toContain(`…${LAST4}`);
      expect(html).not.toContain(FAL_KEY);
    }

    await row.getByRole("button", { name: text("en", "admin", "connections.testAction") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 20_000 })
      .toBe(say("connections.test.ok", { name: "Studio fal" }));
    await expect.poll(() => row.locator("[data-check]").getAttribute("data-check")).toBe("ok");
    await page.close();
  });

  it("adds a model on that connection, which the image studio offers until it is switched off", async () => {
    expect(await studioOffers("console-schnell")).toBe(false);
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models`);
    await hydrated(page, "form[data-add-model]");
    const form = page.locator("form[data-add-model]");
    await form.locator("select[name=target]").selectOption("connection:fal-2");
    await form.locator("input[name=providerModel]").fill("fal-ai/flux/schnell");
    await form.locator("input[name=id]").fill("console-schnell");
    await form.locator("input[name=name]").fill("Console Schnell");
    await form.locator("input[name=credits]").fill("2");
    await form.getByRole("button", { name: text("en", "admin", "models.add.submit") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("models.added", { model: "Console Schnell", id: "console-schnell" }));
    expect(await studioOffers("console-schnell")).toBe(true);

    const row = page.locator(".ant-table-row", { has: page.locator("[data-model='console-schnell']") });
    await row.getByRole("button", { name: text("en", "admin", "models.disable") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("models.disabled", { model: "console-schnell" }));
    expect(await studioOffers("console-schnell")).toBe(false);
    await page.close();
  });

  it("refuses a bad model with a message naming the field, and changes nothing", async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models/demo-image`);
    await hydrated(page, "form[data-model-form]");
    await page.locator("textarea[name='binding.0.options']").fill("[1, 2]");
    await page.getByRole("button", { name: text("en", "admin", "model.save") }).click();
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(say("models.errors.options"));
    await page.locator("textarea[name='binding.0.options']").fill("");
    await page.locator("input[name=cover]").fill("ftp://example.com/x.png");
    await page.getByRole("button", { name: text("en", "admin", "model.save") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("catalog.refused.invalidField", { field: "cover" }));
    const response = await get("/user/admin/models/demo-image", chief);
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain("ftp://example.com");
    await page.close();
  });

  it("edits a model's price on its page, and the pricing page shows the new price", async () => {
    const priceOf = async () => {
      const html = await (await fetch(`${server.url}/pricing`)).text();
      const row = /<tr[^>]*><th scope="row">Atelier Demo Image[\s\S]*?<\/tr>/.exec(html)?.[0] ?? "";
      return /class="num">(\d+)</.exec(row)?.[1];
    };
    expect(await priceOf()).not.toBe("37");
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models/demo-image`);
    await hydrated(page, "form[data-model-form]");
    await page.locator("input[name='price.credits']").fill("37");
    await page.getByRole("button", { name: text("en", "admin", "model.save") }).click();
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toContain("is saved");
    await expect.poll(priceOf, { timeout: 15_000 }).toBe("37");
    await page.close();
  });

  it("keeps the key when an edit leaves it blank, switches a connection off and on, and removes one once confirmed", async () => {
    const edited = await post("/user/admin/connections?edit=fal-2", {
      intent: "edit",
      connection: "fal-2",
      name: "Studio fal EU",
      "setting.apiKey": "",
      "setting.baseURL": fal.url,
      allowPrivateNetwork: "on",
    });
    expect(edited.status).toBe(200);
    expect(await edited.text()).toContain(say("connections.saved", { name: "Studio fal EU" }));
    const tested = await post("/user/admin/connections", { intent: "test", connection: "fal-2" });
    expect(tested.status).toBe(200);
    expect(await tested.text()).toContain(say("connections.test.ok", { name: "Studio fal EU" }));
    const wrong = await post("/user/admin/connections?add=fal", {
      intent: "add",
      provider: "fal",
      name: "Wrong key",
      "setting.apiKey": "fal-not-the-right-key",
      "setting.baseURL": fal.url,
      allowPrivateNetwork: "on",
    });
    expect(await wrong.text()).toContain(say("connections.added", { name: "Wrong key" }));
    const failed = await post("/user/admin/connections", { intent: "test", connection: "fal-3" });
    expect(failed.status).toBe(409);
    expect(await failed.text()).toContain(say("connections.test.unauthorized", { name: "Wrong key" }));
    const badUrl = await post("/user/admin/connections?add=fal", {
      intent: "add",
      provider: "fal",
      "setting.apiKey": FAL_KEY,
      "setting.baseURL": "not a url",
    });
    expect(badUrl.status).toBe(400);
    expect(await badUrl.text()).toContain(say("catalog.refused.invalidField", { field: "baseURL" }));
    // An address on this machine is refused unless it is allowed explicitly.
    const local = await post("/user/admin/connections?add=fal", {
      intent: "add",
      provider: "fal",
      "setting.apiKey": FAL_KEY,
      "setting.baseURL": fal.url,
    });
    expect(local.status).toBe(400);
    expect(await local.text()).toContain(say("catalog.refused.invalidField", { field: "baseURL" }));

    const disabled = await post("/user/admin/connections", { intent: "disable", connection: "fal-2" });
    expect(await disabled.text()).toContain('data-state="disabled"');
    const enabled = await post("/user/admin/connections", { intent: "enable", connection: "fal-2" });
    expect(await enabled.text()).not.toContain('data-state="disabled"');
    const builtIn = await post("/user/admin/connections", { intent: "disable", connection: "fal" });
    expect(builtIn.status).toBe(409);

    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/connections?remove=fal-3`);
    await hydrated(page, ".admin-provider-picks");
    await page.getByRole("button", { name: text("en", "admin", "connections.remove") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("connections.removed", { name: "Wrong key" }));
    await expect.poll(() => page.locator("[data-connection='fal-3']").count()).toBe(0);
    await page.close();
  });

  it("duplicates a model switched off, moves it, removes it, and resets a built-in one", async () => {
    const copied = await post("/user/admin/models", { intent: "duplicate", model: "console-schnell" });
    expect(await copied.text()).toContain(
      say("models.duplicated", { model: "Console Schnell", copy: "console-schnell-copy" }),
    );
    expect(await studioOffers("console-schnell-copy")).toBe(false);
    const before = await modelOrder();
    expect(before.indexOf("console-schnell-copy")).toBe(before.indexOf("console-schnell") + 1);
    await post("/user/admin/models", { intent: "up", model: "console-schnell-copy" });
    const after = await modelOrder();
    expect(after.indexOf("console-schnell-copy")).toBe(after.indexOf("console-schnell") - 1);
    await post("/user/admin/models", { intent: "up", model: after[0]! });
    expect(await modelOrder()).toEqual(after);

    const removed = await post("/user/admin/models/console-schnell-copy", { intent: "remove" });
    expect(removed.status).toBe(302);
    expect(await modelOrder()).not.toContain("console-schnell-copy");
    expect((await get("/user/admin/models/console-schnell-copy", chief)).status).toBe(404);

    // A chat model has its own page too, priced per million tokens; saving it as shown changes nothing.
    const chat = await (await get("/user/admin/models/prompt-helper", chief)).text();
    expect(chat).toContain('name="input"');
    expect(chat).toContain('name="output"');
    const fields = Object.fromEntries(
      [...chat.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    const kept = await post("/user/admin/models/prompt-helper", {
      ...fields,
      visibility: "everyone",
      enabled: "on",
      "binding.0.target": "provider:demo",
      intent: "save",
    });
    expect(kept.status).toBe(200);
    expect(await kept.text()).toContain(text("en", "admin", "settings.unchanged"));

    // demo-image's price was changed above: resetting it brings back the built-in price.
    const reset = await post("/user/admin/models/demo-image", { intent: "remove" });
    expect(await reset.text()).toContain(say("models.resetDone", { model: "Atelier Demo Image" }));
    const pricing = await (await fetch(`${server.url}/pricing`)).text();
    expect(/<th scope="row">Atelier Demo Image[\s\S]*?class="num">(\d+)</.exec(pricing)?.[1]).toBe("1");
  });

  it("keeps the added connection's key out of the database in plain text", async () => {
    await server.close();
    const handle = await openPglite(dataDir, pino({ level: "silent" }));
    try {
      const rows = await handle.db.select().from(providerConnection);
      const fal2 = rows.find((r) => r.id === "fal-2");
      expect(fal2?.provider).toBe("fal");
      expect(fal2?.secretHints).toEqual({ apiKey: LAST4 });
      expect(fal2?.sealedSecrets).toBeTruthy();
      expect(JSON.stringify(rows)).not.toContain(FAL_KEY);
      const dump = await handle.pglite.query<{ row: string }>(
        "select row_to_json(c)::text as row from provider_connection c",
      );
      expect(dump.rows.length).toBe(rows.length);
      for (const { row } of dump.rows) expect(row).not.toContain(FAL_KEY);
    } finally {
      await handle.close();
    }
  });
});
