import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { readSystemStatus, type SystemStatus } from "#server/modules/status/system-status.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
const PROMPT = "a private prompt about a blue heron";

describe(`the system status on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let openai: FakeOpenAI;
  let cookie: string;

  beforeAll(async () => {
    openai = await startFakeOpenAI();
    app = await openApp({
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: `${openai.url}/v1`,
      MODEL_SETTINGS: JSON.stringify({ "gpt-image-1": { credits: 1 } }),
    });
    cookie = await app.signedIn("status-owner@example.com");
  });
  afterAll(async () => {
    await app?.close();
    await openai?.close();
  });

  /** One image of the OpenAI model, run by the embedded worker to its end; its final status. */
  async function generate(): Promise<string> {
    const res = await app.call("POST", "/api/generations", {
      cookie,
      body: { tool: "text-to-image", model: "gpt-image-1", prompt: PROMPT },
    });
    expect(res.status).toBe(201);
    const { generation } = (await res.json()) as { generation: { id: string } };
    return app.ended(generation.id, cookie);
  }
  const model = (status: SystemStatus, id: string) => status.models.find((m) => m.id === id)!;

  it("shows a model going from operational to degraded when its provider starts failing", async () => {
    expect(await generate()).toBe("succeeded");
    expect(await generate()).toBe("succeeded");
    let status = await readSystemStatus(app.runtime, null);
    expect(model(status, "gpt-image-1")).toMatchObject({
      state: "operational",
      lastHour: { finished: 2, succeeded: 2, failed: 0, successRate: 1 },
      lastDay: { finished: 2, succeeded: 2 },
    });
    expect(model(status, "gpt-image-1").lastHour.p50Seconds).toBeGreaterThanOrEqual(0);
    expect(status.overall).toBe("operational");

    openai.failRate = 1;
    expect(await generate()).toBe("failed");
    expect(await generate()).toBe("failed");
    status = await readSystemStatus(app.runtime, status);
    expect(model(status, "gpt-image-1")).toMatchObject({
      state: "degraded",
      lastHour: { finished: 4, succeeded: 2, failed: 2, successRate: 0.5 },
    });
    expect(status.overall).toBe("degraded");
    // The others are untouched: the offline models ran nothing, the unconfigured ones say so
    expect(model(status, "demo-image").state).toBe("operational");
    expect(model(status, "kling-video").state).toBe("not_configured");
    openai.failRate = 0;
  });

  it("answers the same as JSON for monitors, with the build and no secret or user data", async () => {
    const res = await app.call("GET", "/test.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=15");
    const text = await res.text();
    const body = JSON.parse(text) as SystemStatus & { build: { version: string; id: string } };
    expect(body.build).toMatchObject({ version: "test", id: "test" });
    expect(body.components.map((c) => c.id)).toEqual(["web", "database", "queue", "storage", "email", "payments"]);
    expect(body.components.find((c) => c.id === "database")).toMatchObject({ state: "operational" });
    expect(body.queue).toMatchObject({ queued: 0, processing: 0 });
    expect(model(body, "gpt-image-1").state).toBe("degraded");
    for (const secret of [PROMPT, "status-owner@example.com", "sk-test", openai.url])
      expect(text).not.toContain(secret);
  });

  it("still answers, with the database down and the models as last read, when the database stops", async () => {
    const before = await readSystemStatus(app.runtime, null);
    const ping = app.runtime.database.ping;
    app.runtime.database.ping = () => Promise.reject(new Error("connection refused"));
    try {
      const status = await readSystemStatus(app.runtime, before);
      expect(status.overall).toBe("down");
      expect(status.components.find((c) => c.id === "database")!.state).toBe("down");
      expect(model(status, "gpt-image-1")).toEqual(model(before, "gpt-image-1"));
      const blind = await readSystemStatus(app.runtime, null);
      expect(model(blind, "gpt-image-1").state).toBe("unknown");
    } finally {
      app.runtime.database.ping = ping;
    }
  });
});
