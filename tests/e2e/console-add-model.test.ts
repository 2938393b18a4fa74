import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startServer, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { hydrated, launchBrowser } from "#tests/support/browser.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";

const FAL_KEY = "fal-add-by-id-key-5b81e2c0";

describe("adding a model by its id in the console", () => {
  let server: TestServer;
  let browser: Browser;
  let fal: FakeFal;
  let chief: string;
  let member: string;
  let context: BrowserContext;

  const get = (path: string, cookie: string) => fetch(`${server.url}${path}`, { headers: { Cookie: cookie } });
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: chief, Origin: server.url, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams(fields),
    });
  const notice = (page: Page) => page.locator(".admin-notice");
  const say = (key: string, values: Record<string, string> = {}) =>
    Object.entries(values).reduce((s, [k, v]) => s.replace(`{{${k}}}`, v), text("en", "admin", key));
  const offered = async (id: string) => {
    const api = (await (await get("/api/models", member)).json()) as { models: { id: string }[] };
    return api.models.some((m) => m.id === id);
  };

  beforeAll(async () => {
    fal = await startFakeFal({ key: FAL_KEY });
    [server, browser] = await Promise.all([
      startServer({
        DATA_DIR: serverDataDir("atelier-add-model-"),
        ADMIN_EMAILS: "chief@example.com",
        FAL_KEY,
        FAL_BASE_URL: fal.url,
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
  });

  it("reads a schema with a plain form post, before any script runs, and refuses an unknown id", async () => {
    const read = await post("/user/admin/models/add", {
      intent: "describe",
      connection: "fal",
      providerModel: "fal-ai/flux/dev",
    });
    expect(read.status).toBe(200);
    const html = await read.text();
    expect(html).toContain('data-proposal="fal-ai/flux/dev"');
    expect(html).toContain('data-parameter="guidance_scale"');

    const unknown = await post("/user/admin/models/add", {
      intent: "describe",
      connection: "fal",
      providerModel: "fal-ai/no-such-model",
    });
    expect(unknown.status).toBe(400);
    const refused = await unknown.text();
    expect(refused).toContain(say("modelAdd.refused.unknown_model", { model: "fal-ai/no-such-model" }));
    // What was typed stays in the form.
    expect(refused).toContain('value="fal-ai/no-such-model"');
    expect(refused).not.toContain("data-proposal");

    // A connection that does not exist (or cannot read a schema) is refused the same way, with its own message.
    const nowhere = await post("/user/admin/models/add", {
      intent: "describe",
      connection: "demo",
      providerModel: "fal-ai/flux/dev",
    });
    expect(nowhere.status).toBe(400);
    expect(await nowhere.text()).toContain(say("modelAdd.refused.no_connection", { model: "fal-ai/flux/dev" }));
  });

  it("adds fal's FLUX.1 [dev] with its fields mapped and a formula price, tests it, then switches it on", async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models`);
    await page.locator("[data-add-by-id]").click();
    await hydrated(page, "form[data-describe]");
    await page.locator("select[name=connection]").selectOption("fal");
    await page.locator("input[name=providerModel]").fill("fal-ai/flux/dev");
    await page.getByRole("button", { name: text("en", "admin", "modelAdd.describe") }).click();
    const proposal = page.locator("form[data-proposal='fal-ai/flux/dev']");
    await proposal.waitFor({ timeout: 20_000 });

    // The mapping read from fal's schema: named sizes per ratio, the seed and the count.
    const map = (key: string) => proposal.locator(`[name='binding.0.map.${key}']`);
    expect(await map("prompt").inputValue()).toBe("prompt");
    expect(await map("seed").inputValue()).toBe("seed");
    expect(await map("count").inputValue()).toBe("num_images");
    expect(await map("aspectRatio").inputValue()).toBe("image_size");
    expect(await map("aspectRatio.as").inputValue()).toBe("named");
    expect(await map("aspectRatio.value.16:9").inputValue()).toBe("landscape_16_9");
    expect(await map("aspectRatio.value.3:4").inputValue()).toBe("portrait_4_3");
    // The remaining inputs are advanced settings with their types and defaults.
    for (const name of ["guidance_scale", "num_inference_steps", "enable_safety_checker"])
      expect(await proposal.locator(`[data-parameter='${name}']`).count()).toBe(1);
    expect(await proposal.locator("[data-parameter] select[name$='.default']").first().count()).toBe(1);
    expect(await proposal.locator("[data-tools]").getAttribute("data-tools")).toBe("text-to-image");

    // The operator renames a setting, prices the model as a formula, and tries an id the catalog already has.
    const row = (name: string) => proposal.locator(`[data-parameter='${name}']`);
    await row("guidance_scale").locator("input[name$='.label']").fill("Guidance");
    await proposal.locator("input[name='price.credits']").fill("2");
    await proposal.locator("input[name='price.minimum']").fill("3");
    await proposal.locator("select[name='mult.0.setting']").selectOption("num_inference_steps");
    await proposal.locator("input[name='mult.0.value']").fill("50");
    await proposal.locator("input[name='mult.0.factor']").fill("2.5");
    await proposal.locator("input[name=id]").fill("demo-image");
    await proposal.getByRole("button", { name: text("en", "admin", "modelAdd.submit") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("catalog.refused.existsField", { field: "id" }));
    // Nothing typed is lost.
    expect(await proposal.locator("input[name='price.credits']").inputValue()).toBe("2");
    expect(await row("guidance_scale").locator("input[name$='.label']").inputValue()).toBe("Guidance");

    await proposal.locator("input[name=id]").fill("console-flux-dev");
    await proposal.getByRole("button", { name: text("en", "admin", "modelAdd.submit") }).click();
    await page.waitForURL(/\/user\/admin\/models\/console-flux-dev/, { timeout: 15_000 });
    await hydrated(page, "form[data-model-form]");
    expect(await notice(page).textContent()).toBe(say("modelAdd.added", { model: "FLUX.1 [dev]" }));
    // Added switched off: not offered until it is switched on.
    expect(await page.locator("[data-test-card] [data-state]").getAttribute("data-state")).toBe("off");
    expect(await offered("console-flux-dev")).toBe(false);

    // Its page shows the same mapping, settings and formula, as saved.
    expect(await page.locator("[name='binding.0.map.aspectRatio']").inputValue()).toBe("image_size");
    expect(await page.locator("[name='binding.0.map.aspectRatio.value.16:9']").inputValue()).toBe("landscape_16_9");
    expect(await page.locator("[data-parameter='guidance_scale'] input[name$='.label']").inputValue()).toBe("Guidance");
    expect(await page.locator("input[name='price.credits']").inputValue()).toBe("2");
    expect(await page.locator("input[name='price.minimum']").inputValue()).toBe("3");
    expect(await page.locator("select[name='mult.0.setting']").inputValue()).toBe("num_inference_steps");
    expect(await page.locator("input[name='mult.0.value']").inputValue()).toBe("50");
    expect(await page.locator("input[name='mult.0.factor']").inputValue()).toBe("2.5");

    // The test runs one real generation on fal with the mapped inputs and the settings' defaults.
    const before = fal.requests.length;
    await page.getByRole("button", { name: text("en", "admin", "models.check") }).click();
    await expect
      .poll(() => page.locator("[data-test-card] [data-provider=fal]").getAttribute("data-status"), {
        timeout: 60_000,
      })
      .toBe("succeeded");
    const run = fal.requests.slice(before).find((r) => r.method === "POST" && r.path.endsWith("fal-ai/flux/dev"));
    expect(run?.body).toMatchObject({
      image_size: "square_hd",
      num_inference_steps: 28,
      guidance_scale: 3.5,
      enable_safety_checker: true,
    });

    await page.getByRole("button", { name: text("en", "admin", "models.enable") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("models.enabled", { model: "FLUX.1 [dev]" }));
    expect(await offered("console-flux-dev")).toBe(true);
    await page.close();
  });

  it("edits the formula, the mapping and the settings on the model's page, and refuses a wrong factor", async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models/console-flux-dev`);
    await hydrated(page, "form[data-model-form]");
    await page.locator("input[name='mult.1.factor']").fill("lots");
    await page.locator("select[name='mult.1.setting']").selectOption("resolution");
    await page.locator("input[name='mult.1.value']").fill("2K");
    await page.getByRole("button", { name: text("en", "admin", "model.save") }).click();
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(say("modelEditor.errors.factor"));
    const unchanged = await (await get("/user/admin/models/console-flux-dev", chief)).text();
    expect(unchanged).not.toContain('value="2K"');

    await page.locator("input[name='mult.1.factor']").fill("1.5");
    await page.locator("select[name='binding.0.map.seed']").selectOption("");
    await page.locator("[data-parameter='acceleration'] input[name$='.drop']").check();
    await page.getByRole("button", { name: text("en", "admin", "model.save") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(say("model.saved", { model: "FLUX.1 [dev]" }));
    const saved = await (await get("/user/admin/models/console-flux-dev", chief)).text();
    expect(saved).toContain('value="2K"');
    expect(saved).not.toContain('data-parameter="acceleration"');
    await page.reload();
    await hydrated(page, "form[data-model-form]");
    expect(await page.locator("select[name='binding.0.map.seed']").inputValue()).toBe("");
    expect(await page.locator("input[name='mult.1.factor']").inputValue()).toBe("1.5");
    await page.close();
  });

  it("saves a model's page as shown without changing anything, built-in image and video models too", async () => {
    // Kling 2.5 Turbo runs image-to-video on its own fal endpoint, which the page keeps as it is.
    for (const id of ["demo-image", "demo-video", "console-flux-dev", "kling-video", "clarity-upscaler"]) {
      const page = await context.newPage();
      await page.goto(`${server.url}/user/admin/models/${id}`);
      await hydrated(page, "form[data-model-form]");
      await page.getByRole("button", { name: text("en", "admin", "model.save") }).click();
      await expect
        .poll(() => notice(page).textContent(), { timeout: 30_000 })
        .toBe(text("en", "admin", "settings.unchanged"));
      await page.close();
    }
  });
});
