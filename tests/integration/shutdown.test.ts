import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { request } from "node:http";
import { freePort, ROOT, startServer, tempDir, waitFor } from "#tests/support/server.ts";

/** A TCP connection to the server, and everything it receives. */
async function rawConnection(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString("latin1")));
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => undefined);
  return {
    socket,
    received: () => received,
    /** Resolves once the server has closed the connection. */
    ended,
  };
}

/** The status and headers (names in lower case) of the first answer in `text`. */
function parseHead(text: string) {
  const head = text.slice(0, text.indexOf("\r\n\r\n"));
  const [statusLine, ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine?.split(" ")[1]), headers, body: text.slice(head.length + 4) };
}

const refusesConnections = (url: string) => async () => {
  try {
    await fetch(`${url}/healthz`);
    return false;
  } catch {
    return true;
  }
};

describe("graceful shutdown", () => {
  it("finishes a request in flight on SIGTERM, refuses new connections, then exits 0", async () => {
    const server = await startServer();
    // A request whose body is still arriving when the signal comes: the server must wait for it.
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/webhooks/slow-upload",
          method: "POST",
          headers: { "content-type": "text/plain", "content-length": "10" },
        },
        (res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.write("hello");
      setTimeout(() => {
        server.proc.kill("SIGTERM");
        setTimeout(() => req.end("world"), 500);
      }, 200);
    });
    const result = await inFlight;
    expect(result.status).toBe(404);
    expect(JSON.parse(result.body)).toEqual({
      error: {
        code: "not_found",
        message: "Sorry, the page you are looking for does not exist.",
        requestId: expect.any(String),
      },
    });
    expect(await server.exited).toBe(0);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(server.output()).toContain("stopped accepting connections; finishing requests in flight");
    expect(server.output()).toContain('"msg":"stopped"');
    await server.close();
  });

  it("drains on SIGTERM: readiness says so while the port still serves, then it closes and refuses what comes late", async () => {
    // A long delay, ended by a second signal: what happens during the delay is looked at without racing its end.
    const server = await startServer({ SHUTDOWN_DELAY_SECONDS: "120", TEST_ROUTES: "on" });
    try {
      // Opened before the signal: a kept-alive connection that has been answered once and has begun its next request,
      // and a request that is in flight until the port closes.
      const kept = await rawConnection(server.port);
      kept.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await waitFor("the first answer on the kept-alive connection", async () => kept.received().includes('"ok"'));
      const first = parseHead(kept.received());
      expect(first.status).toBe(200);
      expect(first.headers.connection).toBe("keep-alive");
      kept.socket.write("GET /pricing HTTP/1.1\r\n");
      const held = fetch(`${server.url}/__test/held`).then(
        async (r) => ({ status: r.status, body: (await r.json()) as unknown }),
        (error: unknown) => ({ status: 0, body: String(error) }),
      );

      server.proc.kill("SIGTERM");
      await waitFor("readiness to say draining", async () => {
        const res = await fetch(`${server.url}/readyz`);
        return res.status === 503 && ((await res.json()) as { status: string }).status === "draining";
      });

      // During the delay the port accepts and serves, and each answer closes its connection.
      for (const path of ["/pricing", "/api/v1/openapi.json"]) {
        const c = await rawConnection(server.port);
        c.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        await c.ended;
        const answer = parseHead(c.received());
        expect(answer.status, path).toBe(200);
        expect(answer.headers.connection, path).toBe("close");
      }
      const readiness = await rawConnection(server.port);
      readiness.socket.write("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await readiness.ended;
      expect(parseHead(readiness.received())).toMatchObject({ status: 503, headers: { connection: "close" } });
      expect(JSON.parse(parseHead(readiness.received()).body)).toMatchObject({ status: "draining" });
      expect(server.output()).toContain('"delaySeconds":120');

      // A second signal ends the delay: the port closes, the request in flight still gets its answer.
      server.proc.kill("SIGTERM");
      await waitFor("the port to refuse connections", refusesConnections(server.url));
      expect(await held).toEqual({ status: 200, body: { held: true } });

      // The request begun on the kept-alive connection is refused: 503, come back later, and the connection closes.
      kept.socket.write("Host: 127.0.0.1\r\nAccept-Language: de\r\n\r\n");
      await kept.ended;
      const late = parseHead(kept.received().slice(kept.received().indexOf("HTTP/1.1", 1)));
      expect(late.status).toBe(503);
      expect(late.headers["retry-after"]).toBe("5");
      expect(late.headers.connection).toBe("close");
      expect(JSON.parse(late.body)).toEqual({
        error: {
          code: "service_unavailable",
          message: "Ein unbekannter Fehler ist aufgetreten.",
          requestId: expect.any(String),
        },
      });

      expect(await server.exited).toBe(0);
      const lines = server
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg: string; inFlight?: number });
      expect(lines.find((l) => l.msg.startsWith("stopped accepting connections"))?.inFlight).toBeGreaterThanOrEqual(1);
      expect(lines.map((l) => l.msg)).toContain("stopped");
    } finally {
      await server.close();
    }
  });

  it("stops the server when `npm start` is stopped by its process id, even by SIGKILL", async () => {
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      const port = await freePort();
      const dataDir = tempDir();
      const npm = spawn("npm", ["start", "--silent"], {
        cwd: ROOT,
        env: {
          PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`,
          HOME: process.env.HOME,
          PORT: String(port),
          HOST: "127.0.0.1",
          DATA_DIR: dataDir,
          LOG_LEVEL: "info",
          SHUTDOWN_DELAY_SECONDS: "0",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      npm.stdout.on("data", (d: Buffer) => (output += d.toString()));
      npm.stderr.on("data", (d: Buffer) => (output += d.toString()));
      const url = `http://127.0.0.1:${port}`;
      await waitFor("npm start to serve", async () => (await fetch(`${url}/healthz`)).ok, { output: () => output });
      npm.kill(signal);
      // Nothing answers on the port any more: the server went with the npm that started it.
      await waitFor(
        `the server to stop after npm got ${signal}`,
        async () => {
          try {
            await fetch(`${url}/healthz`);
            return false;
          } catch {
            return true;
          }
        },
        { timeoutMs: 30_000, output: () => output },
      );
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
