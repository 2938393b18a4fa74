import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, waitFor, type TestServer } from "#tests/support/server.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

const METRICS_TOKEN = "metrics-token-for-the-scraper-0123";

describe("the HTTP edge against careless and hostile clients", () => {
  let server: TestServer;
  let origin: string;
  let cookie: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startServer({ PORT: String(port), SITE_URL: origin, METRICS_TOKEN });
    cookie = await signedIn(server, origin, "edge@example.com");
  });
  afterAll(async () => {
    await server?.close();
  });

  const sameSite = () => ({ Origin: origin, "Sec-Fetch-Site": "same-origin" });

  it("answers 400 with the error page to a page write whose body is not a form, and logs no stack", async () => {
    const bodies: { type?: string; body?: string }[] = [
      { type: "application/json", body: JSON.stringify({ email: "edge@example.com", password: "x" }) },
      { type: "text/plain", body: "email=edge@example.com" },
      { type: "multipart/form-data; boundary=xyz", body: "garbage with no boundary" },
      { type: "multipart/form-data", body: "--xyz\r\nbroken" },
      {},
    ];
    const targets: { path: string; signedIn: boolean }[] = [
      { path: "/auth/login", signedIn: false },
      { path: "/auth/register", signedIn: false },
      { path: "/auth/update-password", signedIn: false },
      { path: "/de/auth/login", signedIn: false },
      { path: "/auth/login.data", signedIn: false },
      { path: "/user/profile", signedIn: true },
      { path: "/user/orders", signedIn: true },
      { path: "/pricing", signedIn: true },
    ];
    const logBefore = server.output().length;
    for (const target of targets) {
      for (const { type, body } of bodies) {
        const res = await fetch(`${server.url}${target.path}`, {
          method: "POST",
          redirect: "manual",
          headers: {
            ...sameSite(),
            ...(type ? { "Content-Type": type } : {}),
            ...(target.signedIn ? { Cookie: cookie } : {}),
          },
          body,
        });
        const what = `${target.path} with ${type ?? "no body"}`;
        expect(res.status, what).toBe(400);
        const page = await res.text();
        if (!target.path.endsWith(".data")) {
          expect(page, what).toContain('data-status="400"');
          expect(page, what).toContain(
            target.path.startsWith("/de/") ? text("de", "common", "error.400") : text("en", "common", "error.400"),
          );
        }
      }
    }
    const log = server.output().slice(logBefore);
    expect(log).not.toMatch(/TypeError|\n\s+at /);
    expect(log.split("\n").filter(Boolean).length).toBeLessThanOrEqual(targets.length * bodies.length);

    // A form still works as it did.
    const form = await fetch(`${server.url}/auth/login`, {
      method: "POST",
      redirect: "manual",
      headers: sameSite(),
      body: new URLSearchParams({ email: "nobody@example.com", password: "wrong-password-1" }),
    });
    expect(form.status).toBe(401);
  });

  it("logs refused page requests once each, at info, and never as errors, signed in or not", async () => {
    const refused: {
      path: string;
      method: string;
      type?: string;
      body?: string;
      signedIn?: boolean;
      status: number;
    }[] = [
      { path: "/", method: "POST", type: "application/x-www-form-urlencoded", body: "a=b", status: 405 },
      { path: "/docs", method: "POST", type: "application/x-www-form-urlencoded", body: "a=b", status: 405 },
      { path: "/de/docs", method: "PUT", type: "application/x-www-form-urlencoded", body: "a=b", status: 405 },
      { path: "/auth/login", method: "POST", type: "application/json", body: '{"email":"a"}', status: 400 },
      { path: "/auth/register", method: "POST", type: "text/plain", body: "x", status: 400 },
      { path: "/auth/login.data", method: "POST", type: "text/plain", body: "x", status: 400 },
      { path: "/ja/auth/login", method: "POST", status: 400 },
      { path: "/user/profile", method: "POST", type: "application/json", body: "{}", signedIn: true, status: 400 },
    ];
    const logBefore = server.output().length;
    const ids: string[] = [];
    for (const [i, r] of refused.entries()) {
      const requestId = `refused-${i}-${Date.now()}`;
      ids.push(requestId);
      const res = await fetch(`${server.url}${r.path}`, {
        method: r.method,
        redirect: "manual",
        headers: {
          ...sameSite(),
          "X-Request-Id": requestId,
          ...(r.type ? { "Content-Type": r.type } : {}),
          ...(r.signedIn ? { Cookie: cookie } : {}),
        },
        body: r.body,
      });
      expect(res.status, `${r.method} ${r.path}`).toBe(r.status);
      await res.arrayBuffer();
    }
    const lines = () =>
      server
        .output()
        .slice(logBefore)
        .split("\n")
        .filter((l) => l.startsWith("{") && l.endsWith("}"))
        .map((l) => JSON.parse(l) as { level: number; requestId?: string; status?: number; msg: string });
    // Each refused page has its line, at info (30), with its status (a client navigation's data answer, a
    // refusal the page shows itself, is in no line at all).
    const pages = ids.filter((_, i) => !refused[i]!.path.endsWith(".data"));
    await waitFor("a line for each refused page", async () =>
      pages.every((id) => lines().some((l) => l.requestId === id)),
    );
    for (const [i, id] of ids.entries()) {
      if (!pages.includes(id)) continue;
      const mine = lines().filter((l) => l.requestId === id);
      expect(mine, refused[i]!.path).toHaveLength(1);
      expect(mine[0], refused[i]!.path).toMatchObject({ level: 30, status: refused[i]!.status });
    }
    expect(lines().filter((l) => l.level >= 40)).toEqual([]);
  });

  it("keeps a connection that sent a large refused body serving the request sent after it", async () => {
    const socket = connect(server.port, "127.0.0.1");
    let received = "";
    socket.on("data", (d: Buffer) => (received += d.toString("latin1")));
    socket.on("error", () => undefined);
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    await new Promise<void>((done) => socket.once("connect", () => done()));
    const body = JSON.stringify({ email: "edge@example.com", password: "x".repeat(3_000_000) });
    socket.write(
      [
        "POST /auth/login HTTP/1.1",
        `Host: 127.0.0.1:${server.port}`,
        `Origin: ${origin}`,
        "Sec-Fetch-Site: same-origin",
        "Content-Type: application/json",
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Connection: keep-alive",
        "",
        "",
      ].join("\r\n"),
    );
    socket.write(body);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`);
    await closed;
    const answers = received.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 400 /);
    // The connection stayed usable: the request sent after the body got its answer.
    expect(answers).toHaveLength(2);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200 /);
    expect(answers[1]).toContain('{"status":"ok"}');
  }, 30_000);

  it("says what is wrong with a bad Idempotency-Key or key name, in the caller's language, never blaming a model", async () => {
    const own = { ...sameSite(), Cookie: cookie, "Content-Type": "application/json" };
    const keyMade = await fetch(`${server.url}/api/keys`, { method: "POST", headers: own, body: "{}" });
    expect(keyMade.status).toBe(201);
    const { secret } = (await keyMade.json()) as { secret: string };
    const model = text("de", "messages", "generation.errors.invalidOptions");

    const asKey = { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Accept-Language": "de" };
    const badKeys = ["two words", "x".repeat(256)];
    for (const key of badKeys) {
      for (const [path, body] of [
        ["/api/v1/images", { model: "demo-image", prompt: "a lighthouse" }],
        ["/api/v1/images?wait=0", { model: "demo-image", prompt: "a lighthouse" }],
        ["/v1/images/generations", { model: "demo-image", prompt: "a lighthouse" }],
      ] as const) {
        const res = await fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { ...asKey, "Idempotency-Key": key },
          body: JSON.stringify(body),
        });
        const what = `${path} with the key ${key.slice(0, 12)}`;
        expect(res.status, what).toBe(422);
        const { error } = (await res.json()) as { error: { code: string; message: string } };
        expect(error.code, what).toBe("idempotency_key_invalid");
        if (path.startsWith("/api/v1"))
          expect(error.message, what).toBe(text("de", "messages", "api.errors.idempotencyKey"));
        expect(error.message, what).not.toBe(model);
      }
    }

    const longName = await fetch(`${server.url}/api/keys`, {
      method: "POST",
      headers: { ...own, "X-Locale": "ja" },
      body: JSON.stringify({ name: "n".repeat(65) }),
    });
    expect(longName.status).toBe(422);
    expect(((await longName.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "api_key_name_invalid",
      message: text("ja", "messages", "api.errors.keyName").replace("{{max}}", "64"),
    });
  });

  it("answers /metrics only with its bearer token when one is configured", async () => {
    const without = await fetch(`${server.url}/metrics`);
    expect(without.status).toBe(401);
    expect(without.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await without.text()).not.toContain("process_resident_memory_bytes");
    const wrong = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("process_resident_memory_bytes");
  });
});

describe("a flood of page loads from one address", () => {
  let server: TestServer;
  const LIMIT = 20;

  beforeAll(async () => {
    // A low bound, and the address read from a header, so that two addresses can be played from this one process.
    server = await startServer({ PAGE_RATE_LIMIT_PER_MINUTE: String(LIMIT), CLIENT_IP_HEADER: "x-client-address" });
  });
  afterAll(async () => {
    await server?.close();
  });

  const load = (path: string, address: string, method = "GET") =>
    fetch(`${server.url}${path}`, { method, redirect: "manual", headers: { "X-Client-Address": address } });

  it("is slowed down with 429, Retry-After and a page in its language; cached pages, assets and others are not", async () => {
    // A public page, now in the page cache.
    const pricing = await load("/pricing", "203.0.113.7");
    expect(pricing.status).toBe(200);
    const asset = /\/assets\/[\w.-]+\.js/.exec(await pricing.text())![0];

    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < LIMIT + 5 && !refused; i++) {
      // A query the page cache does not keep, so that each load is rendered.
      const res = await load(`/de/auth/login?redirect=%2Fdashboard%2F${i}`, "203.0.113.7");
      statuses.push(res.status);
      if (res.status === 429) refused = res;
      else await res.arrayBuffer();
    }
    // The pricing page was the first render counted.
    expect(statuses.slice(0, LIMIT - 1)).toEqual(Array(LIMIT - 1).fill(200));
    expect(refused?.status).toBe(429);
    const retryAfter = Number(refused!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused!.headers.get("content-type")).toContain("text/html");
    const html = await refused!.text();
    expect(html).toContain('<html lang="de"');
    expect(html).toContain(escapeHtml(text("de", "common", "error.tooMany")));
    expect(html).toContain(escapeHtml(text("de", "common", "action.retry")));
    // Client navigations (the pages' data) and writes are renders too.
    expect((await load("/auth/login.data?redirect=%2Fdashboard", "203.0.113.7")).status).toBe(429);
    expect((await load("/auth/login", "203.0.113.7", "POST")).status).toBe(429);

    // Not counted: the page cache, assets, health and metrics.
    expect((await load("/pricing", "203.0.113.7")).status).toBe(200);
    expect((await load(asset, "203.0.113.7")).status).toBe(200);
    expect((await load("/healthz", "203.0.113.7")).status).toBe(200);
    expect((await load("/metrics", "203.0.113.7")).status).toBe(200);
    // Another address is served as before.
    expect((await load("/de/auth/login?redirect=%2Fdashboard", "198.51.100.20")).status).toBe(200);
  });
});

describe("connections that trickle", () => {
  let server: TestServer;

  beforeAll(async () => {
    // Short limits, so that slow clients are seen cut off within the test.
    server = await startServer({
      REQUEST_TIMEOUT_SECONDS: "3",
      HEADERS_TIMEOUT_SECONDS: "2",
      MAX_CONNECTIONS_PER_ADDRESS: "6",
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A raw connection to the server: what it was sent, and whether (and with what) the server closed it. */
  function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
    return new Promise((resolve, reject) => {
      const socket = connect(server.port, "127.0.0.1");
      let received = "";
      socket.on("data", (d: Buffer) => (received += d.toString()));
      socket.on("error", () => undefined);
      const closed = new Promise<void>((done) => socket.once("close", () => done()));
      socket.once("connect", () => resolve({ socket, received: () => received, closed }));
      socket.once("error", reject);
    });
  }

  /** Sends `text` one byte every `ms` until the socket closes; resolves with how many bytes were sent. */
  function trickle(socket: Socket, text: string, ms: number): { stop: () => void; sent: () => number } {
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || sent >= text.length) return;
      socket.write(text[sent++]!);
    }, ms);
    socket.once("close", () => clearInterval(timer));
    return { stop: () => clearInterval(timer), sent: () => sent };
  }

  it("closes a request whose body arrives a byte at a time, and one whose headers never end", async () => {
    const upload = await open();
    upload.socket.write(
      "POST /api/generations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n",
    );
    const body = trickle(upload.socket, "x".repeat(500), 200);
    const headers = await open();
    const header = trickle(headers.socket, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "y".repeat(400), 200);
    // Cut off well before either finished (500 bytes at 5 a second would take 100 s).
    await Promise.all([upload.closed, headers.closed]);
    expect(body.sent()).toBeLessThan(500);
    expect(header.sent()).toBeLessThan(400);
    // A request that is not slow is unaffected.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 30_000);

  it("bounds the connections one address holds open, and takes new ones once they close", async () => {
    // Eight at once where six are allowed (this process's own idle keep-alive connections may hold some of them).
    const all = await Promise.all(Array.from({ length: 8 }, () => open()));
    for (const c of all) if (!c.socket.destroyed) c.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await new Promise((r) => setTimeout(r, 500));
    const answered = all.filter((c) => c.received().startsWith("HTTP/1.1 200"));
    const refused = all.filter((c) => c.socket.destroyed);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length).toBeLessThanOrEqual(6);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused.every((c) => c.received() === "")).toBe(true);
    for (const c of all) c.socket.destroy();
    await Promise.all(all.map((c) => c.closed));
    await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 30_000);
});
