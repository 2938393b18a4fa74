import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelDefinitionSchema } from "#server/modules/catalog/model-definition.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import type { Connection } from "#server/modules/catalog/catalog.ts";
import { checkParameters } from "#common/model-parameters.ts";
import { describeFal } from "#server/providers/fal/describe.ts";
import { runBinding } from "#server/providers/index.ts";
import { providerDefinition } from "#server/providers/registry.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { listen, sendJson, startFakeReplicate, type FakeReplicate } from "#tests/fakes/replicate.ts";
import { catalogIdFor, describeModel, proposeDefinition, type DescribeModelInput } from "./describe-model.ts";

const KEYS = { fal: "describe-key-id:describe-key-secret", replicate: "r8_describe_token", openai: "sk-describe-key" };
const WRONG = "wrong-key-0123456789";

let fal: FakeFal;
let replicate: FakeReplicate;
let openai: FakeOpenAI;
let closedPort: number;

beforeAll(async () => {
  [fal, replicate, openai] = await Promise.all([
    startFakeFal({ key: KEYS.fal }),
    startFakeReplicate({ token: KEYS.replicate }),
    startFakeOpenAI({ apiKey: KEYS.openai }),
  ]);
  const spare = createServer();
  await new Promise<void>((resolve) => spare.listen(0, "127.0.0.1", resolve));
  closedPort = (spare.address() as AddressInfo).port;
  await new Promise<void>((resolve) => spare.close(() => resolve()));
});

afterAll(async () => {
  await Promise.all([fal?.close(), replicate?.close(), openai?.close()]);
});

function connection(id: string, provider: string, settings: Record<string, unknown>, enabled = true): Connection {
  return { id, name: id, provider, source: "custom", enabled, settings, secretHints: {} };
}

/** A connection source as the model registry is one: the provider's connections, in order. */
const source = (...connections: Connection[]) => ({ connections: () => connections });

const falConnection = (apiKey = KEYS.fal, baseURL = fal.url) => connection("fal-main", "fal", { apiKey, baseURL });
const replicateConnection = (apiToken = KEYS.replicate, baseURL = replicate.apiUrl) =>
  connection("replicate-main", "replicate", { apiToken, baseURL });

const describeWith = (input: Omit<DescribeModelInput, "connections">, ...connections: Connection[]) =>
  describeModel({ ...input, connections: source(...connections) }, AbortSignal.timeout(30_000));

async function refusal(promise: Promise<unknown>): Promise<DescribeRefusal> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DescribeRefusal);
  return error as DescribeRefusal;
}

