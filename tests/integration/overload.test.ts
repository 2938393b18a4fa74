import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "#tests/support/server.ts";
import { text } from "#tests/support/locales.ts";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/**
 * Load shedding: with room for one request at a time and a short wait, a request held by the test route keeps the
 * only turn, and what comes meanwhile is refused early, in its language, or answered because it is never held back.
 */
describe("a process working as many requests as it may", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ TEST_ROUTES: "on", MAX_CONCURRENT_REQUESTS: "1", MAX_QUEUE_MS: "300" });
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { redirect: "manual", ...init });

  it("refuses pages and API calls with 503 and Retry-After, answers health, polls and webhooks, and serves again after", async () => {
    // A page in the cache before the load: served from memory whatever the load.
    expect((await get("/fr/pricing")).status).toBe(200);
    const held = get("/api/__test/slow?ms=4000");
    // The held call has its turn once the server has read it.
    await new Promise((r) => setTimeout(r, 500));

    const started = performance.now();
    const page = await get("/fr/auth/login?redirect=%2Fdashboard");
    // It waited for its turn, then was refused: not after the held call ended.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("2");
    expect(page.headers.get("cache-control")).toBe("no-store");
    const html = await page.text();
    expect(html).toContain('<html lang="fr"');
    expect(html).toContain(escapeHtml(text("fr", "common", "error.busy")));
    expect(html).toContain(escapeHtml(text("fr", "common", "action.retry")));

    const api = await get("/api/me", { headers: { "Accept-Language": "de" } });
    expect(api.status).toBe(503);
    expect(api.headers.get("retry-after")).toBe("2");
    const body = (await api.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("service_unavailable");
    expect(body.error.message).toBe(text("de", "common", "error.busy"));
    const publicApi = await get("/api/v1/models");
    expect(publicApi.status).toBe(503);
    expect(((await publicApi.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");

    // Never held back: health, readiness, metrics, cached pages, assets, the status poll, webhooks.
    expect((await get("/healthz")).status).toBe(200);
    expect((await get("/readyz")).status).toBe(200);
    expect((await get("/fr/pricing")).status).toBe(200);
    const poll = await get("/api/v1/generations/00000000-0000-4000-8000-000000000000");
    expect(poll.status).toBe(401);
    const internalPoll = await get("/api/generations/00000000-0000-4000-8000-000000000000");
    expect(internalPoll.status).toBe(401);
    const webhook = await get("/webhooks/stripe", { method: "POST", body: "{}" });
    expect(webhook.status).not.toBe(503);
    const metrics = await (await get("/metrics")).text();
    expect(metrics).toMatch(/^http_requests_shed_total [1-9]/m);
    expect(metrics).toMatch(/^http_requests_in_progress 1$/m);

    expect((await held).status).toBe(200);
    // Its turn given back: pages are rendered again.
    expect((await get("/fr/auth/login?redirect=%2Fdashboard")).status).toBe(200);
    expect((await get("/api/me")).status).toBe(401);
  });
});
