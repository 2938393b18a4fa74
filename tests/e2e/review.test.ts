import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { openPglite } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { freePort, startServer, tempDir, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

const SHOTS = process.env.E2E_SHOTS ?? "";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/*
 * Reports and review, the way people meet them: a visitor with no account reports a public result from its share
 * page before the page's scripts run, and is thanked in their language; an administrator finds it in the review
 * queue with the reason and clears it; a result a check flagged waits there too, private, until it is cleared, and
 * its owner can then publish it.
 */
describe("reports and the review queue", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: string;
  let chief: string;
  let reported: string;
  let flagged: string;
  const dataDir = tempDir("review-e2e-");
  let env: Record<string, string>;

  const shot = async (page: Page, name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const asChief = async (viewport = DESKTOP): Promise<BrowserContext> => {
    const context = await browser.newContext({ viewport });
    await context.addCookies(
      chief.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
    return context;
  };

  beforeAll(async () => {
    const port = await freePort();
    env = {
      PORT: String(port),
      SITE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      ADMIN_EMAILS: "chief@example.com",
    };
    [server, browser] = await Promise.all([startServer(env), launchBrowser()]);
    owner = await signedIn(server, server.url, "owner@example.com");
    chief = await signedIn(server, server.url, "chief@example.com");
    const call = pageApi(server, server.url);
    const make = async (prompt: string) => {
      const created = await call("POST", "/api/generations", owner, {
        tool: "text-to-image",
        model: "demo-image",
        prompt,
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { generation: { id: string } }).generation.id;
      let status = "queued";
      for (let i = 0; i < 600 && ["queued", "processing"].includes(status); i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (
          (await (await call("GET", `/api/generations/${id}`, owner)).json()) as {
            generation: { status: string };
          }
        ).generation.status;
      }
      expect(status).toBe("succeeded");
      return id;
    };
    reported = await make("a lighthouse with a suspicious banner");
    expect((await call("PATCH", `/api/generations/${reported}`, owner, { visibility: "public" })).status).toBe(200);
    flagged = await make("a lighthouse a check did not like");
    // What the output check does when it flags a result its owner asked to publish: private, waiting for review.
    await server.close();
    const handle = await openPglite(dataDir, pino({ level: "silent" }));
    try {
      await handle.db
        .update(generation)
        .set({
          review: "flagged",
          visibility: "private",
          safety: {
            level: "standard",
            prompt: [{ source: "moderation", flagged: false, categories: [], scores: { sexual: 0.02 } }],
            output: [
              { source: "classifier", flagged: true, categories: ["sexual"], scores: { sexual: 0.93, porn: 0.41 } },
            ],
            wantedPublic: true,
          },
        })
        .where(eq(generation.id, flagged));
    } finally {
      await handle.close();
    }
    server = await startServer(env);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("lets a signed-out visitor report a public result before the page's scripts, and thanks them", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const { page, release } = await openBeforeScripts(context, `${server.url}/share/${reported}`);
    await page.locator(".share-report summary").click();
    await page.locator('input[name="reason"][value="spam"]').check();
    await page.locator('textarea[name="note"]').fill("The banner advertises pills.");
    await shot(page, "share-report-form-en-desktop");
    await page.locator(".share-report-form button[type=submit]").click();
    await page.waitForSelector('[data-testid="report-thanks"]');
    expect(await page.locator('[data-testid="report-thanks"]').innerText()).toContain(
      text("en", "studio", "share.report.thanks"),
    );
    await shot(page, "share-report-thanks-en-desktop");
    release();
    await context.close();

    // In German on a phone: the same visitor again is thanked (and counted once).
    const phone = await browser.newContext({ viewport: PHONE, isMobile: true });
    const german = await openBeforeScripts(phone, `${server.url}/de/share/${reported}`);
    expect(await german.page.locator(".share-report summary").innerText()).toBe(
      text("de", "studio", "share.report.open"),
    );
    await german.page.locator(".share-report summary").click();
    await german.page.locator('input[name="reason"][value="hate"]').check();
    await shot(german.page, "share-report-form-de-phone");
    await german.page.locator(".share-report-form button[type=submit]").click();
    await german.page.waitForSelector('[data-testid="report-thanks"]');
    expect(await german.page.locator('[data-testid="report-thanks"]').innerText()).toContain(
      text("de", "studio", "share.report.thanks"),
    );
    await shot(german.page, "share-report-thanks-de-phone");
    german.release();
    await phone.close();

    // A result nobody else may see cannot be reported: it does not exist for them.
    const refused = await fetch(`${server.url}/share/${flagged}`, {
      method: "POST",
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams({ reason: "spam" }),
    });
    expect(refused.status).toBe(404);
  });

  it("slows down a flood of reports from one address", async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${server.url}/share/${reported}`, {
        method: "POST",
        headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
        body: new URLSearchParams({ reason: "spam" }),
      });
      statuses.push(res.status);
      if (res.status === 429) retryAfter ??= res.headers.get("Retry-After");
    }
    // The pages above sent some already: at most ten a minute pass, and once refused, the rest are told when to
    // come back.
    const first = statuses.indexOf(429);
    expect(first).toBeGreaterThan(-1);
    expect(first).toBeLessThanOrEqual(10);
    expect(statuses.slice(first).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it("shows the report and the flagged result in the review queue; clearing them publishes what its owner wanted", async () => {
    const call = pageApi(server, server.url);
    // Flagged: its owner cannot publish it yet.
    expect((await call("PATCH", `/api/generations/${flagged}`, owner, { visibility: "public" })).status).toBe(403);

    const context = await asChief();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/review`);
    await hydrated(page, ".admin-nav");
    expect(await page.locator('[data-testid="nav-count-review"] [aria-hidden]').innerText()).toBe("2");
    const item = page.locator(`[data-testid="review-item"][data-id="${reported}"]`);
    await expect(item.innerText()).resolves.toContain(text("en", "admin", "review.reasons.spam"));
    await expect(item.innerText()).resolves.toContain("The banner advertises pills.");
    const flaggedItem = page.locator(`[data-testid="review-item"][data-id="${flagged}"]`);
    await expect(flaggedItem.innerText()).resolves.toContain(text("en", "admin", "review.flagged"));
    // Blurred until shown, and blurred again: a checkbox and its label, no script.
    const picture = item.locator(".review-thumb img");
    expect(await picture.evaluate((img) => getComputedStyle(img).filter)).toContain("blur");
    await item.locator(".review-show-label").click();
    expect(await picture.evaluate((img) => getComputedStyle(img).filter)).toBe("none");
    await page.waitForFunction(
      (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
      await picture.elementHandle(),
    );
    await shot(page, "review-queue-en-desktop");

    await item.locator('input[name="reason"]').fill("an advert, not spam");
    await item.locator('button[value="clear"]').click();
    await page.waitForSelector(`[data-testid="review-item"][data-id="${reported}"]`, { state: "detached" });
    expect(await page.locator(".admin-notice").innerText()).toContain(
      text("en", "admin", "review.done.clear").replace("{{count}}", "1"),
    );
    expect(await page.locator('[data-testid="nav-count-review"] [aria-hidden]').innerText()).toBe("1");
    await context.close();

    // The flagged one, in German on a phone.
    const phone = await asChief(PHONE);
    const german = await phone.newPage();
    await german.goto(`${server.url}/de/user/admin/review`);
    await hydrated(german, ".admin-nav");
    const row = german.locator(`[data-testid="review-item"][data-id="${flagged}"]`);
    await expect(row.innerText()).resolves.toContain(text("de", "admin", "review.sources.classifier"));
    await shot(german, "review-queue-de-phone");
    await row.locator('input[name="reason"]').fill("Fehlalarm");
    await row.locator('button[value="clear"]').click();
    await german.waitForSelector(`[data-testid="review-item"][data-id="${flagged}"]`, { state: "detached" });
    expect(await german.locator(".review-empty").innerText()).toBe(text("de", "admin", "review.empty"));
    await shot(german, "review-queue-cleared-de-phone");
    await phone.close();

    // Its owner had asked for it public: it is, and they can make it private and public again themselves.
    expect((await fetch(`${server.url}/share/${flagged}`)).status).toBe(200);
    expect((await call("PATCH", `/api/generations/${flagged}`, owner, { visibility: "private" })).status).toBe(200);
    expect((await call("PATCH", `/api/generations/${flagged}`, owner, { visibility: "public" })).status).toBe(200);
  });

  it("lists the refused prompts in their own tab", async () => {
    const context = await asChief();
    const { page, release } = await openBeforeScripts(context, `${server.url}/user/admin/review?tab=refused`);
    expect(await page.locator(".review-tab[aria-current=page]").innerText()).toBe(
      text("en", "admin", "review.tabs.refused"),
    );
    expect(await page.locator(".ant-table").innerText()).toContain(text("en", "admin", "review.noRefusals"));
    release();
    await context.close();
  });
});
