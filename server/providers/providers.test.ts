import type {
  Experimental_VideoModelV4 as VideoModelV4,
  Experimental_VideoModelV4CallOptions as VideoModelV4CallOptions,
  ImageModelV4,
  ImageModelV4CallOptions,
} from "@ai-sdk/provider";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { parseEnv, type Env } from "#server/env.ts";
import { classifyProviderError, type ProviderFailure } from "#server/providers/errors.ts";
import { externalImageModel, externalProviderConfigured, externalVideoModel } from "#server/providers/external.ts";
import { runImageModel, runVideoModel, type ImageRequest, type VideoRequest } from "#server/providers/generate.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeGoogle, type FakeGoogle } from "#tests/fakes/google.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { FAKE_MP4, fakePng, startFakeReplicate, type FakeReplicate } from "#tests/fakes/replicate.ts";

const KEYS = {
  openai: "sk-unit-openai-key",
  replicate: "r8_unit_token",
  fal: "unit-key-id:unit-key-secret",
  google: "AIzaUnitGoogleKey0123456789abcdefghijk",
};

let openai: FakeOpenAI;
let replicate: FakeReplicate;
let fal: FakeFal;
let google: FakeGoogle;
let env: Env;
let inputPng: Buffer;

beforeAll(async () => {
  [openai, replicate, fal, google] = await Promise.all([
    startFakeOpenAI({ apiKey: KEYS.openai }),
    startFakeReplicate({ token: KEYS.replicate }),
    startFakeFal({ key: KEYS.fal }),
    startFakeGoogle({ apiKey: KEYS.google }),
  ]);
  env = parseEnv({
    OPENAI_API_KEY: KEYS.openai,
    OPENAI_BASE_URL: openai.apiUrl,
    REPLICATE_API_TOKEN: KEYS.replicate,
    REPLICATE_BASE_URL: replicate.apiUrl,
    FAL_KEY: KEYS.fal,
    FAL_BASE_URL: fal.url,
    GOOGLE_GENERATIVE_AI_API_KEY: KEYS.google,
    GOOGLE_BASE_URL: google.apiUrl,
    // The OpenAI fake answers unknown models with image URLs, as OpenAI-compatible servers often do.
    OPENAI_COMPATIBLE_BASE_URL: openai.apiUrl,
    OPENAI_COMPATIBLE_API_KEY: KEYS.openai,
  });
  inputPng = await fakePng("input picture", 48, 48);
});

afterAll(async () => {
  await Promise.all([openai?.close(), replicate?.close(), fal?.close(), google?.close()]);
});

beforeEach(() => {
  for (const fake of [openai, replicate, fal, google]) {
    Object.assign(fake, { failNext: 0, failRate: 0, failStatus: 500, delayMs: 0 });
    Object.assign(fake, { malformed: false, expireOutputs: false, reject: false, requests: [] });
  }
  google.downloads = [];
  replicate.syncWait = true;
});

const image = (extra: Partial<ImageRequest> = {}): ImageRequest => ({
  prompt: "a red fox at dawn",
  n: 1,
  aspectRatio: "1:1",
  abortSignal: AbortSignal.timeout(20_000),
  ...extra,
});

const video = (extra: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: "waves against a lighthouse",
  style: "cinematic",
  duration: 5,
  aspectRatio: "16:9",
  abortSignal: AbortSignal.timeout(20_000),
  pollIntervalMs: 10,
  ...extra,
});

const withInput = { inputImage: { bytes: new Uint8Array(0), mediaType: "image/png" } };

async function expectPngs(outputs: Array<{ bytes: Uint8Array; mediaType: string }>, count: number) {
  expect(outputs).toHaveLength(count);
  for (const output of outputs) {
    expect(output.mediaType).toBe("image/png");
    const meta = await sharp(output.bytes).metadata();
    expect(meta.format).toBe("png");
    expect(meta.width).toBeGreaterThan(0);
  }
}

async function failureOf(
  call: () => Promise<unknown>,
  signals?: { timedOut?: boolean; canceled?: boolean },
): Promise<ProviderFailure> {
  try {
    await call();
  } catch (error) {
    return classifyProviderError(error, signals);
  }
  throw new Error("the call succeeded");
}

const input = () => ({ ...withInput.inputImage, bytes: new Uint8Array(inputPng) });
const dataUrlOf = (bytes: number) => `data:image/png;base64,<${bytes} bytes>`;