describe("describing models through the providers' adapters", () => {
  it("reads fal's FLUX.1 [dev] from the Platform API under the base URL, with its price", async () => {
    const description = await describeWith({ provider: "fal", model: "fal-ai/flux/dev" }, falConnection());
    expect(description).toMatchObject({
      provider: "fal",
      providerModel: "fal-ai/flux/dev",
      kind: "image",
      name: "FLUX.1 [dev]",
      tools: ["text-to-image"],
      unmet: [],
      cost: { unitPrice: 0.025, unit: "megapixels", currency: "USD" },
      fromSchema: true,
    });
    expect(description.description).toMatch(/^FLUX\.1 \[dev\] is a 12 billion parameter/);
    expect(description.mapping).toMatchObject({
      prompt: "prompt",
      seed: "seed",
      count: "num_images",
      aspectRatio: { field: "image_size", values: { "1:1": "square_hd", "16:9": "landscape_16_9" } },
    });
    expect(description.options.maxCount).toBe(4);
    expect(description.parameters.map((p) => p.name)).toEqual([
      "num_inference_steps",
      "guidance_scale",
      "enable_safety_checker",
      "output_format",
      "acceleration",
    ]);
    expect(fal.requests.filter((r) => r.path.startsWith("/api/")).map((r) => r.path)).toEqual([
      "/api/v1/models",
      "/api/v1/models/pricing",
    ]);
  });

  it("reads fal's Kling 2.5 Turbo Pro as a video model with its durations", async () => {
    const description = await describeWith(
      { provider: "fal", model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video" },
      falConnection(),
    );
    expect(description).toMatchObject({
      kind: "video",
      name: "Kling 2.5 Turbo Pro",
      tools: ["text-to-video"],
      unmet: [],
      mapping: {
        prompt: "prompt",
        negativePrompt: "negative_prompt",
        aspectRatio: { field: "aspect_ratio" },
        duration: { field: "duration", as: "string" },
      },
      options: { durations: [5, 10], aspectRatios: ["16:9", "9:16", "1:1"], negativePrompt: true },
      cost: { unitPrice: 0.07, unit: "second", currency: "USD" },
    });
    expect(description.parameters.map((p) => p.name)).toEqual(["cfg_scale"]);
  });

  it("reads Replicate's black-forest-labs/flux-dev from its latest version's schema", async () => {
    const description = await describeWith(
      { provider: "replicate", model: "black-forest-labs/flux-dev" },
      replicateConnection(),
    );
    expect(description).toMatchObject({
      provider: "replicate",
      providerModel: "black-forest-labs/flux-dev",
      kind: "image",
      name: "Flux Dev",
      tools: ["text-to-image", "image-to-image"],
      unmet: [],
      mapping: {
        prompt: "prompt",
        aspectRatio: { field: "aspect_ratio" },
        inputImage: { field: "image" },
        strength: "prompt_strength",
        count: "num_outputs",
        seed: "seed",
      },
      options: { maxCount: 4, strength: true, seed: true },
      fromSchema: true,
    });
    expect(description.cost).toBeUndefined();
    expect(description.parameters.map((p) => p.name)).toContain("disable_safety_checker");
    expect(replicate.requests.at(-1)).toEqual({ method: "GET", path: "/v1/models/black-forest-labs/flux-dev" });
  });

  it.each([
    ["fal", "fal-ai/flux-pro/v1/fill", "image", ["inpaint", "outpaint"], { mask: "mask_url" }],
    [
      "fal",
      "fal-ai/kling-video/v2.5-turbo/pro/image-to-video",
      "video",
      ["image-to-video"],
      { endImage: "tail_image_url" },
    ],
    ["fal", "fal-ai/clarity-upscaler", "image", ["upscale"], { scale: "upscale_factor" }],
    ["fal", "fal-ai/birefnet/v2", "image", ["remove-background"], { inputImage: { field: "image_url" } }],
    ["replicate", "black-forest-labs/flux-fill-pro", "image", ["inpaint", "outpaint"], { mask: "mask" }],
    [
      "replicate",
      "kwaivgi/kling-v2.5-turbo-pro",
      "video",
      ["text-to-video", "image-to-video"],
      { endImage: "end_image" },
    ],
    ["replicate", "nightmareai/real-esrgan", "image", ["upscale"], { scale: "scale" }],
    ["replicate", "lucataco/remove-bg", "image", ["remove-background"], { inputImage: { field: "image" } }],
  ] as const)(
    "reads %s's %s and proposes it offered, with the tools its inputs serve",
    async (provider, model, kind, tools, mapped) => {
      const description = await describeWith(
        { provider, model },
        provider === "fal" ? falConnection() : replicateConnection(),
      );
      expect(description).toMatchObject({ kind, tools, unmet: [], mapping: mapped });
      const { definition } = proposeDefinition(description, { credits: 5, enable: true });
      expect(modelDefinitionSchema.safeParse(definition).success).toBe(true);
      expect(definition).toMatchObject({ enabled: true, tools, bindings: [{ provider, model, mapping: mapped }] });
    },
  );

  it("lets the caller say a Replicate model makes videos", async () => {
    const description = await describeWith(
      { provider: "replicate", model: "black-forest-labs/flux-dev", kind: "video" },
      replicateConnection(),
    );
    expect(description.kind).toBe("video");
    expect(description.tools).toEqual(["text-to-video", "image-to-video"]);
  });

  it("finds an OpenAI-compatible model in the server's list and proposes the common fields", async () => {
    const compatible = connection("local", "openai-compatible", { baseURL: openai.apiUrl, apiKey: KEYS.openai });
    const description = await describeWith({ provider: "openai-compatible", model: "dall-e-3" }, compatible);
    expect(description).toEqual({
      provider: "openai-compatible",
      providerModel: "dall-e-3",
      kind: "image",
      name: "dall-e-3",
      tools: ["text-to-image"],
      mapping: {},
      options: {
        aspectRatios: ["1:1", "4:3", "3:4", "16:9", "9:16"],
        maxCount: 4,
        negativePrompt: false,
        seed: false,
        strength: false,
      },
      parameters: [],
      unmet: [],
      fromSchema: false,
    });
    const unknown = await refusal(describeWith({ provider: "openai-compatible", model: "sdxl-turbo" }, compatible));
    expect(unknown.code).toBe("unknown_model");
  });

  it("refuses unknown ids", async () => {
    const falUnknown = await refusal(describeWith({ provider: "fal", model: "fal-ai/no-such-model" }, falConnection()));
    expect(falUnknown.code).toBe("unknown_model");
    expect(falUnknown.message).toContain("fal-ai/no-such-model");
    expect((await refusal(describeWith({ provider: "fal", model: "not an id" }, falConnection()))).code).toBe(
      "unknown_model",
    );
    const replicateUnknown = await refusal(
      describeWith({ provider: "replicate", model: "someone/no-such-model" }, replicateConnection()),
    );
    expect(replicateUnknown.code).toBe("unknown_model");
    expect(replicateUnknown.message).toContain("HTTP 404");
  });

  it("refuses a wrong key without repeating it", async () => {
    for (const [promise] of [
      [describeWith({ provider: "fal", model: "fal-ai/flux/dev" }, falConnection(WRONG))],
      [describeWith({ provider: "replicate", model: "black-forest-labs/flux-dev" }, replicateConnection(WRONG))],
      [
        describeWith(
          { provider: "openai-compatible", model: "dall-e-3" },
          connection("local", "openai-compatible", { baseURL: openai.apiUrl, apiKey: WRONG }),
        ),
      ],
    ] as const) {
      const error = await refusal(promise);
      expect(error.code).toBe("unauthorized");
      expect(error.message).toContain("HTTP 401");
      expect(error.message).not.toContain(WRONG);
    }
  });

  it("reports a provider that does not answer as unreachable", async () => {
    const closed = `http://127.0.0.1:${closedPort}`;
    for (const promise of [
      describeWith({ provider: "fal", model: "fal-ai/flux/dev" }, falConnection(KEYS.fal, closed)),
      describeWith(
        { provider: "replicate", model: "black-forest-labs/flux-dev" },
        replicateConnection(KEYS.replicate, `${closed}/v1`),
      ),
      describeWith(
        { provider: "openai-compatible", model: "dall-e-3" },
        connection("local", "openai-compatible", { baseURL: `${closed}/v1` }),
      ),
    ]) {
      const error = await refusal(promise);
      expect(error.code).toBe("unreachable");
      expect(error.message).toContain("ECONNREFUSED");
    }
  });

  it("leaves the cost out when fal refuses the price, and reads the schema all the same", async () => {
    const document = readFileSync(new URL("../../../tests/fakes/schemas/fal/fal-ai__flux__dev.json", import.meta.url));
    const stub = await listen(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname === "/v1/models/pricing") return sendJson(res, 403, { detail: "This key may not read prices" });
      sendJson(res, 200, { models: [JSON.parse(document.toString("utf8"))], next_cursor: null, has_more: false });
    });
    try {
      const description = await describeFal(
        { url: stub.url, apiKey: KEYS.fal },
        "fal-ai/flux/dev",
        AbortSignal.timeout(30_000),
      );
      expect(description.name).toBe("FLUX.1 [dev]");
      expect(description.cost).toBeUndefined();
    } finally {
      await stub.close();
    }
  });

  it("uses the connection named, or the first that can serve, and refuses when there is none", async () => {
    const off = connection("fal-off", "fal", { apiKey: KEYS.fal, baseURL: `http://127.0.0.1:${closedPort}` }, false);
    const noKey = connection("fal-nokey", "fal", { baseURL: fal.url });
    const description = await describeWith({ provider: "fal", model: "fal-ai/flux/dev" }, off, noKey, falConnection());
    expect(description.name).toBe("FLUX.1 [dev]");
    const named = await refusal(
      describeWith({ provider: "fal", connection: "fal-off", model: "fal-ai/flux/dev" }, off, falConnection()),
    );
    expect(named.code).toBe("no_connection");
    expect(named.message).toContain("fal-off");
    expect(
      (await refusal(describeWith({ provider: "fal", connection: "elsewhere", model: "fal-ai/flux/dev" }, off))).code,
    ).toBe("no_connection");
    expect((await refusal(describeWith({ provider: "fal", model: "fal-ai/flux/dev" }, off, noKey))).code).toBe(
      "no_connection",
    );
    const openaiRefusal = await refusal(
      describeWith({ provider: "openai", model: "gpt-image-1" }, connection("openai", "openai", { apiKey: "k" })),
    );
    expect(openaiRefusal.code).toBe("unsupported");
    expect((await refusal(describeWith({ provider: "nobody", model: "x" }))).code).toBe("unsupported");
  });
});

