import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv } from "#server/env.ts";
import type { Runtime } from "#server/runtime.ts";
import { createWorkerMetricsServer, type WorkerProbeState } from "#server/jobs/metrics-server.ts";

const TOKEN = "a-metrics-token-of-some-length";
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(state: WorkerProbeState, env: Record<string, string> = {}) {
  const server = createWorkerMetricsServer(parseEnv(env), state);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}${path}`, init);
}

/** A runtime whose database and queue answer, or not. */
function runtime(up: boolean): Runtime {
  return {
    database: { ping: () => (up ? Promise.resolve() : Promise.reject(new Error("down"))) },
    boss: { isInstalled: () => Promise.resolve(up) },
  } as unknown as Runtime;
}

describe("a standalone worker's metrics and health server", () => {
  it("says starting, ready, unavailable and draining on /readyz as the worker goes through them", async () => {
    const state: WorkerProbeState = { stopping: false };
    const get = await serve(state);
    const ready = async () => {
      const res = await get("/readyz");
      return { status: res.status, body: (await res.json()) as { status: string } };
    };
    expect(await ready()).toMatchObject({ status: 503, body: { status: "starting" } });
    state.runtime = runtime(true);
    expect(await ready()).toEqual({ status: 200, body: { status: "ok", checks: { database: "ok", queue: "ok" } } });
    state.runtime = runtime(false);
    expect(await ready()).toMatchObject({ status: 503, body: { status: "unavailable" } });
    state.runtime = runtime(true);
    state.stopping = true;
    expect(await ready()).toMatchObject({ status: 503, body: { status: "draining" } });
    expect((await get("/healthz")).status).toBe(200);
  });

  it("serves /metrics only with the metrics token when one is set, and nothing else", async () => {
    const get = await serve({ stopping: false }, { METRICS_TOKEN: TOKEN });
    const refused = await get("/metrics");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    expect((await get("/metrics", { headers: { Authorization: "Bearer wrong-token-of-some-length" } })).status).toBe(
      401,
    );
    const allowed = await get("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("content-type")).toContain("text/plain");
    expect(await allowed.text()).toContain("process_cpu_seconds_total");
    for (const path of ["/", "/api/v1/generations", "/metrics/x"]) expect((await get(path)).status).toBe(404);
    expect((await get("/metrics", { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
  });

  it("serves /metrics to anyone when no token is set", async () => {
    const get = await serve({ stopping: false });
    expect((await get("/metrics")).status).toBe(200);
  });
});