describe("provider configuration", () => {
  it("counts a provider as configured only with its credential (or, OpenAI-compatible, its URL)", async () => {
    const empty = parseEnv({});
    for (const p of ["openai", "replicate", "fal", "openai-compatible", "google"] as const) {
      expect(externalProviderConfigured(p, empty)).toBe(false);
      expect(externalProviderConfigured(p, env)).toBe(true);
      await expect(externalImageModel(p, "any", empty)).rejects.toThrow(`Provider ${p} is not configured`);
    }
  });
});

describe("images over HTTP", () => {
  it("OpenAI GPT image: one request for several images, at a size the model takes for the aspect ratio", async () => {
    const outputs = await runImageModel(
      await externalImageModel("openai", "gpt-image-1", env),
      "openai",
      image({ n: 2, aspectRatio: "16:9", seed: 3 }),
    );
    await expectPngs(outputs, 2);
    expect(openai.requests).toHaveLength(1);
    const body = openai.requests[0]!.body as Record<string, unknown>;
    expect(openai.requests[0]!.path).toBe("/v1/images/generations");
    expect(body).toMatchObject({ model: "gpt-image-1", n: 2, size: "1536x1024", prompt: "a red fox at dawn" });
    expect(body).not.toHaveProperty("response_format");
    expect(body).not.toHaveProperty("seed");
  });

  it("OpenAI dall-e-3: one image per request, its own sizes, base64 asked for", async () => {
    const outputs = await runImageModel(
      await externalImageModel("openai", "dall-e-3", env),
      "openai",
      image({ n: 2, aspectRatio: "9:16" }),
    );
    await expectPngs(outputs, 2);
    expect(openai.requests.map((r) => r.body)).toEqual([
      expect.objectContaining({ model: "dall-e-3", n: 1, size: "1024x1792", response_format: "b64_json" }),
      expect.objectContaining({ model: "dall-e-3", n: 1, size: "1024x1792", response_format: "b64_json" }),
    ]);
  });

  it("OpenAI image-to-image sends the picture to the edits endpoint and words the negative prompt", async () => {
    const outputs = await runImageModel(
      await externalImageModel("openai", "gpt-image-1", env),
      "openai",
      image({ inputImage: input(), negativePrompt: "blur, text", strength: 0.5 }),
    );
    await expectPngs(outputs, 1);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]).toMatchObject({
      path: "/v1/images/edits",
      body: { model: "gpt-image-1", image: dataUrlOf(inputPng.length), size: "1024x1024" },
    });
    expect((openai.requests[0]!.body as { prompt: string }).prompt).toBe("a red fox at dawn. Avoid: blur, text.");
  });

  it("OpenAI-compatible: image URLs in the answer are downloaded before returning", async () => {
    const outputs = await runImageModel(
      await externalImageModel("openai-compatible", "sdxl-turbo", env),
      "openai-compatible",
      image({ aspectRatio: "16:9" }),
    );
    await expectPngs(outputs, 1);
    expect(openai.requests[0]!.body).toMatchObject({ model: "sdxl-turbo", size: "1344x768", n: 1 });
  });

  it("Replicate Flux: aspect ratio, seed and negative prompt as model inputs, answered within Prefer: wait", async () => {
    const outputs = await runImageModel(
      await externalImageModel("replicate", "black-forest-labs/flux-dev", env),
      "replicate",
      image({ aspectRatio: "4:3", seed: 7, negativePrompt: "blur" }),
    );
    await expectPngs(outputs, 1);
    expect(replicate.requests).toHaveLength(1);
    expect(replicate.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/models/black-forest-labs/flux-dev/predictions",
      headers: { prefer: "wait" },
      body: {
        input: { prompt: "a red fox at dawn", aspect_ratio: "4:3", seed: 7, num_outputs: 1, negative_prompt: "blur" },
      },
    });
    expect(replicate.requests[0]!.body).not.toHaveProperty("input.prompt_strength");
  });

  it("Replicate: a prediction still running after the wait is polled through starting → processing → succeeded", async () => {
    replicate.syncWait = false;
    const outputs = await runImageModel(
      await externalImageModel("replicate", "black-forest-labs/flux-schnell", env),
      "replicate",
      image({ n: 2, providerOptions: { replicate: { pollIntervalMillis: 10 } } }),
    );
    await expectPngs(outputs, 2);
    const creates = replicate.requests.filter((r) => r.method === "POST");
    const polls = replicate.requests.filter((r) => r.method === "GET");
    expect(creates).toHaveLength(2);
    expect(polls).toHaveLength(4);
    for (const p of replicate.predictions.values()) expect(p.status).toBe("succeeded");
  });

  it("Replicate image-to-image sends the picture and its strength as the model's inputs", async () => {
    await expectPngs(
      await runImageModel(
        await externalImageModel("replicate", "black-forest-labs/flux-dev", env),
        "replicate",
        image({ inputImage: input(), strength: 0.6 }),
      ),
      1,
    );
    expect(replicate.requests[0]!.body).toMatchObject({
      input: { image: dataUrlOf(inputPng.length), prompt_strength: 0.6 },
    });
  });

  it("fal Flux: synchronous run with fal's image size preset; outputs downloaded", async () => {
    const outputs = await runImageModel(
      await externalImageModel("fal", "fal-ai/flux/dev", env),
      "fal",
      image({ aspectRatio: "16:9", seed: 11 }),
    );
    await expectPngs(outputs, 1);
    expect(fal.requests[0]).toMatchObject({
      method: "POST",
      path: "/fal-ai/flux/dev",
      body: { prompt: "a red fox at dawn", image_size: "landscape_16_9", num_images: 1, seed: 11 },
    });
  });

  it("fal image-to-image sends the picture as image_url with its strength and the negative prompt", async () => {
    await expectPngs(
      await runImageModel(
        await externalImageModel("fal", "fal-ai/flux/dev/image-to-image", env),
        "fal",
        image({ inputImage: input(), strength: 0.8, negativePrompt: "people" }),
      ),
      1,
    );
    expect(fal.requests[0]).toMatchObject({
      path: "/fal-ai/flux/dev/image-to-image",
      body: { image_url: dataUrlOf(inputPng.length), strength: 0.8, negative_prompt: "people" },
    });
  });
});

