import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { freePort, startServer, tempDir, type TestServer } from "#tests/support/server.ts";
import { hydrated, launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { text } from "#tests/support/locales.ts";
import { nextMail, outbox } from "#tests/support/outbox.ts";
import { startFakeOAuth, type FakeOAuth } from "#tests/fakes/oauth.ts";

const PASSWORD = "violet-Harbor-42!";

describe("accounts in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let oauth: FakeOAuth;
  const seen = new Set<string>();

  beforeAll(async () => {
    oauth = await startFakeOAuth();
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        ADMIN_EMAILS: "chief@example.com",
        OIDC_NAME: "Fake SSO",
        OIDC_CLIENT_ID: oauth.clientId,
        OIDC_CLIENT_SECRET: oauth.clientSecret,
        OIDC_AUTHORIZATION_URL: `${oauth.url}/authorize`,
        OIDC_TOKEN_URL: `${oauth.url}/token`,
        OIDC_USERINFO_URL: `${oauth.url}/userinfo`,
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await oauth?.close();
  });

  const newContext = () => browser.newContext({ viewport: { width: 1280, height: 900 } });
  const toasts = (page: Page) => page.locator(".ant-message-notice").allTextContents();

  async function register(page: Page, { name, email, prefix = "" }: { name: string; email: string; prefix?: string }) {
    await page.goto(`${server.url}${prefix}/auth/register`);
    await hydrated(page, "form");
    await page.fill("#field-name", name);
    await page.fill("#field-email", email);
    await page.fill("#field-password", PASSWORD);
    await page.check("#field-terms");
    await page.click("button[type=submit]");
  }

  async function signIn(page: Page, email: string, password = PASSWORD, path = "/auth/login") {
    await page.goto(`${server.url}${path}`);
    await hydrated(page, "form");
    await page.fill("#field-email", email);
    await page.fill("#field-password", password);
    await page.click("button[type=submit]");
  }

  /** Signs up, follows the confirmation link and ends signed in. */
  async function newUser(context: BrowserContext, email: string, name = "Ada", prefix = "") {
    const page = await context.newPage();
    await register(page, { name, email, prefix });
    await page.locator(".ant-result-success").waitFor();
    const mail = await nextMail(server.dataDir, email, (m) => m.link.includes("verify="), seen);
    await page.goto(mail.link);
    await page.waitForURL("**/dashboard/home");
    return page;
  }

  it("signs up, confirms the address from the outbox, signs out and signs in again, in German", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await register(page, { name: "Grete", email: "grete@example.com", prefix: "/de" });
    await expect(page.locator(".ant-result-title").textContent()).resolves.toBe(
      text("de", "auth", "register.checkInboxTitle"),
    );

    // Signing in before confirming explains what to do and offers a new link.
    await signIn(page, "grete@example.com", PASSWORD, "/de/auth/login");
    await expect(page.locator("[role=alert]").textContent()).resolves.toBe(
      text("de", "auth", "error.emailNotVerified"),
    );
    await page.click(".auth-resend button");
    await page.getByText(text("de", "auth", "verify.resent")).waitFor();

    const mail = await nextMail(server.dataDir, "grete@example.com", (m) => m.link.includes("verify="), seen);
    expect(mail.subject).toBe(text("de", "email", "verifyEmail.subject").replace("{{site}}", "Atelier"));
    expect(mail.html).toContain(mail.link.replaceAll("&", "&amp;"));
    await page.goto(mail.link);
    await page.waitForURL(`${server.url}/de/dashboard/home`);
    await page.locator(".ant-message-notice").first().waitFor();
    expect(await toasts(page)).toContain(text("de", "common", "flash.emailVerified"));
    // The sign-up bonus arrived with the first session and shows in the header.
    await expect(page.locator(".credit-balance").getAttribute("aria-label")).resolves.toBe(
      text("de", "common", "credits.available").replace("{{formatted}}", "20"),
    );

    await page.click(".user-menu-button");
    await page.getByText(text("de", "common", "user.signOut")).click();
    await page.waitForURL(`${server.url}/de/`);
    await page.getByText(text("de", "common", "msg.logoutSuccess")).waitFor();

    await signIn(page, "grete@example.com", "not-the-password", "/de/auth/login");
    await expect(page.locator("[role=alert]").textContent()).resolves.toBe(
      text("de", "auth", "error.invalidCredentials"),
    );
    await page.fill("#field-password", PASSWORD);
    await page.click("button[type=submit]");
    await page.waitForURL(`${server.url}/de/dashboard`.concat("/home"));
    await page.getByText(text("de", "common", "msg.loginSuccess")).waitFor();
    await context.close();
  });

  it("guards private pages, returns after sign-in and explains an expired session", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/user/profile?tab=1`);
    expect(new URL(page.url()).pathname).toBe("/auth/login");
    expect(new URL(page.url()).searchParams.get("redirect")).toBe("/user/profile?tab=1");

    // A session cookie that no longer opens a session: the sign-in page says so, then goes back.
    await newUser(context, "lin@example.com", "Lin");
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name.endsWith("session_token"))!;
    await context.addCookies([{ ...session, value: "expired-token.signature" }]);
    await page.goto(`${server.url}/user/profile`);
    expect(new URL(page.url()).searchParams.get("reason")).toBe("expired");
    await page.getByText(text("en", "common", "msg.sessionExpired")).waitFor();
    await page.fill("#field-email", "lin@example.com");
    await page.fill("#field-password", PASSWORD);
    await page.click("button[type=submit]");
    await page.waitForURL(`${server.url}/user/profile`);

    // Not an admin: 403 error page.
    const forbidden = await page.goto(`${server.url}/user/admin`);
    expect(forbidden?.status()).toBe(403);
    await page.getByText(text("en", "common", "error.403")).waitFor();
    // Said once, not as subtitle and message both.
    await expect(page.getByText(text("en", "common", "error.403")).count()).resolves.toBe(1);

    // The internal API wants a session.
    const api = await fetch(`${server.url}/api/me`);
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({
      error: { code: "unauthorized", message: "Please login first", requestId: api.headers.get("x-request-id") },
    });
    await context.close();
  });

  it("notices a session that ended while the page was open, when the tab comes back into view", async () => {
    const context = await newContext();
    const page = await newUser(context, "tab@example.com", "Tove", "/tr");
    await page.goto(`${server.url}/tr/dashboard/home`);
    await hydrated(page, ".dash");
    const session = (await context.cookies()).find((c) => c.name.endsWith("session_token"))!;
    const comeBack = () => page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));

    // Still signed in: coming back changes nothing.
    const check = page.waitForResponse((r) => r.url().endsWith("/api/me"));
    await comeBack();
    expect((await check).status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/tr/dashboard/home");

    // The session ended elsewhere: the page goes to sign-in, says why, and comes back after signing in.
    // (A fresh page, as checks are spaced out in time.)
    await page.goto(`${server.url}/tr/dashboard/home`);
    await hydrated(page, ".dash");
    await context.addCookies([{ ...session, value: "ended-token.signature" }]);
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await page.waitForURL("**/tr/auth/login?**");
    const url = new URL(page.url());
    expect(url.searchParams.get("reason")).toBe("expired");
    expect(url.searchParams.get("redirect")).toBe("/tr/dashboard/home");
    await page.getByText(text("tr", "common", "msg.sessionExpired")).waitFor();
    // The header no longer shows who was signed in, nor their credits.
    await expect(page.locator(".credit-balance-value").count()).resolves.toBe(0);
    await page
      .getByRole("link", { name: text("tr", "common", "nav.signIn") })
      .first()
      .waitFor();
    await page.fill("#field-email", "tab@example.com");
    await page.fill("#field-password", PASSWORD);
    await page.click("#content button[type=submit]");
    await page.waitForURL(`${server.url}/tr/dashboard/home`);

    // No session cookie at all (signed out in another tab): "please sign in first".
    await hydrated(page, ".dash");
    await context.clearCookies();
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await page.waitForURL("**/tr/auth/login?**");
    expect(new URL(page.url()).searchParams.get("reason")).toBeNull();
    await page.getByText(text("tr", "common", "msg.loginFirst")).waitFor();
    await context.close();
  });

  it("keeps what was typed before the page's scripts ran", async () => {
    const context = await newContext();
    // Scripts held back, as a slow phone would, while the person fills in the server-rendered form.
    const { page, release } = await openBeforeScripts(context, `${server.url}/ko/auth/register`);
    await page.fill("#field-name", "Min");
    await page.fill("#field-email", "early@example.com");
    await page.fill("#field-password", PASSWORD);
    await page.check("#field-terms");
    release();
    await hydrated(page, "form");
    await page.locator(".password-strength .ant-progress").waitFor();
    expect(await page.inputValue("#field-name")).toBe("Min");
    // Submitting goes through the page's own checks, which read the form's state after hydration.
    await page.click("button[type=submit]");
    await expect(page.locator(".ant-result-title").textContent()).resolves.toBe(
      text("ko", "auth", "register.checkInboxTitle"),
    );
    await context.close();
  });

  it("makes ADMIN_EMAILS admins on sign-in and shows the admin landing page", async () => {
    const context = await newContext();
    const page = await newUser(context, "chief@example.com", "Chief");
    const res = await page.goto(`${server.url}/user/admin`);
    expect(res?.status()).toBe(200);
    // The overview counts this week's sign-ups: the chief's and the accounts made before it in this file.
    const signups = await page.locator("[data-testid=overview-signups] .overview-figure-value").textContent();
    expect(Number(signups)).toBeGreaterThanOrEqual(2);
    await context.close();
  });

  it("resets a forgotten password by link and signs out every other session", async () => {
    const first = await newContext();
    await newUser(first, "reset@example.com", "Rosa");
    const other = await newContext();
    const page = await other.newPage();
    await page.goto(`${server.url}/auth/update-password`);
    await hydrated(page, "form");
    await page.fill("#field-email", "reset@example.com");
    await page.click("button[type=submit]");
    await page.locator(".ant-result-success").waitFor();
    const mail = await nextMail(server.dataDir, "reset@example.com", (m) => m.link.includes("token="), seen);
    await page.goto(mail.link);
    await hydrated(page, "form");
    await page.fill("#field-password", "A-brand-new-passphrase-7");
    await page.fill("#field-confirm", "A-brand-new-passphrase-7");
    await page.click("button[type=submit]");
    await page.waitForURL("**/auth/login");
    await page.getByText(text("en", "common", "flash.passwordReset")).waitFor();
    await nextMail(server.dataDir, "reset@example.com", (m) => m.subject.includes("changed"), seen);

    // The first browser's session is gone.
    const firstPage = await first.newPage();
    await firstPage.goto(`${server.url}/dashboard/home`);
    expect(new URL(firstPage.url()).pathname).toBe("/auth/login");
    // A used link does not work twice.
    await page.goto(mail.link);
    await hydrated(page, "form");
    await page.fill("#field-password", "Another-passphrase-8!");
    await page.fill("#field-confirm", "Another-passphrase-8!");
    await page.click("button[type=submit]");
    await page.getByText(text("en", "auth", "error.linkInvalid")).waitFor();

    await signIn(page, "reset@example.com", "A-brand-new-passphrase-7");
    await page.waitForURL("**/dashboard/home");
    await first.close();
    await other.close();
  });

  it("signs in through an OAuth 2.0 provider with state and PKCE", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/fr/auth/login?redirect=/user/profile`);
    await page.getByText("Fake SSO").click();
    await page.waitForURL(`${server.url}/fr/user/profile`);
    await page.getByText(text("fr", "common", "msg.loginSuccess")).waitFor();
    expect(await page.locator(".user-menu-name").textContent()).toBe("OAuth Person");
    const request = oauth.tokenRequests.at(-1)!;
    expect(request.code_verifier).toMatch(/^[\w-]{43,128}$/);
    await context.close();
  });

  it("checks avatar uploads by content and size, and deletes the account with its data", async () => {
    const context = await newContext();
    const page = await newUser(context, "pic@example.com", "Pia");
    await page.goto(`${server.url}/user/profile`);
    await hydrated(page, ".profile");
    const dir = tempDir("atelier-upload-");
    const fake = join(dir, "photo.png");
    writeFileSync(fake, "this is not an image at all, only text in a file named .png");
    await page.setInputFiles("input[type=file]", fake);
    await page.getByText(text("en", "user", "profile.avatarInvalid")).waitFor();

    const big = join(dir, "big.png");
    const noise = Buffer.alloc(1200 * 1200 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    writeFileSync(
      big,
      await sharp(noise, { raw: { width: 1200, height: 1200, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer(),
    );
    await page.setInputFiles("input[type=file]", big);
    await page.getByText(text("en", "user", "profile.avatarTooLarge")).waitFor();

    const good = join(dir, "me.jpg");
    writeFileSync(
      good,
      await sharp({ create: { width: 640, height: 480, channels: 3, background: "#3366cc" } })
        .jpeg()
        .toBuffer(),
    );
    await page.setInputFiles("input[type=file]", good);
    await page.getByText(text("en", "user", "profile.avatarSaved")).waitFor();
    const src = await page.locator(".profile-avatar img").getAttribute("src");
    expect(src).toMatch(/^\/files\/avatars\/.+\.webp$/);
    const image = await fetch(`${server.url}${src}`);
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 256, 256]);
    const avatarFile = join(server.dataDir, "files", src!.slice("/files/".length));
    expect(existsSync(avatarFile)).toBe(true);

    await page.getByText(text("en", "user", "profile.deleteButton")).click();
    await page.fill(".ant-modal input[name=password]", "wrong-password");
    const refused = page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes("/user/profile"));
    await page.click(".ant-modal button[value=delete]");
    expect((await refused).status()).toBeLessThan(500);
    await page.locator(".ant-modal [role=alert]").waitFor();
    await page.fill(".ant-modal input[name=password]", PASSWORD);
    await page.click(".ant-modal button[value=delete]");
    await page.waitForURL(`${server.url}/`);
    await page.getByText(text("en", "common", "flash.accountDeleted")).waitFor();
    expect(existsSync(avatarFile)).toBe(false);
    await signIn(page, "pic@example.com");
    await expect(page.locator("[role=alert]").textContent()).resolves.toBe(
      text("en", "auth", "error.invalidCredentials"),
    );
    expect(readdirSync(join(server.dataDir, "files", "avatars"))).not.toContain(avatarFile.split("/").at(-1));
    expect(outbox(server.dataDir).length).toBeGreaterThan(0);
    await context.close();
  });
});
