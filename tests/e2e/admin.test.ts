import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import routes from "#app/routes.ts";
import { freePort, ROOT, startServer, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { PASSWORD, signedIn } from "#tests/support/session.ts";
import { outbox } from "#tests/support/outbox.ts";
import { text } from "#tests/support/locales.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";

interface RouteEntry {
  path?: string;
  index?: boolean;
  file: string;
  children?: RouteEntry[];
}

/** Every page of the console, from the route configuration itself: a page added later is checked too. */
function adminRoutes(list: RouteEntry[], prefix = ""): { path: string; file: string }[] {
  return list.flatMap((route) => {
    const path = [prefix, route.path ?? ""].filter(Boolean).join("/");
    const own = path.includes("user/admin") ? [{ path: `/${path.replace(/^:lang\?\/?/, "")}`, file: route.file }] : [];
    return [...own, ...adminRoutes(route.children ?? [], path)];
  });
}

/** The intents each page's action takes; every console page with an action must be listed. */
const ACTIONS: Record<string, string[]> = {
  "routes/user/admin/user.tsx": ["grant", "revoke", "ban", "unban", "adjust", "resend"],
  "routes/user/admin/codes.tsx": ["create", "disable"],
  "routes/user/admin/plans.tsx": ["add", "change", "archive"],
  "routes/user/admin/order.tsx": ["refund"],
  "routes/user/admin/generation.tsx": ["refund", "hide"],
  "routes/user/admin/models.tsx": ["enable", "disable", "price", "check", "add", "duplicate", "up", "down", "remove"],
  "routes/user/admin/model.tsx": ["save", "remove", "check", "enable", "disable", "workflowVersion"],
  "routes/user/admin/model-add.tsx": ["describe", "add"],
  "routes/user/admin/connections.tsx": ["add", "test", "edit", "enable", "disable", "remove"],
  "routes/user/admin/settings.tsx": ["bonus", "packs", "announcement", "maintenance", "safety", "label", "billing"],
  "routes/user/admin/review.tsx": ["clear", "hide", "delete", "ban"],
};

describe("the admin console", () => {
  let server: TestServer;
  let browser: Browser;
  let stripe: FakeStripe;
  let openai: FakeOpenAI;
  let chief: string;
  let member: string;
  let target: string;
  let targetId: string;
  let memberId: string;

  const get = (path: string, cookie?: string) =>
    fetch(`${server.url}${path}`, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
  const post = (path: string, cookie: string | undefined, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin", ...(cookie ? { Cookie: cookie } : {}) },
      body: new URLSearchParams(fields),
    });
  const idOf = async (email: string) => {
    const html = await (await get(`/user/admin/users?q=${encodeURIComponent(email)}`, chief)).text();
    return /\/user\/admin\/users\/([A-Za-z0-9_-]+)/.exec(html)![1]!;
  };
  const auditFor = async (email: string) => {
    const html = await (await get(`/user/admin/audit?target=${encodeURIComponent(email)}`, chief)).text();
    return [...html.matchAll(/data-action="([a-zA-Z.]+)"/g)].map((m) => m[1]);
  };
  const asChief = async (): Promise<BrowserContext> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies(
      chief.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
    return context;
  };
  const notice = (page: Page) => page.locator(".admin-notice");

  beforeAll(async () => {
    [stripe, openai] = await Promise.all([startFakeStripe(), startFakeOpenAI({ apiKey: "sk-console-test" })]);
    // After the fakes listen: their own ports could otherwise be the one handed out here.
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        ADMIN_EMAILS: "chief@example.com",
        ...stripeEnvFor(stripe),
        OPENAI_API_KEY: "sk-console-test",
        OPENAI_BASE_URL: openai.apiUrl,
      }),
      launchBrowser(),
    ]);
    stripe.webhookUrl = `${server.url}/webhooks/stripe`;
    [chief, member, target] = await Promise.all([
      signedIn(server, server.url, "chief@example.com"),
      signedIn(server, server.url, "member@example.com"),
      signedIn(server, server.url, "target@example.com"),
    ]);
    [targetId, memberId] = await Promise.all([idOf("target@example.com"), idOf("member@example.com")]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await stripe?.close();
    await openai?.close();
  });

  it("answers 403 to anyone else on every page and every action, sends visitors to sign in, and changes nothing", async () => {
    const pages = adminRoutes(routes as RouteEntry[]);
    expect(pages.map((p) => p.path)).toEqual(
      expect.arrayContaining(["/user/admin", "/user/admin/users", "/user/admin/users/:id", "/user/admin/audit"]),
    );
    const withActions = pages.filter((p) =>
      /export (async )?function action/.test(readFileSync(join(ROOT, "app", p.file), "utf8")),
    );
    expect(withActions.map((p) => p.file).sort()).toEqual(Object.keys(ACTIONS).sort());
    const before = await auditFor("target@example.com");

    for (const { path } of pages) {
      const url = path.replace(":id", targetId);
      for (const prefixed of [url, `/de${url}`]) {
        expect((await get(prefixed, member)).status, prefixed).toBe(403);
        const visitor = await get(prefixed);
        expect(visitor.status, prefixed).toBe(302);
        expect(visitor.headers.get("location")).toContain("/auth/login");
      }
    }
    for (const { path, file } of withActions) {
      const url = path.replace(":id", targetId);
      for (const intent of ACTIONS[file]!) {
        const fields = {
          intent,
          amount: "1000",
          reason: "not allowed",
          name: "stolen",
          credits: "1000",
          count: "5",
          uses: "1",
          expires: "",
          batch: "00000000-0000-4000-8000-000000000000",
          bonus: "5000",
          model: "demo-image",
          enabled: "on",
          "text.en": "Hijacked",
          "pack.0.id": "stolen",
          "pack.0.credits": "1",
          "pack.0.price": "1",
          "pack.0.currency": "usd",
        };
        expect((await post(url, member, fields)).status, `${url} ${intent}`).toBe(403);
        expect((await post(`${url}.data`, member, fields)).status, `${url}.data ${intent}`).toBe(403);
        expect((await post(url, undefined, fields)).status, `${url} ${intent} signed out`).toBe(302);
      }
    }
    // Nothing happened: no audit entry, the account as it was.
    expect(await auditFor("target@example.com")).toEqual(before);
    const page = await (await get(`/user/admin/users?q=target%40example.com&role=admin`, chief)).text();
    expect(page).not.toContain(targetId);
    expect((await get("/api/me", target)).status).toBe(200);
  });

  it("hydrates the overview without a mismatch in every language, nothing spent or taken back yet", async () => {
    const context = await asChief();
    // Before anything is charged or refunded, the figures of credits spent and taken back are both zero.
    for (const prefix of ["", "/ja", "/de"]) {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await page.goto(`${server.url}${prefix}/user/admin`);
      await page.waitForFunction(() => document.documentElement.hasAttribute("data-hydrated"));
      await hydrated(page, ".overview-figures");
      expect(await page.locator("[data-testid=overview-spent] .overview-figure-value").textContent()).toBe("0");
      // No subscription yet: no monthly revenue, no churn to speak of.
      const locale = prefix.slice(1) || "en";
      expect(await page.getByTestId("overview-mrr").textContent()).toContain(
        text(locale, "admin", "overview.noSubscriptions"),
      );
      expect(await page.locator("[data-testid=overview-churn] .overview-figure-value").textContent()).toBe("—");
      expect(errors, prefix || "/").toEqual([]);
      await page.close();
    }
    await context.close();
  });

  it("adjusts credits and suspends an account in the browser, each action in the audit log", async () => {
    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/users`);
    await hydrated(page, ".admin-filters");
    await page.fill("input[name=q]", "target@");
    await page.click(".admin-filters button[type=submit]");
    await page.waitForURL(/q=target%40/);
    await page.getByRole("link", { name: /target@example\.com/ }).click();
    await page.waitForURL(`**/user/admin/users/${targetId}`);
    await hydrated(page, ".admin-actions");

    // Credits, with the required reason: the sign-up bonus (20) and 30 more.
    await page.fill(".admin-adjust input[name=amount]", "30");
    await page.fill(".admin-adjust input[name=reason]", "Goodwill after an outage");
    await page.getByRole("button", { name: text("en", "admin", "user.apply") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "user.adjusted").replace("{{balance}}", "50"));
    // The form is empty again for the next one.
    await expect.poll(() => page.locator(".admin-adjust input[name=amount]").inputValue()).toBe("");
    // More than there is: refused, nothing written.
    await page.fill(".admin-adjust input[name=amount]", "-1000");
    await page.fill(".admin-adjust input[name=reason]", "Too much");
    await page.getByRole("button", { name: text("en", "admin", "user.apply") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "user.notEnoughCredits"));

    // A suspension needs a reason, and ends the account's sessions.
    await page.fill("#ban-reason", "Spam in public prompts");
    await page.getByRole("button", { name: text("en", "admin", "user.ban") }).click();
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(text("en", "admin", "user.banned"));
    expect((await get("/api/me", target)).status).toBe(401);
    const signIn = await post("/auth/login", undefined, { email: "target@example.com", password: "harbor-Violet-42!" });
    expect(signIn.status).not.toBe(302);
    await page.getByRole("button", { name: text("en", "admin", "user.unban") }).click();
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(text("en", "admin", "user.unbanned"));

    await page.goto(`${server.url}/user/admin/audit?target=target%40example.com`);
    const rows = page.locator(".ant-table-row");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await auditFor("target@example.com")).toEqual(["user.unban", "user.ban", "credits.adjust"]);
    await expect(rows.first().textContent()).resolves.toContain("chief@example.com");
    await expect(rows.nth(1).textContent()).resolves.toContain("Spam in public prompts");
    await expect(rows.nth(2).textContent()).resolves.toContain("Goodwill after an outage");
    await context.close();
  });

  it("creates a batch of codes shown once as CSV, one of them redeemed, then withdraws the batch", async () => {
    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/codes`);
    await hydrated(page, ".admin-codes-form");
    await page.fill("input[name=name]", "Launch week");
    await page.fill("input[name=credits]", "15");
    await page.fill("input[name=count]", "3");
    await page.fill("input[name=creditsLast]", "30");
    await page.getByRole("button", { name: text("en", "admin", "codes.submit") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "codes.created_other").replace("{{count}}", "3").replace("{{name}}", "Launch week"));
    const codes = (await page.locator(".admin-code-list").inputValue()).split("\n");
    expect(codes).toHaveLength(3);
    expect(codes.every((code) => /^ATL-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/.test(code))).toBe(true);
    const download = page.getByRole("link", { name: text("en", "admin", "codes.download") });
    expect(await download.getAttribute("download")).toBe("codes-Launch-week.csv");
    const csv = decodeURIComponent(
      (await download.getAttribute("href"))!.replace(/^data:text\/csv;charset=utf-8,/, ""),
    );
    expect(csv.split("\r\n")).toEqual([
      "code,batch,credits,uses,expires",
      ...codes.map((code) => `${code},"Launch week",15,1,`),
      "",
    ]);

    // One is redeemed on the orders page.
    // (By the member: the target's sessions ended with its suspension.)
    const redeem = (code: string) => post("/user/orders", member, { intent: "redeem", code });
    const balance = async () =>
      ((await (await get("/api/me", member)).json()) as { credits: { balance: number } }).credits.balance;
    const before = await balance();
    expect((await redeem(codes[0]!)).status).toBe(200);
    expect(await balance()).toBe(before + 15);
    // Its credits last 30 days: the orders page and the header's balance say when they expire.
    const orders = await (await get("/user/orders", member)).text();
    const day = (at: number) =>
      new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" }).format(at + 30 * 86_400_000);
    const expires = [day(Date.now()), day(Date.now() - 60_000)];
    expect(
      expires.some((d) => orders.includes(`15 credits expire on ${d}`)),
      orders,
    ).toBe(true);
    expect(expires.some((d) => orders.includes(` · 15 expire on ${d}`))).toBe(true);
    // Shown once: the page does not have them again.
    await page.goto(`${server.url}/user/admin/codes`);
    const row = page.locator(".ant-table-row", { hasText: "Launch week" });
    await expect(row.textContent()).resolves.toContain(
      text("en", "admin", "codes.usedOf").replace("{{used}}", "1").replace("{{total}}", "3"),
    );
    expect(await page.content()).not.toContain(codes[1]);

    await hydrated(page, ".admin-codes-form");
    await row.getByRole("button", { name: text("en", "admin", "codes.disable") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "codes.disabled"));
    await expect.poll(() => row.textContent()).toContain(text("en", "admin", "codes.status.disabled"));
    const refused = await redeem(codes[1]!);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("credits.redeem.disabled");
    expect(await balance()).toBe(before + 15);
    expect(await auditFor("Launch week")).toEqual(["codes.disable", "codes.create"]);
    await context.close();
  });

  it("keeps settings in the database: a new bonus for new accounts, packs, a banner, maintenance mode and the visible label", async () => {
    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/settings`);
    await hydrated(page, ".admin-settings form");
    // No certificate configured: the provenance panel says outputs carry XMP alone.
    const provenance = page.locator(".admin-provenance");
    expect(await provenance.getAttribute("data-c2pa")).toBe("off");
    expect(await provenance.textContent()).toContain(text("en", "admin", "settings.provenance.xmpOnly"));
    // Each save waits for its own answer: the page may still show the previous save's notice, which says the same.
    const save = async (intent: string) => {
      const answered = page.waitForResponse(
        (r) => r.request().method() === "POST" && new URL(r.url()).pathname.startsWith("/user/admin/settings"),
      );
      await page.locator(`button[name=intent][value=${intent}]`).click();
      await answered;
    };
    const saved = text("en", "admin", "settings.saved");

    // The sign-up bonus: an account created now gets the new amount.
    await page.fill("input[name=bonus]", "35");
    await save("bonus");
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(saved);
    const fresh = await signedIn(server, server.url, "newcomer@example.com");
    const me = (await (await get("/api/me", fresh)).json()) as { credits: { balance: number } };
    expect(me.credits.balance).toBe(35);

    // Packs: the first one's price changes, a new one is added; the pricing page and checkout offer them.
    await page.fill("input[name='pack.0.price']", "6.50");
    await page.fill("input[name='pack.3.id']", "mega");
    await page.fill("input[name='pack.3.credits']", "10000");
    await page.fill("input[name='pack.3.price']", "250");
    await save("packs");
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(saved);
    const pricing = await (await get("/pricing")).text();
    expect(pricing).toContain("$6.50");
    expect(pricing).toContain("$250.00");
    // A row that is not a pack: refused, with the row named, nothing saved.
    await page.locator("input[name='pack.4.id']").waitFor();
    await page.fill("input[name='pack.4.id']", "Not An Id");
    await page.fill("input[name='pack.4.credits']", "5");
    await page.fill("input[name='pack.4.price']", "1");
    await save("packs");
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "settings.errors.packs.id").replace("{{row}}", "5"));
    expect(await (await get("/pricing")).text()).not.toContain("Not An Id");

    // The banner, in English and in Japanese; other languages show the English.
    await page.reload();
    await hydrated(page, ".admin-settings form");
    await page.check("input[name=enabled][type=checkbox]");
    await page.fill("textarea[name='text.en']", "Scheduled upgrade on Sunday at 02:00 UTC.");
    await page.fill("textarea[name='text.ja']", "日曜日 02:00 UTC にアップグレードを行います。");
    await save("announcement");
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(saved);
    expect(await (await get("/ja")).text()).toContain("日曜日 02:00 UTC にアップグレードを行います。");
    expect(await (await get("/de")).text()).toContain("Scheduled upgrade on Sunday at 02:00 UTC.");

    // Maintenance: a new generation is refused with its message, and nothing is held.
    await save("maintenance");
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(saved);
    const submit = () =>
      fetch(`${server.url}/api/generations`, {
        method: "POST",
        headers: {
          Cookie: fresh,
          Origin: server.url,
          "Sec-Fetch-Site": "same-origin",
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ tool: "text-to-image", model: "demo-image", prompt: "A lighthouse in the fog" }),
      });
    const refused = await submit();
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("maintenance");
    expect(await (await get("/")).text()).toContain(text("en", "common", "siteNotice.maintenance"));
    // The button says what it will do from the page's data: wait for the data that says maintenance is on.
    const maintenanceButton = () => page.locator("button[name=intent][value=maintenance]").textContent();
    await expect.poll(maintenanceButton, { timeout: 30_000 }).toBe(text("en", "admin", "settings.maintenance.stop"));
    await save("maintenance");
    await expect.poll(maintenanceButton, { timeout: 30_000 }).toBe(text("en", "admin", "settings.maintenance.start"));
    expect((await submit()).status).toBe(201);

    expect((await auditFor("")).filter((action) => action?.startsWith("settings."))).toEqual([
      "settings.maintenance",
      "settings.maintenance",
      "settings.announcement",
      "settings.packs",
      "settings.signupBonusCredits",
    ]);

    // The visible label: refused without a text, saved with one, in the corner chosen.
    const labelForm = page.locator("form", { has: page.locator("button[name=intent][value=label]") });
    await labelForm.locator("input[name=enabled]").check();
    await save("label");
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "settings.errors.label"));
    await labelForm.locator("input[name=text]").fill("AI-generated");
    await labelForm.locator("input[name=position][value=top-left]").check();
    await save("label");
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toBe(saved);
    expect((await auditFor(""))[0]).toBe("settings.label");
    await context.close();
  });

  it("switches a model off so that the studio and the API no longer offer it, and re-prices it", async () => {
    const models = async () =>
      ((await (await get("/api/models", member)).json()) as { models: { id: string; price: { credits: number } }[] })
        .models;
    expect((await models()).map((m) => m.id)).toContain("demo-image");
    // The studio's page data carries its models as a string in its JSON, so the id's quotes are escaped there.
    const offeredInStudio = async () =>
      /\\?"demo-image\\?"/.test(await (await get("/dashboard/image/create/text-to-image", member)).text());
    expect(await offeredInStudio()).toBe(true);
    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models`);
    await hydrated(page, ".admin-filters");
    const row = page.locator(".ant-table-row", { hasText: "demo-image" }).first();
    await row.getByRole("button", { name: text("en", "admin", "models.disable") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "models.disabled").replace("{{model}}", "demo-image"));
    await expect.poll(() => row.locator("[data-state]").getAttribute("data-state")).toBe("off");

    expect((await models()).map((m) => m.id)).not.toContain("demo-image");
    expect(await offeredInStudio()).toBe(false);
    const submitted = await fetch(`${server.url}/api/generations`, {
      method: "POST",
      headers: {
        Cookie: member,
        Origin: server.url,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ tool: "text-to-image", model: "demo-image", prompt: "A lighthouse in the fog" }),
    });
    expect(submitted.status).toBe(400);
    expect(((await submitted.json()) as { error: { code: string } }).error.code).toBe("unknown_model");

    await row.getByRole("button", { name: text("en", "admin", "models.enable") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "models.enabled").replace("{{model}}", "demo-image"));
    // A price of its own, and the provider's cost for the margin.
    await row.locator("input[name=credits]").fill("3");
    await row.locator("input[name=cost]").fill("0.02");
    await row.getByRole("button", { name: text("en", "admin", "settings.save") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "models.saved").replace("{{model}}", "demo-image"));
    expect((await models()).find((m) => m.id === "demo-image")?.price.credits).toBe(3);
    expect(await auditFor("demo-image")).toEqual(["models.update", "models.enable", "models.disable"]);
    await context.close();
  });

  it("tests a model's provider with a real generation, and shows whether it works and why not", async () => {
    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models`);
    await hydrated(page, ".admin-filters");
    const health = page.locator("[data-health='gpt-image-1']");
    const status = () => health.locator("[data-provider=openai]").getAttribute("data-status");
    const test = () => health.getByRole("button", { name: text("en", "admin", "models.check") }).click();
    expect(await status()).toBe("never");
    const before = openai.requests.length;
    await test();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "models.checkStarted").replace("{{model}}", "GPT Image 1"));
    // The page follows the test, run by the worker, until it ends.
    await expect.poll(status, { timeout: 20_000 }).toBe("succeeded");
    expect(openai.requests.slice(before).map((r) => r.path)).toEqual(["/v1/images/generations"]);
    // The provider refuses the key: the test says so, with the reason.
    openai.failNext = 1;
    openai.failStatus = 401;
    await test();
    await expect.poll(status, { timeout: 20_000 }).toBe("failed");
    expect(await health.textContent()).toContain("provider_auth");
    expect(await auditFor("gpt-image-1")).toEqual(["models.check", "models.check"]);
    await context.close();
  });

  it("refunds a paid order through Stripe; its webhook takes the credits back, once", async () => {
    const balance = async () =>
      ((await (await get("/api/me", member)).json()) as { credits: { balance: number } }).credits.balance;
    // The member buys the first pack (100 credits) and pays at the fake Stripe.
    const buy = await post("/pricing", member, { pack: "starter", key: "b1f0c7a2-5d7e-4c38-9a51-3f0f2d7a9e11" });
    expect(buy.status).toBe(302);
    const sessionId = /\/pay\/(cs_test_\w+)/.exec(buy.headers.get("location")!)![1]!;
    const before = await balance();
    await stripe.deliver(stripe.pay(sessionId));
    await expect.poll(balance, { timeout: 30_000 }).toBe(before + 100);

    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/orders?q=member%40example.com&status=paid`);
    await page.locator(".ant-table-row a").first().click();
    await page.waitForURL(/\/user\/admin\/orders\/[0-9a-f-]{36}$/);
    await hydrated(page, ".admin-actions");
    await page.fill("#refund-reason", "Bought by mistake");
    await page.getByRole("button", { name: text("en", "admin", "order.refundButton") }).click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toMatch(/^Refund of \$\d+\.\d\d requested/);
    // Stripe's event reverses the credits and marks the order.
    await expect.poll(balance, { timeout: 30_000 }).toBe(before);
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator(".ant-tag").first().textContent();
        },
        { timeout: 30_000 },
      )
      .toBe(text("en", "admin", "orderStatus.refunded"));
    await expect(page.locator(".ant-table-row").allTextContents()).resolves.toEqual(
      expect.arrayContaining([expect.stringContaining("charge.refunded")]),
    );
    expect(await page.locator("#refund-reason").count()).toBe(0);
    // Asked again: refused, nothing more refunded.
    const again = await post(new URL(page.url()).pathname, chief, { intent: "refund", reason: "twice" });
    expect(again.status).toBe(409);
    expect(await balance()).toBe(before);
    expect(stripe.requests.filter((r) => r.path === "/v1/refunds")).toHaveLength(1);
    expect((await auditFor("member@example.com")).filter((a) => a === "orders.refund")).toHaveLength(1);
    await context.close();
  });

  it("gives a generation's credits back once, and hides a public one from the showcase and its share page", async () => {
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          Cookie: member,
          Origin: server.url,
          "Sec-Fetch-Site": "same-origin",
          ...(body ? { "Content-Type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    const balance = async () =>
      ((await (await api("GET", "/api/me")).json()) as { credits: { balance: number } }).credits.balance;
    // A public picture of the member's, finished and charged.
    const created = await api("POST", "/api/generations", {
      tool: "text-to-image",
      model: "demo-image",
      prompt: "A harbour at dawn, for the showcase",
    });
    expect(created.status).toBe(201);
    const { generation } = (await created.json()) as { generation: { id: string; creditsHeld: number } };
    const ended = async () =>
      ((await (await api("GET", `/api/generations/${generation.id}`)).json()) as { generation: { status: string } })
        .generation.status;
    await expect.poll(ended, { timeout: 30_000 }).toBe("succeeded");
    expect((await api("PATCH", `/api/generations/${generation.id}`, { visibility: "public" })).status).toBe(200);
    expect((await get(`/share/${generation.id}`)).status).toBe(200);
    // The home page's showcase has it (and the page is now kept in memory).
    expect(await (await get("/")).text()).toContain("A harbour at dawn, for the showcase");
    const before = await balance();

    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/generations?user=member%40example.com&status=succeeded`);
    await page.locator(".ant-table-row a", { hasText: /\d/ }).first().click();
    await page.waitForURL(`**/user/admin/generations/${generation.id}`);
    await hydrated(page, ".admin-actions");

    await page.fill("#refund-reason", "The picture came out blank");
    await page.locator("button[name=intent][value=refund]").click();
    await expect.poll(() => notice(page).textContent(), { timeout: 30_000 }).toMatch(/given back to the owner/);
    expect(await balance()).toBeGreaterThan(before);
    const refunded = await balance();
    // Once: the form is gone, and asking again changes nothing.
    await expect.poll(() => page.locator("#refund-reason").count()).toBe(0);
    const again = await post(`/user/admin/generations/${generation.id}`, chief, { intent: "refund", reason: "again" });
    expect(again.status).toBe(409);
    expect(await balance()).toBe(refunded);

    await page.fill("#hide-reason", "Not for the showcase");
    await page.locator("button[name=intent][value=hide]").click();
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "generation.hiddenNow"));
    expect((await get(`/share/${generation.id}`)).status).toBe(404);
    expect(await (await get("/")).text()).not.toContain("A harbour at dawn, for the showcase");
    // Its owner cannot publish it again.
    const republish = await api("PATCH", `/api/generations/${generation.id}`, { visibility: "public" });
    expect(republish.status).toBe(403);
    expect(((await republish.json()) as { error: { code: string } }).error.code).toBe("moderated");
    expect((await auditFor("member@example.com")).filter((a) => a?.startsWith("generations."))).toEqual([
      "generations.hide",
      "generations.refund",
    ]);
    await context.close();
  });

  it("shows the day's business on the overview: the accounts, the order paid and refunded, the generation", async () => {
    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/users`);
    const accounts = Number((await page.locator(".admin-count").textContent())!.replace(/\D/g, ""));
    // The period is a plain GET form: it works before the scripts arrive.
    const early = await openBeforeScripts(context, `${server.url}/user/admin`);
    await early.page.selectOption("select[name=period]", "24h");
    await early.page.click(".admin-filters button[type=submit]");
    await early.page.waitForURL(/\/user\/admin\?period=24h$/, { waitUntil: "domcontentloaded" });
    expect(await early.page.locator("select[name=period]").inputValue()).toBe("24h");
    early.release();
    await early.page.close();

    await page.goto(`${server.url}/user/admin?period=24h`);
    await hydrated(page, ".overview-figures");
    const value = (id: string) => page.locator(`[data-testid=overview-${id}] .overview-figure-value`).textContent();
    // Every account of this run signed up within the day.
    expect(await value("signups")).toBe(String(accounts));
    // The member's order, paid and then refunded.
    expect(await value("paying")).toBe("1");
    expect(await value("revenue-usd")).toMatch(/^\$\d+\.\d\d$/);
    expect(await value("refunds")).toBe("1");
    expect(Number(await value("sold"))).toBeGreaterThanOrEqual(100);
    // The member's picture: succeeded, so nothing failed.
    expect(Number(await value("generations"))).toBeGreaterThanOrEqual(1);
    expect(await value("failure-rate")).toBe("0%");
    await expect(page.locator(".chart-title").allTextContents()).resolves.toEqual(
      expect.arrayContaining([text("en", "admin", "overview.charts.generationsHourly")]),
    );
    // An hour a column: 24 of them, or 25 when the period starts within an hour.
    expect([24, 25]).toContain(await page.locator(".chart-columns").first().locator("li").count());
    // With the scripts, Ant Design's select takes the browser's list's place, and choosing a period applies at once.
    await page.locator(".admin-filters .ant-select").click();
    await page.locator(".ant-select-item-option", { hasText: text("en", "admin", "periods.30d") }).click();
    await page.waitForURL(/period=30d$/);
    await expect
      .poll(() => page.locator(".chart-title").allTextContents(), { timeout: 30_000 })
      .toEqual(expect.arrayContaining([text("en", "admin", "overview.charts.generationsDaily")]));
    await context.close();
  });

  it("takes an action typed before the page's scripts arrive", async () => {
    const context = await asChief();
    const { page, release } = await openBeforeScripts(context, `${server.url}/user/admin/users/${targetId}`);
    await page.fill(".admin-adjust input[name=amount]", "-5");
    await page.fill(".admin-adjust input[name=reason]", "Typed early");
    await page.click(".admin-adjust button[type=submit]");
    await page.waitForLoadState("domcontentloaded");
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "user.adjusted").replace("{{balance}}", "45"));
    release();
    await context.close();
  });

  it("asks for the visible label on an image model's pictures from its page", async () => {
    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/models/demo-image`);
    await hydrated(page, "input[name=label]");
    await page.locator("input[name=label]").check();
    const answered = page.waitForResponse((r) => r.request().method() === "POST");
    await page.locator("button[name=intent][value=save]").click();
    await answered;
    await expect
      .poll(() => notice(page).textContent(), { timeout: 30_000 })
      .toBe(text("en", "admin", "model.saved").replace("{{model}}", "Atelier Demo Image"));
    await page.reload();
    await hydrated(page, "input[name=label]");
    expect(await page.locator("input[name=label]").isChecked()).toBe(true);
    await context.close();
  });

  it("grants and removes the admin role; an administrator cannot remove their own", async () => {
    expect((await post(`/user/admin/users/${memberId}`, chief, { intent: "grant" })).status).toBe(200);
    expect((await get("/user/admin", member)).status).toBe(200);
    expect((await post(`/user/admin/users/${memberId}`, chief, { intent: "revoke" })).status).toBe(200);
    expect((await get("/user/admin", member)).status).toBe(403);
    expect((await auditFor("member@example.com")).filter((a) => a?.startsWith("role."))).toEqual([
      "role.revoke",
      "role.grant",
    ]);
    const chiefId = await idOf("chief@example.com");
    expect((await post(`/user/admin/users/${chiefId}`, chief, { intent: "revoke" })).status).toBe(409);
    expect((await post(`/user/admin/users/${chiefId}`, chief, { intent: "ban", reason: "oops" })).status).toBe(409);
    expect((await get("/user/admin", chief)).status).toBe(200);
    // The confirmation e-mail again, for an account that has not confirmed its address; not for one that has.
    await post("/auth/register", undefined, {
      name: "Late",
      email: "late@example.com",
      password: PASSWORD,
      terms: "on",
    });
    const lateId = await idOf("late@example.com");
    const mails = () => outbox(server.dataDir).filter((m) => m.to === "late@example.com").length;
    await expect.poll(mails, { timeout: 30_000 }).toBe(1);
    expect((await post(`/user/admin/users/${lateId}`, chief, { intent: "resend" })).status).toBe(200);
    await expect.poll(mails, { timeout: 30_000 }).toBe(2);
    expect((await post(`/user/admin/users/${memberId}`, chief, { intent: "resend" })).status).toBe(409);
    expect(await auditFor("late@example.com")).toEqual(["user.resendVerification"]);
    // An intent it does not know, and an account that does not exist.
    expect((await post(`/user/admin/users/${memberId}`, chief, { intent: "delete" })).status).toBe(400);
    expect((await get("/user/admin/users/no-such-account", chief)).status).toBe(404);
  });

  it("reads in another language and on a phone", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.addCookies(
      chief.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/ja/user/admin/users?sort=email`);
    await expect(page.locator("h1").textContent()).resolves.toBe(text("ja", "admin", "users.title"));
    await expect(page.locator(".admin-nav-link.active").textContent()).resolves.toBe(text("ja", "admin", "nav.users"));
    // The list is cards on a phone: nothing wider than the screen.
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    // The overview too: its figures and charts fit the screen.
    await page.goto(`${server.url}/ja/user/admin?period=30d`);
    await expect(page.locator("h1").textContent()).resolves.toBe(text("ja", "admin", "overview.title"));
    expect(await page.locator(".chart-columns").count()).toBeGreaterThan(0);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await context.close();
  });
});
