import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { request } from "node:http";
import { freePort, ROOT, startServer, tempDir, waitFor } from "#tests/support/server.ts";

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
