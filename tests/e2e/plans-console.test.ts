import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { freePort, runRole, startServer, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { launchBrowser } from "#tests/support/browser.ts";
import { pageApi, signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { toolPath } from "#common/tools.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

/*
 * The plans in the console, in Chromium: added, refused with what was typed kept, edited and archived, as the pricing
 * page shows them. And private results as a plan's unlock: the operator checks "make results public unless the plan keeps
 * them private" in the console; a free account's new result is then public from the start, its sharing switch cannot
 * turn it private, and the page names the plan that keeps results private; the pricing page says so on that plan.
 */
describe("plans in the console, and private results as a plan's unlock, in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let fake: FakeStripe;
  const dataDir = serverDataDir();
  const de = (ns: string, key: string, values: Record<string, string> = {}) =>
    text("de", ns, key).replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? "");

  beforeAll(async () => {
    const admin = async (...args: string[]) => {
      const run = runRole("admin", { DATA_DIR: dataDir }, args);
      expect(await run.exited, run.output()).toBe(0);
    };
    await admin("plans", "add", "--id", "pro", "--name", "Pro", "--monthly", "1500:eur", "--credits", "1000");
    await admin("plans", "set", "pro", "names.de=Profi", "unlocks.privateResults=true");
    fake = await startFakeStripe();
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        DATA_DIR: dataDir,
        SITE_URL: `http://127.0.0.1:${port}`,
        ADMIN_EMAILS: "betreiber@example.com",
        ...stripeEnvFor(fake),
      }),
      launchBrowser(),
    ]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fake?.close();
  });

  it("makes a free account's results public once the operator says so, naming the plan that keeps them private", async () => {
    // Before the operator's choice the pricing page does not sell what everyone has.
    const visitor = await browser.newContext();
    const pricing = await visitor.newPage();
    await pricing.goto(`${server.url}/de/pricing`);
    expect(await pricing.getByTestId("plan-pro").textContent()).not.toContain(
      de("billing", "pricing.plans.privateResults"),
    );

    const operator = await signedInContext(browser, server, "betreiber@example.com");
    const settingsPage = await operator.context.newPage();
    await settingsPage.goto(`${server.url}/de/user/admin/settings`);
    await settingsPage.getByRole("checkbox", { name: de("admin", "settings.billing.publicResults") }).check();
    await settingsPage.locator("button[name=intent][value=billing]").click();
    await expect
      .poll(async () => {
        await settingsPage.reload();
        return settingsPage.getByRole("checkbox", { name: de("admin", "settings.billing.publicResults") }).isChecked();
      })
      .toBe(true);
    await operator.context.close();

    await pricing.reload();
    expect(await pricing.getByTestId("plan-pro").textContent()).toContain(
      de("billing", "pricing.plans.privateResults"),
    );
    await visitor.close();

    // A free account's new image: public from the start, the switch cannot make it private, the plan is named.
    const { context, cookie } = await signedInContext(browser, server, "frei@example.com");
    const call = pageApi(server, server.url);
    const made = await call("POST", "/api/generations", cookie, {
      tool: "text-to-image",
      model: "demo-image",
      prompt: "Ein Leuchtturm im Nebel",
    });
    expect(made.status).toBe(201);
    const { generation } = (await made.json()) as { generation: { id: string; visibility: string } };
    expect(generation.visibility).toBe("public");
    const page = await context.newPage();
    await page.goto(`${server.url}/de${toolPath("text-to-image")}/${generation.id}`);
    await page.locator(".result-share").waitFor({ timeout: 60_000 });
    const toggle = page.locator(".result-share-toggle .ant-switch");
    expect(await toggle.getAttribute("aria-checked")).toBe("true");
    expect(await toggle.isDisabled()).toBe(true);
    const hint = page.getByTestId("public-by-plan");
    expect(await hint.textContent()).toContain(de("studio", "share.publicByPlan", { plan: "Profi" }));
    expect(await hint.getByRole("link").getAttribute("href")).toBe("/de/pricing#plans");
    // The share page is there for anyone.
    expect((await fetch(`${server.url}/share/${generation.id}`)).status).toBe(200);

    // Asked through the API all the same: refused, with the plan named in German.
    const refused = await fetch(`${server.url}/api/generations/${generation.id}`, {
      method: "PATCH",
      headers: {
        Cookie: cookie,
        Origin: server.url,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/json",
        "X-Locale": "de",
      },
      body: JSON.stringify({ visibility: "private" }),
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
      code: "plan_required",
      message: de("messages", "pricing.errors.privatePlanRequired", { plan: "Profi" }),
    });
    await context.close();
  });

  it("adds, refuses, edits and archives a plan in the console, in German, as the pricing page shows it", async () => {
    const { context } = await signedInContext(browser, server, "betreiber@example.com");
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${server.url}/de/user/admin/plans`);
    const form = page.locator("#plan-form");
    const notice = page.locator(".admin-notice");
    expect(await page.locator(".admin-plans-table").textContent()).toContain("Profi");

    await form.locator("input[name=id]").fill("studio");
    await form.locator("input[name=name]").fill("Studio");
    await form.locator("input[name=monthly]").fill("19 eur");
    await form.locator("input[name=credits]").fill("800");
    await form.getByRole("checkbox", { name: de("admin", "plans.fields.priority") }).check();
    await form.locator("summary").click();
    await form.locator("input[name='names.de']").fill("Atelier");
    await form.getByRole("button", { name: de("admin", "plans.add") }).click();
    await expect.poll(() => notice.textContent()).toBe(de("admin", "plans.errors.prices"));
    // What was typed is still there, to be corrected.
    expect(await form.locator("input[name=monthly]").inputValue()).toBe("19 eur");
    expect(await form.locator("input[name='names.de']").inputValue()).toBe("Atelier");
    await form.locator("input[name=monthly]").fill("1900:eur");
    await form.getByRole("button", { name: de("admin", "plans.add") }).click();
    await expect.poll(() => notice.textContent()).toBe(de("admin", "plans.added", { id: "studio" }));
    // The form is empty again, for the next plan.
    expect(await form.locator("input[name=id]").inputValue()).toBe("");
    await expect.poll(() => page.locator(".admin-plans-table").textContent()).toContain("Atelier");

    const pricing = await context.newPage();
    await pricing.goto(`${server.url}/de/pricing`);
    expect(await pricing.getByTestId("plan-studio").textContent()).toContain("Atelier");

    // Edited: its credits change on the pricing page.
    await page
      .getByRole("row", { name: /Atelier/ })
      .getByRole("link", { name: de("admin", "plans.edit") })
      .click();
    await expect
      .poll(() => form.locator(".ant-card-head").textContent())
      .toContain(de("admin", "plans.editTitle", { id: "studio" }));
    expect(await form.locator("input[name=monthly]").inputValue()).toBe("1900:eur");
    await form.locator("input[name=credits]").fill("950");
    await form.getByRole("button", { name: de("admin", "plans.save") }).click();
    await expect.poll(() => notice.textContent()).toBe(de("admin", "plans.changed", { id: "studio" }));
    await pricing.reload();
    expect(await pricing.getByTestId("plan-studio").textContent()).toContain("950");

    // Archived: sold no more.
    await page
      .getByRole("row", { name: /Atelier/ })
      .getByRole("button", { name: de("admin", "plans.archive") })
      .click();
    await expect.poll(() => notice.textContent()).toContain(de("admin", "plans.archived", { id: "studio" }));
    await pricing.reload();
    expect(await pricing.getByTestId("plan-studio").count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
