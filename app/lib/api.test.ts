import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiErrorCode, SESSION_LOST_EVENT } from "./api.ts";
import { describeFailure } from "./generations.ts";

describe("the browser's API client", () => {
  let server: Server;
  let base: string;
  const hits = new Map<string, number>();
  const lost: string[] = [];

  beforeAll(async () => {
    // The client reports a lost session to the page through a window event.
    const target = new EventTarget();
    target.addEventListener(SESSION_LOST_EVENT, (e) => lost.push((e as CustomEvent<string>).detail));
    (globalThis as { window?: EventTarget }).window = target;
    server = createServer((req, res) => {
      const key = `${req.method} ${req.url}`;
      hits.set(key, (hits.get(key) ?? 0) + 1);
      if (req.url!.startsWith("/portal/")) {
        res.writeHead(200, { "Content-Type": "text/html" });
        res.end("<html><body>Sign in to the Wi-Fi</body></html>");
        return;
      }
      const status = Number(req.url!.split("/").at(-1));
      const code = req.url!.includes("expired") ? "session_expired" : "unauthorized";
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(status < 400 ? { ok: true } : { error: { code, message: "x" } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    delete (globalThis as { window?: EventTarget }).window;
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([408, 409, 425, 429, 500, 502, 503, 504])("retries a read once on %i, never a write", async (status) => {
    await expect(api(`${base}/get/${status}`)).rejects.toThrow();
    expect(hits.get(`GET /get/${status}`)).toBe(2);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      await expect(api(`${base}/write/${status}`, { method })).rejects.toThrow();
      expect(hits.get(`${method} /write/${status}`), method).toBe(1);
    }
  });

  it("does not retry other errors", async () => {
    await expect(api(`${base}/get/404`)).rejects.toThrow();
    await expect(api(`${base}/get/400`)).rejects.toThrow();
    expect([hits.get("GET /get/404"), hits.get("GET /get/400")]).toEqual([1, 1]);
  });

  it("reports a lost session, telling an expired one from a missing one", async () => {
    const error = await api(`${base}/expired/401`).catch((e: unknown) => e);
    expect(apiErrorCode(error)).toBe("session_expired");
    await api(`${base}/none/401`).catch(() => undefined);
    expect(lost).toEqual(["expired", "signedOut"]);
    expect(await api(`${base}/ok/200`)).toEqual({ ok: true });
  });

  it("refuses a success that is not JSON, as an answer this server did not give", async () => {
    for (const method of ["GET", "POST"]) {
      const error = await api(`${base}/portal/page`, { method }).catch((e: unknown) => e);
      expect(describeFailure(error), method).toEqual({ code: "parse_error" });
    }
  });
});
