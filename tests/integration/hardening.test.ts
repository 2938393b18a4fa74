import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

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
