import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { freePort, startServer, tempDir, type TestServer } from "#tests/support/server.ts";
import { launchBrowser, openBeforeScripts } from "#tests/support/browser.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { makeC2paCertificates, withPixelByteChanged } from "#tests/support/c2pa-certs.ts";

const SHOTS = process.env.E2E_SHOTS ?? "";

/*
 * `/verify`, as a visitor with no account uses it, before the page's scripts: a result of the site is read as made
 * by AI, named as the site's generation, with its public page, and its C2PA manifest (the site has a certificate) as
 * valid and signed by the site's signer; the same file with a changed byte as changed after signing; a file that says
 * nothing is told so; in another language too, and on a phone.
 */
describe("reading a file's provenance at /verify", () => {
  let server: TestServer;
  let browser: Browser;
  const dir = tempDir("verify-files-");
  let made: string;
  let plain: string;
  let changed: string;
  let id: string;
  let cookie: string;
  const pki = makeC2paCertificates({ name: "Studio Nord Signer" });

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        SITE_URL: `http://127.0.0.1:${port}`,
        SITE_NAME: "Studio Nord",
        C2PA_CERT: pki.cert,
        C2PA_KEY: pki.key,
        ADMIN_EMAILS: "maker@example.com",
      }),
      launchBrowser(),
    ]);
    cookie = await signedIn(server, server.url, "maker@example.com");
    const call = pageApi(server, server.url);
    const created = await call("POST", "/api/generations", cookie, {
      tool: "text-to-image",
      model: "demo-image",
      prompt: "a lighthouse at dusk",
    });
    expect(created.status).toBe(201);
    id = ((await created.json()) as { generation: { id: string } }).generation.id;
    let view: { status: string; outputs: { url: string }[] } = { status: "queued", outputs: [] };
    for (let i = 0; i < 600 && ["queued", "processing"].includes(view.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      view = ((await (await call("GET", `/api/generations/${id}`, cookie)).json()) as { generation: typeof view })
        .generation;
    }
    expect(view.status).toBe("succeeded");
    expect((await call("PATCH", `/api/generations/${id}`, cookie, { visibility: "public" })).status).toBe(200);
    const file = await fetch(`${server.url}${view.outputs[0]!.url}`, { headers: { Cookie: cookie } });
    made = join(dir, "lighthouse.png");
    const bytes = new Uint8Array(await file.arrayBuffer());
    writeFileSync(made, bytes);
    changed = join(dir, "lighthouse-changed.png");
    writeFileSync(changed, withPixelByteChanged(bytes));
    plain = join(dir, "photo.png");
    writeFileSync(
      plain,
      await sharp({ create: { width: 64, height: 48, channels: 3, background: "#468" } })
        .png()
        .toBuffer(),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(pki.dir, { recursive: true, force: true });
  });

  const read = async (lang: string, file: string, viewport = { width: 1280, height: 900 }) => {
    const context = await browser.newContext({ viewport });
    const prefix = lang === "en" ? "" : `/${lang}`;
    const { page, release } = await openBeforeScripts(context, `${server.url}${prefix}/verify`);
    await page.locator("#verify-file").setInputFiles(file);
    await page.locator(".verify-form button[type=submit]").click();
    await page.waitForLoadState("domcontentloaded");
    await page.locator(".verify-result").waitFor();
    return { page, context, release };
  };

  it("reads a result of the site as made by AI, its generation and its public page", async () => {
    const t = (key: string, values: Record<string, string> = {}) =>
      Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{{${k}}}`, v), text("en", "verify", key));
    const { page, context, release } = await read("en", made);
    const result = page.locator(".verify-result");
    expect(await result.getAttribute("data-verdict")).toBe("trained");
    expect(await result.locator(".verify-verdict").textContent()).toContain(t("result.trained"));
    const c2pa = result.locator(".verify-c2pa");
    expect(await c2pa.getAttribute("data-c2pa")).toBe("valid");
    expect(await c2pa.locator(".ant-alert").textContent()).toContain(t("c2pa.valid"));
    expect(await c2pa.locator(".verify-facts").textContent()).toContain("Studio Nord Signer");
    expect(await c2pa.locator(".verify-note").textContent()).toContain(
      t("c2pa.trustNote", { signer: "Studio Nord Signer" }),
    );
    const facts = await result.locator(".verify-facts").first().textContent();
    expect(facts).toContain("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia");
    expect(facts).toContain("Studio Nord");
    expect(await result.locator(`[data-generation="${id}"]`).textContent()).toContain(
      t("result.known", { site: "Studio Nord" }),
    );
    await result.locator("[data-share]").click();
    await page.waitForURL(new RegExp(`/share/${id}$`), { waitUntil: "domcontentloaded" });
    release();
    await context.close();
  });

  it("says a signed file changed after signing no longer matches its C2PA signature, in German", async () => {
    const { page, context, release } = await read("de", changed);
    const c2pa = page.locator(".verify-result .verify-c2pa");
    expect(await c2pa.getAttribute("data-c2pa")).toBe("changed");
    expect(await c2pa.locator(".ant-alert").textContent()).toContain(text("de", "verify", "c2pa.changed"));
    expect(await c2pa.locator(".verify-facts").textContent()).toContain("assertion.dataHash.mismatch");
    release();
    await context.close();
  });

  it("tells the operator in the console who signs outputs, and until when", async () => {
    const html = await (await fetch(`${server.url}/user/admin/settings`, { headers: { Cookie: cookie } })).text();
    expect(html).toMatch(/class="[^"]*admin-provenance[^"]*"[^>]*data-c2pa="on"|data-c2pa="on"[^>]*admin-provenance/);
    const panel = html.slice(html.indexOf("admin-provenance"));
    expect(panel).toContain("Studio Nord Signer");
    expect(panel).toContain("Atelier Test Root CA");
  });

  it("says a file without a mark says nothing, in Japanese and on a phone", async () => {
    const { page, context, release } = await read("ja", plain, { width: 390, height: 844 });
    const result = page.locator(".verify-result");
    expect(await result.getAttribute("data-verdict")).toBe("none");
    expect(await result.locator(".verify-verdict").textContent()).toContain(text("ja", "verify", "result.none"));
    expect(await result.locator(".verify-c2pa").getAttribute("data-c2pa")).toBe("none");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/verify-ja-phone.png`, fullPage: true });
    }
    release();
    await context.close();
    if (SHOTS) {
      const again = await read("en", made);
      await again.page.screenshot({ path: `${SHOTS}/verify-en.png`, fullPage: true });
      again.release();
      await again.context.close();
    }
  });
});