describe("Google's image models over HTTP", () => {
  it("Gemini image: one generateContent call per image, the aspect ratio and seed asked for, the key in its header", async () => {
    const outputs = await runImageModel(
      await externalImageModel("google", "gemini-nano-banana-2.1", env),
      "google",
      image({ n: 2, aspectRatio: "16:9", seed: 4, negativePrompt: "people" }),
    );
    await expectPngs(outputs, 2);
    expect(google.requests).toHaveLength(2);
    for (const request of google.requests)
      expect(request).toMatchObject({
        method: "POST",
        path: "/v1beta/models/gemini-nano-banana-2.1:generateContent",
        headers: { "x-goog-api-key": KEYS.google },
        body: {
          contents: [{ role: "user", parts: [{ text: "a red fox at dawn. Avoid: people." }] }],
          generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "16:9" }, seed: 4 },
        },
      });
    expect((await sharp(outputs[0]!.bytes).metadata()).width).toBeGreaterThan(
      (await sharp(outputs[0]!.bytes).metadata()).height!,
    );
  });

  it("Gemini image-to-image sends the picture as an inline part beside the prompt", async () => {
    await expectPngs(
      await runImageModel(
        await externalImageModel("google", "gemini-nano-banana-2.1", env),
        "google",
        image({ inputImage: input(), strength: 0.5 }),
      ),
      1,
    );
    expect(google.requests[0]!.body).toMatchObject({
      contents: [{ parts: [{ text: "a red fox at dawn" }, { inlineData: dataUrlOf(inputPng.length) }] }],
    });
  });
});

