import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { startComfyFake, type ComfyFake } from "#tests/fakes/comfyui.ts";
import { ComfyPool, PoolExhausted } from "#server/providers/comfyui/pool.ts";
import { ComfyExecutionFailed, ComfyServerClient } from "#server/providers/comfyui/client.ts";
import { applyInputs, parseWorkflowFile, readWorkflow } from "#server/providers/comfyui/workflow.ts";
import { checkConnection } from "#server/providers/registry.ts";

const workflow = readWorkflow(
  parseWorkflowFile(readFileSync(resolve(import.meta.dirname, "../../../docs/comfyui/text-to-image.json"), "utf8")),
);
const graphFor = (prompt: string, seed = 1) => applyInputs(workflow, { prompt, seed });
const server = (fake: ComfyFake, maxJobs = 2, weight = 1) => ({ url: fake.url, maxJobs, weight });
const never = new AbortController().signal;

let fakes: ComfyFake[] = [];
const start = async (...knobs: Parameters<typeof startComfyFake>[0][]) => {
  const started = await Promise.all(knobs.map((k) => startComfyFake(k)));
  fakes.push(...started);
  return started;
};
afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close().catch(() => undefined)));
  fakes = [];
});

describe("a pool of ComfyUI servers", () => {
  it("runs a prompt on a server, its progress in order, and returns the files it saved", async () => {
    const [gpu] = await start({ stepMs: 5 });
    const pool = new ComfyPool([server(gpu!)]);
    const seen: number[] = [];
    const outputs = await pool.run({
      signal: never,
      job: (client) => client.run(graphFor("a red barn"), { signal: never, onProgress: (p) => seen.push(p.fraction) }),
    });
    expect(outputs).toHaveLength(1);
    expect(outputs[0]!.mediaType).toBe("image/png");
    const meta = await sharp(outputs[0]!.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([512, 512]);
    expect(seen.length).toBeGreaterThan(1);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(gpu!.prompts.map((p) => p.graph)).toEqual([graphFor("a red barn")]);
  });

  it("sends a job to the server with less work for its weight, and none past a server's most at once", async () => {
    const [busy, idle] = await start({ stepMs: 40 }, { stepMs: 40 });
    const pool = new ComfyPool([server(busy!, 1), server(idle!, 1)]);
    const runs = ["one", "two", "three"].map((prompt) =>
      pool.run({ signal: never, job: (client) => client.run(graphFor(prompt), { signal: never }) }),
    );
    await Promise.all(runs);
    expect(busy!.prompts.length + idle!.prompts.length).toBe(3);
    expect(busy!.prompts.length).toBeGreaterThanOrEqual(1);
    expect(idle!.prompts.length).toBeGreaterThanOrEqual(1);
    // One at a time each: never two prompts in one server's queue.
    for (const fake of [busy!, idle!]) {
      const times = fake.prompts.map((p) => p.at);
      for (let i = 1; i < times.length; i++)
        expect(fake.executed.includes(fake.prompts[i - 1]!.promptId) || times[i]! >= times[i - 1]!).toBe(true);
    }
  });

  it("moves a job to another server when its server dies under it, and keeps the dead one out", async () => {
    const [dying, steady] = await start({ stepMs: 20, dieAtStep: 2 }, { stepMs: 5 });
    const pool = new ComfyPool([server(dying!, 2, 100), server(steady!, 2, 1)]);
    const outputs = await pool.run({
      signal: never,
      job: (client) => client.run(graphFor("a moving job"), { signal: never }),
    });
    expect(outputs).toHaveLength(1);
    expect(dying!.prompts).toHaveLength(1);
    expect(steady!.prompts).toHaveLength(1);
    const health = pool.health();
    expect(health.find((h) => h.url === dying!.url)).toMatchObject({ up: false });
    expect(health.find((h) => h.url === steady!.url)).toMatchObject({ up: true });
  });

  it("fails a job when no server is left, naming why", async () => {
    const [a, b] = await start({}, {});
    a!.kill();
    b!.kill();
    const pool = new ComfyPool([server(a!), server(b!)]);
    await expect(
      pool.run({ signal: never, job: (client) => client.run(graphFor("nobody home"), { signal: never }) }),
    ).rejects.toBeInstanceOf(PoolExhausted);
  });

  it("passes over a server that lacks a node of the workflow, and runs it on one that has it", async () => {
    const [lacking, full] = await start({ lacks: ["SaveImage"] }, {});
    const pool = new ComfyPool([server(lacking!, 2, 100), server(full!, 2, 1)]);
    const outputs = await pool.run({
      signal: never,
      job: (client) => client.run(graphFor("a rare node"), { signal: never }),
    });
    expect(outputs).toHaveLength(1);
    expect(lacking!.executed).toEqual([]);
    expect(full!.prompts).toHaveLength(1);
  });

  it("does not move a job whose workflow failed while running", async () => {
    const [failing, other] = await start({ stepMs: 5, failAtStep: 1 }, {});
    const pool = new ComfyPool([server(failing!, 2, 100), server(other!, 2, 1)]);
    await expect(
      pool.run({ signal: never, job: (client) => client.run(graphFor("too big"), { signal: never }) }),
    ).rejects.toThrow(ComfyExecutionFailed);
    expect(other!.prompts).toEqual([]);
  });

  it("takes a cancelled prompt off the queue, or interrupts it while it runs", async () => {
    const [gpu] = await start({ stepMs: 200, maxSteps: 20 });
    const client = new ComfyServerClient({ url: gpu!.url });
    const running = new AbortController();
    const waiting = new AbortController();
    const first = client.run(graphFor("first"), { signal: running.signal });
    await expect.poll(() => gpu!.prompts.length).toBe(1);
    const second = client.run(graphFor("second"), { signal: waiting.signal });
    await expect.poll(() => gpu!.prompts.length).toBe(2);
    waiting.abort(new Error("canceled"));
    await expect(second).rejects.toThrow("canceled");
    await expect.poll(() => gpu!.deleted).toContain(gpu!.prompts[1]!.promptId);
    running.abort(new Error("canceled"));
    await expect(first).rejects.toThrow("canceled");
    await expect.poll(() => gpu!.interrupts.map((i) => i.promptId)).toContain(gpu!.prompts[0]!.promptId);
    expect(gpu!.executed).toEqual([]);
  });

  it("sends a proxy's header on every request and on the websocket, and says a wrong one is refused", async () => {
    const [guarded] = await start({ requireHeader: { name: "X-Gpu-Key", value: "s3cret-header-value" } });
    const settings = (value: string) => ({
      servers: [{ url: guarded!.url }],
      headers: { [guarded!.url]: `X-Gpu-Key: ${value}` },
    });
    expect(await checkConnection("comfyui", settings("s3cret-header-value"))).toMatchObject({ ok: true });
    const wrong = await checkConnection("comfyui", settings("wrong-value-here"));
    expect(wrong).toMatchObject({ ok: false, code: "unauthorized" });
    expect(wrong.ok ? "" : wrong.detail).not.toContain("wrong-value-here");
    const client = new ComfyServerClient({ url: guarded!.url, headers: { "X-Gpu-Key": "s3cret-header-value" } });
    const outputs = await client.run(graphFor("behind a proxy"), { signal: never });
    expect(outputs).toHaveLength(1);
  });

  it("tells each server's GPU and queue, and which do not answer", async () => {
    const [up, down] = await start({}, {});
    down!.kill();
    const result = await checkConnection("comfyui", { servers: [{ url: up!.url }, { url: down!.url }] });
    expect(result).toMatchObject({ ok: true, detail: expect.stringContaining("1 of 2 servers answer") });
    expect(result.ok && result.detail).toContain("RTX 4090");
    expect(result.ok && result.detail).toContain(`${down!.url} does not answer`);
  });
});
