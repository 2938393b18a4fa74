import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { startServer, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

/** A raw request, for what fetch() refuses to send (bad encodings, huge headers). */
function rawGet(port: number, path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers, method, agent: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Writes a request by hand and returns the status line: for requests the server refuses mid-read. */
function rawStatusLine(port: number, head: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString()));
    socket.on("error", (error) => (text ? resolve(text.split("\r\n")[0]!) : reject(error)));
    socket.on("close", () => resolve(text.split("\r\n")[0]!));
  });
}

describe(`the server on ${backend}`, () => {
  let server: TestServer;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer(db ? { DATABASE_URL: db.url } : {});
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  it("answers liveness and readiness with the database and queue checked", async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ok", checks: { database: "ok", queue: "ok" } });
    // "Not ready yet" while starting is the designed answer: counted, but not logged as a failure.
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total\{method="GET",route="\/readyz",status="503"\} [1-9]/);
    expect(server.output()).not.toMatch(/"path":"\/readyz"[^\n]*request failed/);
  });

  it("renders the home page on the server with Ant Design's stylesheet linked, not written into the page", async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    const head = html.slice(0, html.indexOf("</head>"));
    expect(head).toContain("<title>Atelier — AI image and video studio</title>");
    expect(html).not.toContain("<style");
    expect(html).toContain("Turn ideas into images and videos");
    expect(html).toMatch(/<html lang="en"/);
    const href = /<link[^>]* rel="stylesheet" href="(\/assets\/antd-[\w-]+\.css)"/.exec(head)?.[1];
    expect(href).toBeTruthy();
    const css = await fetch(`${server.url}${href}`, { headers: { "accept-encoding": "br" } });
    expect(css.status).toBe(200);
    expect(css.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(css.headers.get("content-encoding")).toBe("br");
    const text = await css.text();
    expect(text).toContain(".ant-card{");
    // Light variables on :root, dark ones under the attribute the page sets before its first paint.
    expect(text).toMatch(/:root,\.css-var-atelier\{[^}]*--ant-color-primary:#4f46e5;/);
    expect(text).toContain('html[data-theme="dark"],html[data-theme="dark"] .css-var-atelier{');
  });

  it("sends security headers with a CSP nonce that matches the page's inline scripts", async () => {
    // A query keeps the page out of the page cache: it is rendered for this request.
    const res = await fetch(`${server.url}/?fresh`);
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    // Plain http: no HSTS. Behind a TLS proxy it is sent only when the proxy is trusted (see below).
    expect(res.headers.get("strict-transport-security")).toBeNull();
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(1);
    for (const [, attributes, body] of scripts) {
      // The one script without the nonce is the theme script, allowed by its hash; structured data (JSON-LD) is
      // never run, so it needs neither.
      if (attributes!.includes(`nonce="${nonce}"`) || attributes!.includes('type="application/ld+json"')) continue;
      expect(csp).toContain(`'sha256-${createHash("sha256").update(body!).digest("base64")}'`);
    }
    const other = await fetch(`${server.url}/?fresh`);
    expect(other.headers.get("content-security-policy")).not.toContain(nonce!);
  });

  it("keeps a well-formed incoming request id and replaces a malformed one", async () => {
    const kept = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "trace-123" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-123");
    const replaced = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "bad id with spaces" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("bad id with spaces");
  });

  it("serves hashed assets with immutable caching", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const asset = /\/assets\/[\w.-]+\.js/.exec(html)?.[0];
    expect(asset).toBeTruthy();
    const res = await fetch(`${server.url}${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await fetch(`${server.url}/assets/missing-0000.js`)).status).toBe(404);
  });

  it("publishes the running build and a service worker that changes with it, neither cached without checking", async () => {
    const info = (await (await fetch(`${server.url}/build.json?t=1`)).json()) as { id: string; timestamp: number };
    expect(info.id).toMatch(/^[\w-]+$/);
    expect(info.timestamp).toBeGreaterThan(0);
    const sw = await fetch(`${server.url}/sw.js`);
    expect(sw.status).toBe(200);
    expect(sw.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(sw.headers.get("cache-control")).toBe("no-cache");
    const script = await sw.text();
    expect(script).toContain(JSON.stringify(info.id));
    expect(script).toContain("UPDATE_AVAILABLE");
  });

  it("exposes Prometheus metrics for requests, the queue and the process", async () => {
    await fetch(`${server.url}/healthz`);
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toContain("http_request_duration_seconds_bucket");
    expect(text).toMatch(/job_queue_depth\{queue="maintenance.purge-expired-sessions",state="queued"\} \d+/);
    expect(text).toContain("process_resident_memory_bytes");
  });

  it("serves robots.txt, the sitemaps and llms.txt, and a missing page for a prefix that is not a locale", async () => {
    const robots = await fetch(`${server.url}/robots.txt`);
    expect(robots.status).toBe(200);
    expect(await robots.text()).toMatch(/^Sitemap: https?:\/\/\S+\/sitemap\.xml$/m);
    for (const path of ["/sitemap.xml", "/ja/sitemap.xml", "/en/sitemap.xml"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    }
    expect(await (await fetch(`${server.url}/ja/sitemap.xml`)).text()).toContain("/ja/pricing</loc>");
    expect((await fetch(`${server.url}/llms.txt`)).status).toBe(200);
    const nowhere = await fetch(`${server.url}/xx/sitemap.xml`);
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("answers unknown API paths with JSON, not a page", async () => {
    for (const path of ["/api/nothing", "/webhooks/nothing", "/api/auth/nothing"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      // The one JSON error shape: code, the catalogue's message, the request id (the detail stays in the log).
      expect(await res.json()).toEqual({
        error: {
          code: "not_found",
          message: "Sorry, the page you are looking for does not exist.",
          requestId: res.headers.get("x-request-id"),
        },
      });
    }
    // The public API asks for a key first (with a key, an unknown path is a 404 `not_found`).
    const v1 = await fetch(`${server.url}/api/v1/nothing`);
    expect(v1.status).toBe(401);
    expect(((await v1.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
  });

  it("refuses a body over the limit with 413 before reading it", async () => {
    const big = await rawGet(server.port, "/api/v1/anything", { "content-length": String(11 * 1024 * 1024) }, "POST");
    expect(big.status).toBe(413);
    // The public API's error shape: snake_case, with the detail of a client error.
    expect(JSON.parse(big.body)).toEqual({
      error: {
        code: "payload_too_large",
        message: "Your request is invalid, please check and try again.",
        request_id: expect.any(String),
        detail: "at most 10485760 bytes",
      },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("answers a malformed URL with 400 and oversized headers with 431, and keeps serving", async () => {
    const badEncoding = await rawGet(server.port, "/%E0%A4%A");
    expect(badEncoding.status).toBe(400);
    const hugeHeader = await rawStatusLine(
      server.port,
      `GET / HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${"a".repeat(20 * 1024)}\r\n\r\n`,
    );
    expect(hugeHeader).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