describe("videos over HTTP", () => {
  it("fal: queued, polled and downloaded, with the style in the prompt and the duration as Kling takes it", async () => {
    const outputs = await runVideoModel(
      await externalVideoModel("fal", "fal-ai/kling-video/v2.5-turbo/pro/text-to-video", env),
      "fal",
      video({ duration: 10, aspectRatio: "9:16", negativePrompt: "text", seed: 5 }),
    );
    expect(outputs).toEqual([{ bytes: new Uint8Array(FAKE_MP4), mediaType: "video/mp4" }]);
    expect(fal.requests[0]).toMatchObject({
      method: "POST",
      path: "/queue/fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      body: {
        prompt: "waves against a lighthouse, cinematic style",
        aspect_ratio: "9:16",
        duration: "10",
        negative_prompt: "text",
        seed: 5,
      },
    });
    const polls = fal.requests.slice(1);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    for (const poll of polls)
      expect(poll).toMatchObject({ method: "GET", headers: { "x-forwarded-host": "queue.fal.run" } });
    expect(polls[0]!.path).toMatch(/^\/queue\/fal-ai\/kling-video\/requests\/[\w-]+$/);
  });

  it("Replicate: prediction created, polled until it succeeds, video downloaded", async () => {
    const outputs = await runVideoModel(
      await externalVideoModel("replicate", "kwaivgi/kling-v2.5-turbo-pro", env),
      "replicate",
      video({ style: "documentary", aspectRatio: "1:1" }),
    );
    expect(outputs).toEqual([{ bytes: new Uint8Array(FAKE_MP4), mediaType: "video/mp4" }]);
    expect(replicate.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/models/kwaivgi/kling-v2.5-turbo-pro/predictions",
      body: { input: { prompt: "waves against a lighthouse, documentary style", duration: 5, aspect_ratio: "1:1" } },
    });
    expect(replicate.requests.filter((r) => r.method === "GET").length).toBeGreaterThanOrEqual(2);
  });
});

describe("Google's video models over HTTP", () => {
  it("Veo: a long-running prediction with a clip length Veo makes, its operation polled, the video fetched with the key", async () => {
    google.pollsToFinish = 3;
    const outputs = await runVideoModel(
      await externalVideoModel("google", "veo-3.1-generate", env),
      "google",
      video({ aspectRatio: "9:16", negativePrompt: "text", seed: 8, style: "animation" }),
    );
    expect(outputs).toEqual([{ bytes: new Uint8Array(FAKE_MP4), mediaType: "video/mp4" }]);
    expect(google.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1beta/models/veo-3.1-generate:predictLongRunning",
      headers: { "x-goog-api-key": KEYS.google },
      body: {
        instances: [{ prompt: "waves against a lighthouse, animation style" }],
        parameters: { sampleCount: 1, aspectRatio: "9:16", durationSeconds: 6, seed: 8, negativePrompt: "text" },
      },
    });
    const polls = google.requests.slice(1);
    expect(polls).toHaveLength(3);
    for (const poll of polls)
      expect(poll).toMatchObject({
        method: "GET",
        path: expect.stringMatching(/^\/v1beta\/models\/veo-3\.1-generate\/operations\/\w+$/),
        headers: { "x-goog-api-key": KEYS.google },
      });
    expect(google.downloads).toEqual([expect.stringMatching(new RegExp(`:download\\?key=${KEYS.google}$`))]);
  });

  it("Veo gets the shortest clip it makes that is at least as long as asked for", async () => {
    const { veoDuration } = await import("#server/providers/google/provider.ts");
    expect([veoDuration({ duration: 5 }), veoDuration({ duration: 10 })]).toEqual([6, 8]);
  });
});

describe("the offline demo models", () => {
  it("get the prompt as written and Atelier's options under providerOptions.demo", async () => {
    const png = await fakePng("demo", 16, 16);
    const imageCalls: ImageModelV4CallOptions[] = [];
    const demoImage: ImageModelV4 = {
      specificationVersion: "v4",
      provider: "demo",
      modelId: "demo-image",
      maxImagesPerCall: 4,
      async doGenerate(options) {
        imageCalls.push(options);
        return {
          images: Array.from({ length: options.n }, () => new Uint8Array(png)),
          warnings: [],
          response: { timestamp: new Date(), modelId: "demo-image", headers: undefined },
        };
      },
    };
    await expectPngs(
      await runImageModel(demoImage, "demo", image({ n: 2, negativePrompt: "blur", strength: 0.4, seed: 9 })),
      2,
    );
    expect(imageCalls).toHaveLength(1);
    expect(imageCalls[0]).toMatchObject({
      prompt: "a red fox at dawn",
      n: 2,
      seed: 9,
      aspectRatio: "1:1",
      providerOptions: { demo: { negativePrompt: "blur", strength: 0.4 } },
    });

    const videoCalls: VideoModelV4CallOptions[] = [];
    const demoVideo: VideoModelV4 = {
      specificationVersion: "v4",
      provider: "demo",
      modelId: "demo-video",
      maxVideosPerCall: 1,
      async doGenerate(options) {
        videoCalls.push(options);
        return {
          videos: [{ type: "binary", data: new Uint8Array(FAKE_MP4), mediaType: "video/mp4" }],
          warnings: [],
          response: { timestamp: new Date(), modelId: "demo-video", headers: undefined },
        };
      },
    };
    const outputs = await runVideoModel(demoVideo, "demo", video({ style: "animation", duration: 10 }));
    expect(outputs[0]!.mediaType).toBe("video/mp4");
    expect(videoCalls[0]).toMatchObject({
      prompt: "waves against a lighthouse",
      duration: 10,
      aspectRatio: "16:9",
      providerOptions: { demo: { style: "animation" } },
    });
  });
});

