import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, ROOT, startServer, TEST_DATABASE_URL, waitFor, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { signedIn } from "#tests/support/session.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

/** A page twice: the first answer renders it, and the cache is filled in the background soon after. */
async function cachedGet(url: string, headers: Record<string, string> = {}) {
  let res: Response | undefined;
  await waitFor(`${url} from the page cache`, async () => {
    res = await fetch(url, { headers });
    return res.headers.get("x-cache") === "hit";
  });
  return res!;
}

describe(`the page cache for signed-out visitors (${backend})`, () => {
  let server: TestServer;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let origin: string;

  beforeAll(async () => {
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startServer({ PORT: String(port), SITE_URL: origin, DATABASE_URL: db?.url });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  it("answers a public page from memory, the same for everyone, its scripts allowed by their hashes", async () => {
    const first = await fetch(`${server.url}/pricing`);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-cache")).toBe("miss");
    const firstNonce = /'nonce-([^']+)'/.exec(first.headers.get("content-security-policy")!)![1]!;
    const rendered = (await first.text()).replaceAll(` nonce="${firstNonce}"`, "");

    const hit = await cachedGet(`${server.url}/pricing`);
    const html = await hit.text();
    expect(html).toBe(rendered);
    expect(html).not.toContain(firstNonce);
    expect(hit.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(hit.headers.get("cache-control")).toBe("no-cache");
    expect(hit.headers.get("vary")).toMatch(/Cookie/);
    expect(hit.headers.get("vary")).toMatch(/Accept-Encoding/);
    expect(hit.headers.get("set-cookie")).toBeNull();
    // Each header once: the stored page's own, then this answer's request id and security headers.
    expect(hit.headers.get("x-content-type-options")).toBe("nosniff");
    expect(hit.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(hit.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    const csp = hit.headers.get("content-security-policy")!;
    expect(csp).not.toContain("'nonce-");
    expect(csp).not.toContain("'strict-dynamic'");
    // Structured data (JSON-LD) is never run: only the page's own inline scripts need a hash
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter(
      ([, a]) => !a!.includes("src=") && !a!.includes("application/ld+json"),
    );
    expect(inline.length).toBeGreaterThan(1);
    for (const [, , body] of inline) {
      expect(csp).toContain(`'sha256-${createHash("sha256").update(body!).digest("base64")}'`);
    }
  });

  it("answers 304 to a client that has the page, and compressed copies to clients that accept them", async () => {
    const page = await cachedGet(`${server.url}/docs`);
    const html = Buffer.from(await page.arrayBuffer());
    const etag = page.headers.get("etag")!;
    const notModified = await fetch(`${server.url}/docs`, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);

    const brotli = await fetch(`${server.url}/docs`, { headers: { "accept-encoding": "gzip, br" } });
    expect(brotli.headers.get("content-encoding")).toBe("br");
    // fetch decodes the body; the header says how many bytes travelled
    expect(Number(brotli.headers.get("content-length"))).toBeLessThan(html.length / 3);
    expect(Buffer.from(await brotli.arrayBuffer()).equals(html)).toBe(true);
    const gzip = await fetch(`${server.url}/docs`, { headers: { "accept-encoding": "gzip" } });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(Buffer.from(await gzip.arrayBuffer()).equals(html)).toBe(true);

    const head = await fetch(`${server.url}/docs`, { method: "HEAD", headers: { "accept-encoding": "identity" } });
    expect(head.status).toBe(200);
    expect(head.headers.get("x-cache")).toBe("hit");
    expect(Number(head.headers.get("content-length"))).toBe(html.length);
  });

  it("keeps each theme and language apart", async () => {
    const dark = await cachedGet(`${server.url}/ja/docs`, { cookie: "theme=dark" });
    const darkHtml = await dark.text();
    expect(darkHtml).toContain('data-theme="dark"');
    expect(darkHtml).toContain('<html lang="ja"');
    const light = await cachedGet(`${server.url}/ja/docs`, { cookie: "theme=light" });
    expect(await light.text()).toContain('data-theme="light"');
  });

  it("never answers from memory, nor keeps, a signed-in page, a flash or a query", async () => {
    const cookie = await signedIn(server, origin, "cache@example.com");
    for (let i = 0; i < 3; i++) {
      const mine = await fetch(`${server.url}/pricing`, { headers: { cookie } });
      expect(mine.headers.get("x-cache")).toBeNull();
      expect(mine.headers.get("cache-control")).toBe("private, no-cache");
      // Rendered for this visitor: their balance in the header.
      expect(await mine.text()).toContain('class="credit-balance-value"');
    }
    const flash = await fetch(`${server.url}/pricing`, { headers: { cookie: "atelier.flash=signedOut.1" } });
    expect(flash.headers.get("x-cache")).toBeNull();
    const query = await fetch(`${server.url}/pricing?checkout=canceled`);
    expect(query.headers.get("x-cache")).toBeNull();
    expect(query.headers.get("content-security-policy")).toContain("'nonce-");
  });

  it("compresses a page rendered for one visitor when the client accepts it", async () => {
    const cookie = await signedIn(server, origin, "compress@example.com");
    const res = await fetch(`${server.url}/dashboard/home`, { headers: { cookie, "accept-encoding": "br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("vary")).toMatch(/Accept-Encoding/);
    expect(await res.text()).toContain("</html>");
  });

  it("forgets its pages when the content changes", async () => {
    const file = join(ROOT, "content/docs/en/api.md");
    await cachedGet(`${server.url}/docs/api`);
    // Written back as it was: the watcher sees a change, the page stays the same.
    writeFileSync(file, readFileSync(file));
    await waitFor("the cache to be emptied", async () => {
      const res = await fetch(`${server.url}/docs/api`);
      await res.arrayBuffer();
      return res.headers.get("x-cache") === "miss";
    });
  });
});
