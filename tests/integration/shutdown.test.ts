import { describe, expect, it } from "vitest";
import { request } from "node:http";
import { startServer } from "#tests/support/server.ts";

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
    expect(server.output()).toContain("shutting down: finishing requests in flight");
    expect(server.output()).toContain('"msg":"stopped"');
    await server.close();
  });
});