describe("classifying failures", () => {
  const gpt = async () => runImageModel(await externalImageModel("openai", "gpt-image-1", env), "openai", image());
  const flux = async (p: "replicate" | "fal") =>
    runImageModel(
      await externalImageModel(p, p === "fal" ? "fal-ai/flux/schnell" : "black-forest-labs/flux-schnell", env),
      p,
      image(),
    );
  const nanoBanana = async () =>
    runImageModel(await externalImageModel("google", "gemini-nano-banana-2.1", env), "google", image());
  const veo = async (extra: Partial<VideoRequest> = {}) =>
    runVideoModel(await externalVideoModel("google", "veo-3.1-generate", env), "google", video(extra));
  const kling = async (p: "replicate" | "fal") =>
    runVideoModel(
      await externalVideoModel(
        p,
        p === "fal" ? "fal-ai/kling-video/v2.5-turbo/pro/text-to-video" : "kwaivgi/kling-v2.5-turbo-pro",
        env,
      ),
      p,
      video(),
    );

  it.each([
    [500, "provider_unavailable"],
    [503, "provider_unavailable"],
    [429, "rate_limited"],
  ] as const)("an HTTP %i from the provider fails over as %s", async (status, code) => {
    openai.failNext = 1;
    openai.failStatus = status;
    expect(await failureOf(gpt)).toMatchObject({ code, failover: true });
    expect(await gpt()).toHaveLength(1);
  });

  it("a server error on Replicate, fal and Google fails over", async () => {
    replicate.failNext = 1;
    fal.failNext = 1;
    google.failNext = 2;
    expect(await failureOf(() => flux("replicate"))).toMatchObject({ code: "provider_unavailable", failover: true });
    expect(await failureOf(() => flux("fal"))).toMatchObject({ code: "provider_unavailable", failover: true });
    expect(await failureOf(nanoBanana)).toMatchObject({ code: "provider_unavailable", failover: true });
    expect(await failureOf(() => veo())).toMatchObject({ code: "provider_unavailable", failover: true });
  });

  it("Google's quota answer (429 RESOURCE_EXHAUSTED) is quota_exceeded, and fails over", async () => {
    google.failNext = 1;
    google.failStatus = 429;
    expect(await failureOf(nanoBanana)).toMatchObject({ code: "quota_exceeded", failover: true });
  });

  it("an answer without the images is a parse error, and fails over", async () => {
    for (const fake of [openai, replicate, fal, google]) fake.malformed = true;
    for (const call of [
      gpt,
      () => flux("replicate"),
      () => flux("fal"),
      () => kling("fal"),
      () => kling("replicate"),
      nanoBanana,
      () => veo(),
    ])
      expect(await failureOf(call)).toMatchObject({ code: "parse_error", failover: true });
  });

  it("an output URL that has expired is output_unavailable, and fails over", async () => {
    for (const fake of [openai, replicate, fal, google]) fake.expireOutputs = true;
    const compatible = async () =>
      runImageModel(await externalImageModel("openai-compatible", "sdxl-turbo", env), "openai-compatible", image());
    for (const call of [
      () => flux("replicate"),
      () => flux("fal"),
      compatible,
      () => kling("fal"),
      () => kling("replicate"),
      () => veo(),
    ])
      expect(await failureOf(call)).toMatchObject({ code: "output_unavailable", failover: true });
  });

  it("a content-policy rejection is content_rejected and does not fail over", async () => {
    for (const fake of [openai, replicate, fal, google]) fake.reject = true;
    const dalle = async () => runImageModel(await externalImageModel("openai", "dall-e-3", env), "openai", image());
    const calls = [
      gpt,
      dalle,
      () => flux("replicate"),
      () => flux("fal"),
      () => kling("fal"),
      () => kling("replicate"),
      nanoBanana,
      () => veo(),
    ];
    for (const call of calls)
      expect(await failureOf(call)).toMatchObject({ code: "content_rejected", failover: false });
    // Gemini may also refuse the prompt itself, before drawing anything.
    google.reject = "prompt";
    expect(await failureOf(nanoBanana)).toMatchObject({
      code: "content_rejected",
      failover: false,
      detail: "no image: prompt blocked (PROHIBITED_CONTENT)",
    });
  });

  it("a request the provider finds invalid does not fail over", async () => {
    const failure = await failureOf(async () =>
      runImageModel(
        await externalImageModel("replicate", "black-forest-labs/flux-dev", env),
        "replicate",
        image({ prompt: "" }),
      ),
    );
    expect(failure).toMatchObject({ code: "invalid_request", failover: false });
    // Google's 400 with its error body: a square Veo video.
    expect(await failureOf(() => veo({ aspectRatio: "1:1" }))).toMatchObject({
      code: "invalid_request",
      failover: false,
      detail: "HTTP 400 from 127.0.0.1:" + new URL(google.url).port + ": Aspect ratio 1:1 is not supported.",
    });
  });

  it("an abort through the signal is canceled, or timeout when the engine's deadline fired", async () => {
    openai.delayMs = 10_000;
    const controller = new AbortController();
    const call = runImageModel(
      await externalImageModel("openai", "gpt-image-1", env),
      "openai",
      image({ abortSignal: controller.signal }),
    );
    await vi.waitFor(() => expect(openai.requests).toHaveLength(1));
    controller.abort();
    expect(await failureOf(() => call)).toMatchObject({ code: "canceled", failover: false });

    const deadline = new AbortController();
    const late = runImageModel(await externalImageModel("openai", "gpt-image-1", env), "openai", {
      ...image(),
      abortSignal: deadline.signal,
    });
    await vi.waitFor(() => expect(openai.requests).toHaveLength(2));
    deadline.abort(new Error("deadline"));
    expect(await failureOf(() => late, { timedOut: true })).toMatchObject({ code: "timeout", failover: false });
  });

  it("a rejected credential is provider_auth, fails over, and the key stays out of the detail", async () => {
    const wrong = parseEnv({
      OPENAI_API_KEY: "sk-wrong-key-123456",
      OPENAI_BASE_URL: openai.apiUrl,
      REPLICATE_API_TOKEN: "r8_wrongtoken",
      REPLICATE_BASE_URL: replicate.apiUrl,
      FAL_KEY: "wrong:key",
      FAL_BASE_URL: fal.url,
      GOOGLE_GENERATIVE_AI_API_KEY: "AIzaWrongGoogleKey0123456789abcdefghij",
      GOOGLE_BASE_URL: google.apiUrl,
    });
    const calls = [
      async () => runImageModel(await externalImageModel("openai", "gpt-image-1", wrong), "openai", image()),
      async () =>
        runImageModel(await externalImageModel("replicate", "black-forest-labs/flux-dev", wrong), "replicate", image()),
      async () => runImageModel(await externalImageModel("fal", "fal-ai/flux/dev", wrong), "fal", image()),
      async () =>
        runVideoModel(
          await externalVideoModel("fal", "fal-ai/kling-video/v2.5-turbo/pro/text-to-video", wrong),
          "fal",
          video(),
        ),
      // Google answers a key it does not know with a 400 (API_KEY_INVALID), not a 401.
      async () => runImageModel(await externalImageModel("google", "gemini-nano-banana-2.1", wrong), "google", image()),
      async () => runVideoModel(await externalVideoModel("google", "veo-3.1-generate", wrong), "google", video()),
    ];
    for (const call of calls) {
      const failure = await failureOf(call);
      expect(failure).toMatchObject({ code: "provider_auth", failover: true });
      expect(failure.detail).not.toMatch(/wrong/);
    }
  });

  it("an unreachable provider fails over", async () => {
    const gone = await startFakeOpenAI();
    await gone.close();
    const unreachable = parseEnv({ OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: gone.apiUrl });
    const failure = await failureOf(async () =>
      runImageModel(await externalImageModel("openai", "gpt-image-1", unreachable), "openai", image()),
    );
    expect(failure).toMatchObject({ code: "provider_unavailable", failover: true });
  });
});