describe("generating with a proposed model", () => {
  /** Runs the proposed model's binding on a connection, as a job does, with some advanced values. */
  async function generate(
    connection: Connection,
    proposed: ReturnType<typeof proposeDefinition>["definition"],
    params: Parameters<typeof runBinding>[0]["params"],
  ) {
    if (proposed.kind === "chat") throw new Error("a media model was proposed");
    const checked = checkParameters(proposed.parameters, params.options);
    if (!checked.ok) throw new Error(checked.detail);
    return runBinding({
      connections: {
        connection: () => ({ definition: providerDefinition(connection.provider), settings: connection.settings }),
      },
      model: { kind: proposed.kind },
      binding: { ...proposed.bindings[0]!, connection: connection.id },
      tool: proposed.tools[0]!,
      prompt: "a lighthouse at dusk",
      params: { ...params, options: checked.values },
      abortSignal: AbortSignal.timeout(60_000),
    });
  }

  it("sends fal's FLUX.1 [dev] the mapped inputs and the advanced settings", async () => {
    const falMain = falConnection();
    const described = await describeWith({ provider: "fal", model: "fal-ai/flux/dev" }, falMain);
    const { definition } = proposeDefinition(described, { credits: 2 });
    const outputs = await generate(falMain, definition, {
      aspectRatio: "16:9",
      count: 2,
      seed: 11,
      options: { guidance_scale: "5", acceleration: "high" },
    });
    expect(outputs).toHaveLength(2);
    const sent = fal.requests.filter((r) => r.method === "POST").at(-1);
    expect(sent?.path).toBe("/fal-ai/flux/dev");
    expect(sent?.body).toMatchObject({
      prompt: "a lighthouse at dusk",
      image_size: "landscape_16_9",
      seed: 11,
      guidance_scale: 5,
      acceleration: "high",
      num_inference_steps: 28,
      enable_safety_checker: true,
      output_format: "jpeg",
    });
  });

  it("sends fal's Kling 2.5 Turbo Pro its duration as fal's string, through the queue", async () => {
    const falMain = falConnection();
    const described = await describeWith(
      { provider: "fal", model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video" },
      falMain,
    );
    const { definition } = proposeDefinition(described, { credits: 30 });
    // Finished at the first poll: this test is about what is sent.
    fal.pollsToFinish = 0;
    await generate(falMain, definition, { aspectRatio: "9:16", count: 1, duration: 10, options: { cfg_scale: 0.7 } });
    const sent = fal.requests.filter((r) => r.method === "POST").at(-1);
    expect(sent?.path).toBe("/queue/fal-ai/kling-video/v2.5-turbo/pro/text-to-video");
    expect(sent?.body).toMatchObject({ aspect_ratio: "9:16", duration: "10", cfg_scale: 0.7 });
  }, 60_000);

  it("sends Replicate's flux-dev the mapped inputs and the advanced settings", async () => {
    const main = replicateConnection();
    const described = await describeWith({ provider: "replicate", model: "black-forest-labs/flux-dev" }, main);
    const { definition } = proposeDefinition(described, { credits: 2 });
    const outputs = await generate(main, definition, {
      aspectRatio: "3:4",
      count: 3,
      options: { go_fast: false, megapixels: "0.25" },
    });
    expect(outputs).toHaveLength(3);
    const sent = replicate.requests.filter((r) => r.method === "POST").at(-1);
    expect(sent?.path).toBe("/v1/models/black-forest-labs/flux-dev/predictions");
    expect((sent?.body as { input: unknown }).input).toMatchObject({
      prompt: "a lighthouse at dusk",
      aspect_ratio: "3:4",
      go_fast: false,
      megapixels: "0.25",
      guidance: 3,
      output_quality: 80,
      disable_safety_checker: false,
    });
  });
});

describe("proposing a catalog model from a description", () => {
  const image: ModelDescription = {
    provider: "fal",
    providerModel: "fal-ai/flux/dev",
    kind: "image",
    name: "FLUX.1 [dev]",
    description: "FLUX.1 [dev] is a 12 billion parameter flow transformer.",
    tools: ["text-to-image"],
    mapping: {
      prompt: "prompt",
      count: "num_images",
      aspectRatio: { field: "image_size", values: { "1:1": "square_hd" } },
    },
    options: { aspectRatios: ["1:1"], maxCount: 4, negativePrompt: false, seed: true, strength: false },
    parameters: [
      { name: "guidance_scale", type: "number", label: "Guidance scale", default: 3.5, minimum: 1, maximum: 20 },
    ],
    unmet: [],
    cost: { unitPrice: 0.025, unit: "megapixels", currency: "USD" },
    fromSchema: true,
  };
  const video: ModelDescription = {
    ...image,
    providerModel: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
    kind: "video",
    name: "Kling 2.5 Turbo Pro",
    tools: ["text-to-video"],
    mapping: { prompt: "prompt", duration: { field: "duration", as: "string" } },
    options: {
      aspectRatios: ["16:9"],
      maxCount: 1,
      durations: [5, 10],
      negativePrompt: true,
      seed: false,
      strength: false,
    },
    parameters: [],
    cost: { unitPrice: 0.07, unit: "second", currency: "USD" },
  };

  it("makes a valid definition with one binding, the mapping, the settings and a price per image", () => {
    const { id, definition } = proposeDefinition(image, { credits: 3 });
    expect(id).toBe("flux-dev");
    expect(modelDefinitionSchema.safeParse(definition).success).toBe(true);
    expect(definition).toEqual({
      kind: "image",
      name: "FLUX.1 [dev]",
      description: { en: "FLUX.1 [dev] is a 12 billion parameter flow transformer." },
      enabled: false,
      visibility: "everyone",
      bindings: [{ provider: "fal", model: "fal-ai/flux/dev", mapping: image.mapping }],
      tools: ["text-to-image"],
      price: { unit: "image", credits: 3 },
      cost: 0.025,
      options: image.options,
      parameters: image.parameters,
      expectedSeconds: 20,
      timeoutSeconds: 180,
    });
  });

  it("prices a video per video unless asked per second, and keeps fal's cost only in the same unit", () => {
    const perVideo = proposeDefinition(video, { credits: 40 }).definition;
    expect(perVideo).toMatchObject({ kind: "video", price: { unit: "video", credits: 40 }, timeoutSeconds: 900 });
    expect(perVideo).not.toHaveProperty("cost");
    expect(perVideo).not.toHaveProperty("parameters");
    const perSecond = proposeDefinition(video, { credits: 8, unit: "second" }).definition;
    expect(perSecond).toMatchObject({ price: { unit: "videoSecond", credits: 8 }, cost: 0.07 });
  });

  it("is enabled only when asked and nothing is unmet, and takes the id, name and connection given", () => {
    expect(proposeDefinition(image, { credits: 1, enable: true }).definition.enabled).toBe(true);
    const blocked = {
      ...image,
      unmet: ["It requires an end image (last_frame_image), which a request may leave out."],
    };
    expect(proposeDefinition(blocked, { credits: 1, enable: true }).definition.enabled).toBe(false);
    const named = proposeDefinition(image, { credits: 1, id: "my-flux", name: "My Flux", connection: "fal-main" });
    expect(named.id).toBe("my-flux");
    expect(named.definition.name).toBe("My Flux");
    expect(named.definition.bindings[0]).toMatchObject({ provider: "fal", connection: "fal-main" });
    expect(() => proposeDefinition(image, { credits: 1, id: "Not An Id" })).toThrow();
  });

  it("derives catalog ids from provider ids, unique among those taken", () => {
    expect(catalogIdFor("fal-ai/flux/dev")).toBe("flux-dev");
    expect(catalogIdFor("fal-ai/kling-video/v2.5-turbo/pro/text-to-video")).toBe(
      "kling-video-v2.5-turbo-pro-text-to-video",
    );
    expect(catalogIdFor("black-forest-labs/flux-dev", ["flux-dev"])).toBe("flux-dev-2");
    expect(catalogIdFor("black-forest-labs/flux-dev", ["flux-dev", "flux-dev-2"])).toBe("flux-dev-3");
    expect(catalogIdFor("Stable Diffusion XL")).toBe("stable-diffusion-xl");
    expect(catalogIdFor("dall-e-3")).toBe("dall-e-3");
    expect(proposeDefinition(image, { credits: 1, taken: ["flux-dev"] }).id).toBe("flux-dev-2");
  });
});
