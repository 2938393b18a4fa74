import { resolve } from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { startComfyFake, type ComfyFake } from "#tests/fakes/comfyui.ts";
import { runAdminCommand } from "#server/admin/commands.ts";
import { creditHold, generation, user } from "#server/db/schema/index.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
const ROOT = resolve(import.meta.dirname, "../..");
const CREDITS = 3;
const START = 100;

interface View {
  id: string;
  status: string;
  creditsHeld: number;
  creditsCharged: number | null;
  outputs: { id: string; url?: string }[];
}

describe(`a pool of ComfyUI servers on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let gpuA: ComfyFake;
  let gpuB: ComfyFake;
  const admin = (...args: string[]) =>
    runAdminCommand(
      {
        db: async () => app.runtime.database.db,
        cwd: ROOT,
        catalog: async () => ({ env: app.runtime.env, models: app.runtime.models, secrets: app.runtime.secrets }),
      },
      args,
    );
  const balance = async (cookie: string) =>
    ((await (await app.call("GET", "/api/me", { cookie })).json()) as { credits: { balance: number } }).credits.balance;
  const generate = async (cookie: string, body: object) => {
    const res = await app.call("POST", "/api/generations", { cookie, body });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { generation: View }).generation;
  };
  const read = async (cookie: string, id: string) =>
    ((await (await app.call("GET", `/api/generations/${id}`, { cookie })).json()) as { generation: View }).generation;

  beforeAll(async () => {
    [gpuA, gpuB] = await Promise.all([startComfyFake({ stepMs: 10 }), startComfyFake({ stepMs: 10 })]);
    app = await openApp({
      COMFYUI_URLS: `${gpuA.url},${gpuB.url}`,
      WORKER_CONCURRENCY: "8",
      SIGNUP_BONUS_CREDITS: String(START),
    });
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([gpuA?.close(), gpuB?.close()]);
  });

  it("adds a workflow as a model from the command line, its inputs read and the rest fixed", async () => {
    const added = await admin(
      "models",
      "add",
      "comfyui:docs/comfyui/text-to-image.json",
      "--connection",
      "comfyui",
      "--credits",
      String(CREDITS),
      "--id",
      "sd15",
      "--enable",
    );
    expect(added, added.stderr).toMatchObject({ code: 0, stdout: "sd15\n" });
    expect(added.stderr).toContain("workflow version 1");
    expect(added.stderr).toMatch(/prompt → \d+\.text/);
    expect(added.stderr).toMatch(/fixed at the workflow's values: .*steps=/);
    const entry = app.runtime.models.entry("sd15");
    expect(entry?.state).toBe("on");
    expect(entry?.definition).toMatchObject({ kind: "image", tools: ["text-to-image"], enabled: true });
  });

  it("runs a user's prompt, seed and ratio in the workflow's nodes, on the least busy server", async () => {
    const cookie = await app.signedIn("painter@example.com");
    const before = await balance(cookie);
    const g = await generate(cookie, {
      tool: "text-to-image",
      model: "sd15",
      prompt: "a lighthouse in a storm",
      seed: 4242,
      aspectRatio: "16:9",
    });
    expect(await app.ended(g.id, cookie)).toBe("succeeded");
    const done = await read(cookie, g.id);
    expect(done.creditsCharged).toBe(CREDITS);
    expect(await balance(cookie)).toBe(before - CREDITS);
    const sent = [...gpuA.prompts, ...gpuB.prompts].find((p) =>
      Object.values(p.graph).some((n) => n.inputs.text === "a lighthouse in a storm"),
    );
    expect(sent).toBeDefined();
    const nodes = Object.values(sent!.graph);
    expect(nodes.find((n) => n.class_type === "KSampler")?.inputs.seed).toBe(4242);
    // The workflow's 512×512 pixels, at 16:9.
    expect(nodes.find((n) => n.class_type === "EmptyLatentImage")?.inputs).toMatchObject({ width: 680, height: 384 });
    const image = await app.call("GET", done.outputs[0]!.url!, { cookie });
    expect(image.status).toBe(200);
    const meta = await sharp(new Uint8Array(await image.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([680, 384]);
  });

  it(
    "shares the pool between accounts and ends each of 40 jobs once when a server dies halfway, the ledger adding up",
    { timeout: 180_000 },
    async () => {
      const accounts = ["ana", "bo", "cy", "di"];
      const cookies = await Promise.all(accounts.map((a) => app.signedIn(`${a}@example.com`)));
      const received = () => gpuA.prompts.length + gpuB.prompts.length;
      const startAt = received();
      // Ana asks first for all ten of hers; the others follow, while the GPUs are slow enough to be all busy.
      gpuA.knobs.stepMs = gpuB.knobs.stepMs = 1000;
      const jobs: { account: number; id: string }[] = [];
      for (const [account, cookie] of cookies.entries())
        for (let i = 0; i < 10; i++) {
          const g = await generate(cookie, {
            tool: "text-to-image",
            model: "sd15",
            prompt: `job ${accounts[account]} ${i}`,
          });
          jobs.push({ account, id: g.id });
        }
      gpuA.knobs.stepMs = gpuB.knobs.stepMs = 10;
      // Halfway through, the first server dies under whatever it runs.
      await expect.poll(received, { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(startAt + 20);
      gpuA.kill();

      // Forty jobs on one server after the other died: given time under a loaded machine.
      const open = async () =>
        (
          await app.runtime.database.db
            .select({ id: generation.id })
            .from(generation)
            .where(
              and(
                inArray(
                  generation.id,
                  jobs.map((j) => j.id),
                ),
                inArray(generation.status, ["queued", "processing"]),
              ),
            )
        ).length;
      await expect.poll(open, { timeout: 100_000, interval: 250 }).toBe(0);
      const ends = await Promise.all(jobs.map((j) => app.ended(j.id, cookies[j.account]!)));
      expect(ends.every((s) => s === "succeeded" || s === "failed")).toBe(true);
      // The other server took the dead one's jobs: most end well.
      expect(ends.filter((s) => s === "succeeded").length).toBeGreaterThanOrEqual(30);

      // Interleaved: the prompts the servers received, in order, by account (a job moved off the dead server twice).
      const order = [...gpuA.prompts, ...gpuB.prompts]
        .filter((p) =>
          Object.values(p.graph).some((n) => typeof n.inputs.text === "string" && n.inputs.text.startsWith("job ")),
        )
        .sort((x, y) => x.at - y.at)
        .map((p) => {
          const text = Object.values(p.graph).find((n) => String(n.inputs.text).startsWith("job "))!.inputs
            .text as string;
          return text.split(" ")[1]!;
        });
      // Ana asked first, yet every other account's first job started before her last one.
      expect(order.length).toBeGreaterThanOrEqual(40);
      const lastOfAna = order.lastIndexOf("ana");
      for (const other of ["bo", "cy", "di"]) expect(order.indexOf(other), other).toBeLessThan(lastOfAna);

      // Each job ended once: one hold, settled once; charged what succeeded, nothing for what failed.
      const db = app.runtime.database.db;
      const rows = await db
        .select({
          id: generation.id,
          status: generation.status,
          charged: generation.creditsCharged,
          userId: generation.userId,
          holdId: generation.holdId,
        })
        .from(generation)
        .where(
          inArray(
            generation.id,
            jobs.map((j) => j.id),
          ),
        );
      const holds = await db
        .select()
        .from(creditHold)
        .where(
          inArray(
            creditHold.id,
            rows.map((r) => r.holdId!),
          ),
        );
      expect(holds).toHaveLength(40);
      for (const r of rows) {
        const hold = holds.find((h) => h.id === r.holdId)!;
        expect(hold.status).toBe(r.status === "succeeded" ? "captured" : "released");
        expect(r.charged ?? 0).toBe(r.status === "succeeded" ? CREDITS : 0);
      }
      for (const [account, cookie] of cookies.entries()) {
        const [owner] = await db
          .select({ id: user.id })
          .from(user)
          .where(eq(user.email, `${accounts[account]}@example.com`));
        const succeeded = rows.filter((r) => r.userId === owner!.id && r.status === "succeeded").length;
        expect(await balance(cookie)).toBe(START - CREDITS * succeeded);
      }
      expect(
        await db
          .select({ id: generation.id })
          .from(generation)
          .where(and(inArray(generation.status, ["queued", "processing"]))),
      ).toEqual([]);
    },
  );

  it("edits with a painted mask through a mask workflow: the image and the mask uploaded to the server, in their nodes", async () => {
    const added = await admin(
      "models",
      "add",
      "comfyui:docs/comfyui/inpaint.json",
      "--connection",
      "comfyui",
      "--credits",
      "2",
      "--id",
      "sd15-inpaint",
      "--enable",
    );
    expect(added, added.stderr).toMatchObject({ code: 0 });
    expect(app.runtime.models.entry("sd15-inpaint")?.definition).toMatchObject({ tools: ["inpaint", "outpaint"] });
    const cookie = await app.signedIn("retoucher@example.com");
    const upload = async (bytes: Buffer, mask: boolean) => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "x.png");
      if (mask) form.append("purpose", "mask");
      const res = await app.call("POST", "/api/uploads", { cookie, body: form });
      expect(res.status).toBe(201);
      return ((await res.json()) as { upload: { id: string } }).upload.id;
    };
    const picture = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    const mask = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#000" } })
      .composite([{ input: { create: { width: 160, height: 240, channels: 3, background: "#fff" } }, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const [inputAssetId, maskAssetId] = await Promise.all([upload(picture, false), upload(mask, true)]);
    const servers = [gpuA, gpuB];
    const uploadsBefore = servers.map((f) => f.uploads.length);
    const g = await generate(cookie, {
      tool: "inpaint",
      model: "sd15-inpaint",
      prompt: "a red door",
      inputAssetId,
      maskAssetId,
    });
    expect(await app.ended(g.id, cookie)).toBe("succeeded");
    const sent = servers
      .flatMap((f) => f.prompts)
      .find((p) => Object.values(p.graph).some((n) => n.inputs.text === "a red door"))!;
    const nodes = Object.values(sent.graph);
    const uploaded = servers.flatMap((f, i) => f.uploads.slice(uploadsBefore[i]));
    expect(uploaded).toHaveLength(2);
    const image = nodes.find((n) => n.class_type === "LoadImage")!.inputs.image;
    const painted = nodes.find((n) => n.class_type === "LoadImageMask")!.inputs.image;
    expect(uploaded.map((u) => u.name).sort()).toEqual([image, painted].sort());
    // The mask arrives as painted: white (what changes) on the left half.
    const maskUpload = uploaded.find((u) => u.name === painted)!;
    const { data, info } = await sharp(maskUpload.bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([320, 240]);
    expect(data[120 * info.width + 40]).toBeGreaterThan(200);
    expect(data[120 * info.width + 280]).toBeLessThan(50);
  });

  it("refuses a workflow a server lacks a node of, naming the server and the node", async () => {
    const lacking = await startComfyFake({ lacks: ["SaveImage"] });
    const healthy = await startComfyFake();
    try {
      const pool = await admin(
        "connections",
        "add",
        "comfyui",
        "--name",
        "mixed",
        "--id",
        "mixed",
        "--url",
        healthy.url,
        "--url",
        lacking.url,
      );
      expect(pool, pool.stderr).toMatchObject({ code: 0 });
      const refused = await admin(
        "models",
        "add",
        "comfyui:docs/comfyui/text-to-image.json",
        "--connection",
        "mixed",
        "--credits",
        "1",
        "--id",
        "sd15-mixed",
      );
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`${lacking.url} lacks the node type SaveImage`);
      expect(refused.stderr).not.toContain(`${healthy.url} lacks`);
      expect(app.runtime.models.entry("sd15-mixed")).toBeUndefined();
    } finally {
      await Promise.all([lacking.close(), healthy.close()]);
    }
  });
});
