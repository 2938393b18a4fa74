import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { openPglite } from "#server/db/client.ts";
import { freePort, startServer, tempDir, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { pageApi, signedIn, signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { EXPLORE_PAGE_SIZE } from "#common/explore.ts";

const SHOTS = process.env.E2E_SHOTS ?? "";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/*
 * Explore, the way visitors meet it: browsing the public results (phone and desktop), by kind and order, searching
 * prompts in two languages, more results as they scroll (plain links before the scripts), liking and unliking with
 * and without the scripts, and an operator closing it.
 */
describe.skipIf(TEST_DATABASE_URL)("explore", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: string;
  const ids: Record<string, string> = {};
  const dataDir = tempDir("explore-e2e-");
  let env: Record<string, string>;

  const shot = async (page: Page, name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const cards = (page: Page) => page.getByTestId("explore-card");

  beforeAll(async () => {
    const port = await freePort();
    env = {
      PORT: String(port),
      SITE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      ADMIN_EMAILS: "curator@example.com",
    };
    [server, browser] = await Promise.all([startServer(env), launchBrowser()]);
    owner = await signedIn(server, server.url, "maker@example.com");
    const call = pageApi(server, server.url);
    const make = async (name: string, body: Record<string, unknown>, locale = "en") => {
      const created = await call("POST", "/api/generations", owner, body, { "X-Locale": locale });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { generation: { id: string } }).generation.id;
      let status = "queued";
      for (let i = 0; i < 600 && ["queued", "processing"].includes(status); i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (
          (await (await call("GET", `/api/generations/${id}`, owner)).json()) as { generation: { status: string } }
        ).generation.status;
      }
      expect(status).toBe("succeeded");
      expect((await call("PATCH", `/api/generations/${id}`, owner, { visibility: "public" })).status).toBe(200);
      ids[name] = id;
    };
    await make("lighthouse", { tool: "text-to-image", model: "demo-image", prompt: "A lighthouse in a storm at dusk" });
    await make(
      "leuchtturm",
      { tool: "text-to-image", model: "demo-image", prompt: "Ein Leuchtturm im Sturm, Aquarell" },
      "de",
    );
    await make("waves", { tool: "text-to-video", model: "demo-video", prompt: "Waves rolling onto a beach" });
    // Enough older results for a second page: copies of the first, each with its own rows.
    await server.close();
    const handle = await openPglite(dataDir, pino({ level: "silent" }));
    try {
      await handle.db.execute(sql`
        with copies as (
          insert into generation (user_id, kind, tool, model_id, prompt, params, status, credits_held, visibility,
            timeout_seconds, prompt_lang, created_at, finished_at)
          select user_id, kind, tool, model_id, 'A quiet harbour, study ' || n, params, status, 0, 'public',
            timeout_seconds, 'en', created_at - make_interval(hours => n), finished_at
          from generation, generate_series(1, ${EXPLORE_PAGE_SIZE}) n
          where id = ${ids.lighthouse}
          returning id
        )
        insert into asset (user_id, generation_id, role, kind, mime_type, width, height, size_bytes, checksum,
          storage_key, thumb_key, position)
        select a.user_id, c.id, a.role, a.kind, a.mime_type, a.width, a.height, a.size_bytes, a.checksum,
          a.storage_key || '.' || c.id, a.thumb_key, a.position
        from copies c cross join asset a where a.generation_id = ${ids.lighthouse}`);
    } finally {
      await handle.close();
    }
    server = await startServer(env);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("browses, filters by kind and pages before the scripts run, on a phone", async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const { page, release } = await openBeforeScripts(context, `${server.url}/explore`);
    await expect.poll(() => cards(page).count()).toBe(EXPLORE_PAGE_SIZE);
    await expect(page.locator(".site-nav, .site-drawer").getByRole("link", { name: "Explore" }).first()).toBeDefined();
    const first = cards(page).first();
    expect(await first.locator(".explore-card-prompt").getAttribute("lang")).toBe("en");
    await shot(page, "explore-phone");
    // The next page is a plain link.
    await page.getByTestId("explore-more").click();
    await page.waitForURL(/\/explore\?page=2$/, { waitUntil: "domcontentloaded" });
    await expect.poll(() => cards(page).count()).toBe(3);
    // Videos only, by the kind's link.
    await page.getByRole("link", { name: "Videos" }).click();
    await page.waitForURL(/\/explore\?kind=video$/, { waitUntil: "domcontentloaded" });
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).first().getAttribute("data-id")).toBe(ids.waves);
    expect(await cards(page).first().locator("video").getAttribute("poster")).toMatch(/thumb\.webp$/);
    release();
    await context.close();
  });

  it("searches prompts in German and in English, before and after the scripts", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const { page, release } = await openBeforeScripts(context, `${server.url}/de/explore`);
    await page.getByRole("searchbox").fill("Leuchtturm");
    await page.getByRole("searchbox").press("Enter");
    await page.waitForURL(/\/de\/explore\?q=Leuchtturm$/, { waitUntil: "domcontentloaded" });
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).first().getAttribute("data-id")).toBe(ids.leuchtturm);
    expect(await cards(page).first().locator(".explore-card-prompt").getAttribute("lang")).toBe("de");
    expect(await page.locator("h1").textContent()).toContain("Leuchtturm");
    release();
    await page.goto(`${server.url}/explore`);
    await hydrated(page);
    await page.getByRole("searchbox").fill("lighthouses");
    await page.getByRole("searchbox").press("Enter");
    await page.waitForURL(/\/explore\?q=lighthouses$/);
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).first().getAttribute("data-id")).toBe(ids.lighthouse);
    await shot(page, "explore-search");
    // Nothing found says so.
    await page.getByRole("searchbox").fill("zeppelin");
    await page.getByRole("searchbox").press("Enter");
    await expect(page.getByTestId("explore-empty")).toBeDefined();
    await page.getByTestId("explore-empty").waitFor();
    await context.close();
  });

  it("loads more as the visitor scrolls once the scripts run, each result once", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/explore?sort=newest`);
    await hydrated(page);
    await page.getByTestId("explore-more").scrollIntoViewIfNeeded();
    await expect.poll(() => cards(page).count()).toBe(EXPLORE_PAGE_SIZE + 3);
    const shown = await cards(page).evaluateAll((all) => all.map((c) => c.getAttribute("data-id")));
    expect(new Set(shown).size).toBe(shown.length);
    expect(page.url()).toMatch(/\/explore\?sort=newest$/);
    await context.close();
  });

  it("likes and unlikes, before the scripts and after; signed out, the like asks to sign in", async () => {
    const anonymous = await browser.newContext({ viewport: DESKTOP });
    const visitor = await anonymous.newPage();
    await visitor.goto(`${server.url}/explore?sort=newest`);
    const like = visitor.locator(`[data-id="${ids.waves}"] .like-button`);
    await like.click();
    await visitor.waitForURL(/\/auth\/login\?redirect=%2Fexplore%3Fsort%3Dnewest$/);
    await anonymous.close();

    const { context } = await signedInContext(browser, server, "fan@example.com", { viewport: DESKTOP });
    const { page, release } = await openBeforeScripts(context, `${server.url}/explore?sort=newest`);
    const button = () => page.locator(`[data-id="${ids.waves}"] .like-button`);
    expect(await button().getAttribute("aria-pressed")).toBe("false");
    await button().click();
    await page.waitForLoadState("domcontentloaded");
    await expect.poll(() => button().getAttribute("aria-pressed")).toBe("true");
    expect(await button().textContent()).toBe("1");
    release();
    await page.goto(`${server.url}/explore?sort=newest`);
    await hydrated(page);
    expect(await button().getAttribute("aria-pressed")).toBe("true");
    await button().click();
    await expect.poll(() => button().getAttribute("aria-pressed")).toBe("false");
    await expect.poll(() => button().textContent()).toBe("0");
    await button().click();
    await expect.poll(() => button().textContent()).toBe("1");
    // What the server kept.
    await page.reload();
    await expect.poll(() => button().textContent()).toBe("1");
    // Trending puts the liked one first.
    await page.goto(`${server.url}/explore`);
    expect(await cards(page).first().getAttribute("data-id")).toBe(ids.waves);
    await shot(page, "explore-desktop");
    await context.close();
  });

  it("gives a result's page its structured data, previews, canonical and alternates, and its likes", async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/de/share/${ids.leuchtturm}`);
    expect(response?.status()).toBe(200);
    const head = page.locator("head");
    expect(await head.locator('meta[name="robots"]').count()).toBe(0);
    expect(await head.locator('link[rel="canonical"]').getAttribute("href")).toBe(
      `${server.url}/de/share/${ids.leuchtturm}`,
    );
    const alternates = await head
      .locator('link[rel="alternate"][hreflang]')
      .evaluateAll((links) => links.map((l) => l.getAttribute("hreflang")));
    expect(alternates).toHaveLength(11);
    expect(alternates).toContain("x-default");
    expect(await head.locator('meta[property="og:image"]').getAttribute("content")).toMatch(
      new RegExp(`^${server.url}/media/`),
    );
    expect(await head.locator('meta[name="twitter:card"]').getAttribute("content")).toBe("summary_large_image");
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').first().textContent())!) as Record<
      string,
      unknown
    >;
    // Google's image metadata: contentUrl and one of creator, creditText, copyrightNotice or license.
    expect(ld).toMatchObject({ "@context": "https://schema.org", "@type": "ImageObject", inLanguage: "de" });
    expect(ld.contentUrl).toMatch(new RegExp(`^${server.url}/media/`));
    expect(ld.creator ?? ld.creditText).toBeTruthy();
    expect(await page.locator(".share-prompt").getAttribute("lang")).toBe("de");
    await shot(page, "share-phone-de");
    // A video's page: VideoObject's required name, thumbnailUrl and uploadDate.
    await page.goto(`${server.url}/share/${ids.waves}`);
    const video = JSON.parse(
      (await page.locator('script[type="application/ld+json"]').first().textContent())!,
    ) as Record<string, unknown>;
    expect(video["@type"]).toBe("VideoObject");
    expect(video.name).toBeTruthy();
    expect(video.thumbnailUrl).toMatch(/thumb\.webp$/);
    expect(Number.isNaN(Date.parse(String(video.uploadDate)))).toBe(false);
    expect(video.duration).toMatch(/^PT\d+S$/);
    await context.close();
  });

  it("remixes a public result with its settings; the remix links back and is counted", async () => {
    const { context, cookie } = await signedInContext(browser, server, "remixer@example.com", { viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/share/${ids.lighthouse}`);
    await hydrated(page);
    await page.getByTestId("remix").click();
    await page.waitForURL(new RegExp(`/dashboard/image/7595af7e\\?remix=${ids.lighthouse}$`));
    await page.getByTestId("remixing").waitFor();
    expect(await page.locator("#studio-prompt").inputValue()).toBe("A lighthouse in a storm at dusk");
    await page.fill("#studio-prompt", "A lighthouse in a storm at dawn");
    await page.focus("#studio-prompt");
    await page.keyboard.press("Control+Enter");
    const card = page.locator(".gen-card").first();
    await card.and(page.locator("[data-status=succeeded]")).waitFor({ timeout: 60_000 });
    const remix = (await card.getAttribute("data-id"))!;
    await page.goto(`${server.url}/dashboard/image/7595af7e/${remix}`);
    await page.getByTestId("remix-of").getByRole("link").click();
    await page.waitForURL(`${server.url}/share/${ids.lighthouse}`);
    await page.locator(".share-remix-count").waitFor();
    // Once public, the remix is listed on its source's page and says what it remixes.
    const call = pageApi(server, server.url);
    expect((await call("PATCH", `/api/generations/${remix}`, cookie, { visibility: "public" })).status).toBe(200);
    await page.reload();
    expect(await page.locator(`#share-remixes ~ .explore-grid [data-id="${remix}"]`).count()).toBe(1);
    await page.goto(`${server.url}/share/${remix}`);
    expect(await page.getByTestId("remix-of").getByRole("link").getAttribute("href")).toBe(`/share/${ids.lighthouse}`);
    // The most remixed first.
    await page.goto(`${server.url}/explore?sort=remixed`);
    expect(await cards(page).first().getAttribute("data-id")).toBe(ids.lighthouse);
    await context.close();
  });

  it("gives a creator a page from their profile's handle, which others follow, before the scripts too", async () => {
    const maker = await browser.newContext({ viewport: PHONE });
    await maker.addCookies(
      owner.split("; ").map((pair) => {
        const i = pair.indexOf("=");
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
      }),
    );
    const { page, release } = await openBeforeScripts(maker, `${server.url}/fr/user/profile`);
    await page.locator("#profile-handle").fill("@Phare_Maker");
    await page.locator("#profile-bio").fill("Des phares, surtout la nuit.");
    await page.getByRole("button", { name: text("fr", "user", "profile.public.save") }).click();
    await page.waitForLoadState("domcontentloaded");
    release();
    await page.goto(`${server.url}/fr/u/phare_maker`);
    expect(await page.locator("h1").textContent()).toBe("Maker");
    expect(await page.locator(".creator-handle").textContent()).toBe("@phare_maker");
    expect(await page.locator(".creator-bio").textContent()).toBe("Des phares, surtout la nuit.");
    expect(await cards(page).count()).toBeGreaterThan(3);
    await shot(page, "creator-phone-fr");
    await maker.close();

    const { context } = await signedInContext(browser, server, "follower@example.com", { viewport: DESKTOP });
    const visit = await openBeforeScripts(context, `${server.url}/u/phare_maker`);
    await visit.page.getByTestId("follow").click();
    await visit.page.waitForLoadState("domcontentloaded");
    await expect.poll(() => visit.page.getByTestId("follow").getAttribute("aria-pressed")).toBe("true");
    expect(await visit.page.getByTestId("followers").textContent()).toBe("1 follower");
    visit.release();
    // The feed of followed creators, and the creator named on their results.
    await visit.page.goto(`${server.url}/explore?feed=following`);
    expect(await cards(visit.page).count()).toBeGreaterThan(3);
    await visit.page.goto(`${server.url}/share/${ids.lighthouse}`);
    await visit.page.getByTestId("creator").click();
    await visit.page.waitForURL(`${server.url}/u/phare_maker`);
    await context.close();
  });

  it("lets an operator feature a result on the home page and explore, and hide one from everything public", async () => {
    const { context } = await signedInContext(browser, server, "curator@example.com", { viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/generations/${ids.waves}`);
    await page.getByRole("button", { name: text("en", "admin", "generation.feature") }).click();
    await page.getByText(text("en", "admin", "generation.featuredNow")).waitFor();
    await page.goto(`${server.url}/`);
    expect(await page.locator(".home-showcase a").first().getAttribute("href")).toBe(`/share/${ids.waves}`);
    await page.goto(`${server.url}/explore`);
    expect(await page.locator(".explore-featured [data-testid=explore-card]").first().getAttribute("data-id")).toBe(
      ids.waves,
    );
    // Hidden: gone from its page, explore, search, the creator's page and the sitemaps at once.
    await page.goto(`${server.url}/user/admin/generations/${ids.leuchtturm}`);
    await page.locator("#hide-reason").fill("Reported and confirmed");
    await page.getByRole("button", { name: text("en", "admin", "generation.hideButton") }).click();
    await page.getByText(text("en", "admin", "generation.hiddenNow")).waitFor();
    expect((await page.goto(`${server.url}/de/share/${ids.leuchtturm}`))?.status()).toBe(404);
    for (const path of ["/explore?sort=newest", "/de/explore?q=Leuchtturm", "/u/phare_maker"]) {
      await page.goto(`${server.url}${path}`);
      expect(await page.locator(`[data-id="${ids.leuchtturm}"]`).count(), path).toBe(0);
    }
    const sitemap = await (await fetch(`${server.url}/de/sitemap-results-1.xml`)).text();
    expect(sitemap).toContain(ids.lighthouse);
    expect(sitemap).not.toContain(ids.leuchtturm);
    await context.close();
  });

  it("is closed by an operator: no page, no link", async () => {
    const { context } = await signedInContext(browser, server, "curator@example.com", { viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/user/admin/settings`);
    await hydrated(page, ".admin-layout, .ant-layout");
    await page.getByRole("button", { name: text("en", "admin", "settings.explore.close") }).click();
    await page.getByText(text("en", "admin", "settings.explore.off")).waitFor();
    const gone = await page.goto(`${server.url}/explore`);
    expect(gone?.status()).toBe(404);
    await page.goto(`${server.url}/`);
    expect(await page.locator(".site-nav").getByRole("link", { name: "Explore" }).count()).toBe(0);
    await page.goto(`${server.url}/user/admin/settings`);
    await page.getByRole("button", { name: text("en", "admin", "settings.explore.open") }).click();
    await page.getByText(text("en", "admin", "settings.explore.on")).waitFor();
    expect((await page.goto(`${server.url}/explore`))?.status()).toBe(200);
    await context.close();
  });
});
