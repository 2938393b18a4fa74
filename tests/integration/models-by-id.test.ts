import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRole, startServer, waitFor, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeReplicate, type FakeReplicate } from "#tests/fakes/replicate.ts";

interface Listed {
  id: string;
  kind: string;
  tools: string[];
  offered: boolean;
  price: { unit: string; credits: number; multipliers?: Record<string, Record<string, number>>; minimum?: number };
  bindings: { provider: string; model: string; mapping?: Record<string, unknown> }[];
}

/**
 * The operator's command line adds models by their provider ids, read from the providers' own schemas (the fakes serve
 * fal's and Replicate's model reads), prices them with formulas, tests and enables them; a member then generates with
 * each and is charged the formula's price, and the provider receives the mapped inputs.
 */
describe("adding models by id on the command line", () => {
  const dataDir = serverDataDir();
  let fal: FakeFal;
  let replicate: FakeReplicate;
  let server: TestServer;
  let env: Record<string, string>;
  let cookie: string;

  /** `npm run admin -- …` against the running server (the embedded database: through its admin socket). */
  const admin = async (...args: string[]) => {
    const run = runRole("admin", { ...env, DATA_DIR: dataDir }, args);
    let stdout = "";
    run.proc.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    const code = await run.exited;
    return { code, stdout, output: run.output() };
  };
  const must = async (...args: string[]) => {
    const done = await admin(...args);
    expect(done.code, `${args.join(" ")}\n${done.output}`).toBe(0);
    return done;
  };
  const listed = async (id: string) =>
    (JSON.parse((await must("models", "list", "--json")).stdout) as Listed[]).find((m) => m.id === id) ?? null;
  const balance = async () =>
    (
      (await (await pageApi(server, server.url)("GET", "/api/me", cookie)).json()) as {
        credits: { available: number };
      }
    ).credits.available;
  /** Submits from the studio's own endpoint, waits for the end, and says what it was charged. */
  const generate = async (input: object) => {
    const call = pageApi(server, server.url);
    const res = await call("POST", "/api/generations", cookie, input);
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = ((await res.json()) as { generation: { id: string } }).generation;
    let charged: number | null = null;
    await waitFor(
      "the generation to end",
      async () => {
        const g = (
          (await (await call("GET", `/api/generations/${id}`, cookie)).json()) as {
            generation: { status: string; creditsCharged: number | null; error: unknown };
          }
        ).generation;
        if (g.status === "failed") throw new Error(`failed: ${JSON.stringify(g.error)}`);
        charged = g.creditsCharged;
        return g.status === "succeeded";
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    return charged;
  };

  beforeAll(async () => {
    [fal, replicate] = await Promise.all([startFakeFal(), startFakeReplicate()]);
    fal.pollsToFinish = 1;
    env = {
      FAL_KEY: "fal-cli-key-7777",
      FAL_BASE_URL: fal.url,
      REPLICATE_API_TOKEN: "r8_cli_token_8888",
      REPLICATE_BASE_URL: `${replicate.url}/v1`,
    };
    server = await startServer({ ...env, DATA_DIR: dataDir, PAGE_RATE_LIMIT_PER_MINUTE: "0" });
    cookie = await signedIn(server, server.url, "maker@example.com");
    await must("credits", "maker@example.com", "+1000");
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([fal?.close(), replicate?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("adds a fal image model with its schema's settings, prices it with a formula, tests, enables and charges it", async () => {
    const added = await must("models", "add", "fal:fal-ai/flux/dev", "--credits", "2", "--id", "schema-flux");
    expect(added.stdout).toBe("schema-flux\n");
    // What the schema gave, shown to the operator.
    expect(added.output).toMatch(/aspect ratio → image_size \(1:1 as square_hd/);
    expect(added.output).toMatch(/count → num_images/);
    expect(added.output).toMatch(/an image model, text-to-image/);
    expect(added.output).toMatch(
      /advanced: .*num_inference_steps \(integer, default 28\).*guidance_scale \(number, default 3\.5\)/,
    );
    expect(added.output).toMatch(/enable_safety_checker/);
    const model = await listed("schema-flux");
    expect(model).toMatchObject({
      kind: "image",
      tools: ["text-to-image"],
      offered: false,
      price: { unit: "image", credits: 2 },
      bindings: [{ provider: "fal", model: "fal-ai/flux/dev", mapping: { aspectRatio: { field: "image_size" } } }],
    });

    await must("models", "set", "schema-flux", "price.multipliers.num_inference_steps.50=2", "price.minimum=3");
    expect((await listed("schema-flux"))!.price).toEqual({
      unit: "image",
      credits: 2,
      multipliers: { num_inference_steps: { "50": 2 } },
      minimum: 3,
    });
    const tested = await must("models", "test", "schema-flux");
    expect(tested.stdout).toMatch(/^fal \(fal-ai\/flux\/dev\): works/);
    await must("models", "enable", "schema-flux");
    expect((await listed("schema-flux"))!.offered).toBe(true);

    const before = await balance();
    const charged = await generate({
      tool: "text-to-image",
      model: "schema-flux",
      prompt: "a lighthouse in fog",
      aspectRatio: "16:9",
      count: 2,
      options: { num_inference_steps: 50 },
    });
    // 2 credits × 2 images × 2 (50 steps).
    expect(charged).toBe(8);
    expect(before - (await balance())).toBe(8);
    const sent = fal.requests.filter((r) => r.method === "POST" && r.path === "/fal-ai/flux/dev").at(-1)!.body;
    expect(sent).toMatchObject({
      prompt: "a lighthouse in fog",
      image_size: "landscape_16_9",
      num_inference_steps: 50,
      guidance_scale: 3.5,
    });
  });

  it("adds a Replicate image model the same way", async () => {
    const added = await must(
      "models",
      "add",
      "replicate:black-forest-labs/flux-dev",
      "--credits",
      "3",
      "--id",
      "schema-replicate",
      "--enable",
    );
    expect(added.output).toMatch(/aspect ratio → aspect_ratio/);
    expect(added.output).toMatch(/advanced: .*guidance/);
    expect(await listed("schema-replicate")).toMatchObject({
      tools: expect.arrayContaining(["text-to-image", "image-to-image"]),
      offered: true,
    });
    const charged = await generate({
      tool: "text-to-image",
      model: "schema-replicate",
      prompt: "a paper boat",
      aspectRatio: "9:16",
      options: { guidance: 4.5 },
    });
    expect(charged).toBe(3);
    const sent = replicate.requests.filter((r) => r.method === "POST" && /predictions$/.test(r.path)).at(-1)!.body as {
      input: Record<string, unknown>;
    };
    expect(sent.input).toMatchObject({ prompt: "a paper boat", aspect_ratio: "9:16", guidance: 4.5 });
  });

  it("adds a fal video model through its queue, priced per second", async () => {
    const added = await must(
      "models",
      "add",
      "fal:fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      "--credits",
      "7",
      "--unit",
      "second",
      "--id",
      "schema-kling",
      "--enable",
    );
    expect(added.output).toMatch(/a video model, text-to-video/);
    expect(added.output).toMatch(/duration → duration \(5, 10 s\)/);
    const charged = await generate({
      tool: "text-to-video",
      model: "schema-kling",
      prompt: "waves on a pier",
      duration: 10,
      aspectRatio: "9:16",
      options: { cfg_scale: 0.7 },
    });
    expect(charged).toBe(70);
    const sent = fal.requests
      .filter((r) => r.method === "POST" && r.path === "/queue/fal-ai/kling-video/v2.5-turbo/pro/text-to-video")
      .at(-1)!.body;
    expect(sent).toMatchObject({ duration: "10", aspect_ratio: "9:16", cfg_scale: 0.7 });
  });

  it("adds models that need a mask or a start image, offered at once with the tools their inputs serve", async () => {
    const fill = await must(
      "models",
      "add",
      "fal:fal-ai/flux-pro/v1/fill",
      "--credits",
      "6",
      "--id",
      "schema-fill",
      "--enable",
    );
    expect(fill.output).toMatch(/an image model, inpaint, outpaint\./);
    expect(fill.output).toMatch(/input image → image_url; mask → mask_url/);
    expect(fill.output).not.toMatch(/cannot be offered/);
    expect(await listed("schema-fill")).toMatchObject({ offered: true, tools: ["inpaint", "outpaint"] });

    const animate = await must(
      "models",
      "add",
      "replicate:kwaivgi/kling-v2.5-turbo-pro",
      "--kind",
      "video",
      "--credits",
      "8",
      "--unit",
      "second",
      "--id",
      "schema-animate",
      "--enable",
    );
    expect(animate.output).toMatch(/a video model, text-to-video, image-to-video\./);
    expect(animate.output).toMatch(/input image → start_image; end image → end_image/);
    expect(await listed("schema-animate")).toMatchObject({
      offered: true,
      tools: ["text-to-video", "image-to-video"],
    });

    const upscaler = await must(
      "models",
      "add",
      "fal:fal-ai/clarity-upscaler",
      "--credits",
      "12",
      "--id",
      "schema-upscaler",
      "--enable",
    );
    expect(upscaler.output).toMatch(/an image model, upscale\./);
    expect(upscaler.output).toMatch(/scale → upscale_factor/);
    expect(await listed("schema-upscaler")).toMatchObject({ offered: true, tools: ["upscale"] });
  });

  it("refuses an id the provider does not know, saying so, and adds nothing", async () => {
    const done = await admin("models", "add", "fal:fal-ai/no-such-model", "--credits", "1");
    expect(done.code).toBe(1);
    expect(done.output).toMatch(/Could not read fal:fal-ai\/no-such-model's schema/);
    expect(await listed("no-such-model")).toBeNull();
  });
});
