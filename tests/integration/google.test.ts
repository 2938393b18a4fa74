import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, waitFor, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn, uploadImage } from "#tests/support/session.ts";
import { FAKE_MP4 } from "#tests/fakes/replicate.ts";
import { startFakeGoogle, type FakeGoogle } from "#tests/fakes/google.ts";
import { FAILURES } from "#common/generation.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
const KEY = "AIzaIntegrationGoogleKey0123456789abcd";

interface Generation {
  id: string;
  status: string;
  creditsCharged: number | null;
  error: { code: string; message: string } | null;
  outputs: { url: string; mimeType: string; width: number | null; height: number | null }[];
}

describe(`Google's image and video models through the app, on ${backend}`, () => {
  let server: TestServer;
  let google: FakeGoogle;
  let origin: string;
  let cookie: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    google = await startFakeGoogle({ apiKey: KEY });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer({
      PORT: String(port),
      SITE_URL: origin,
      GOOGLE_GENERATIVE_AI_API_KEY: KEY,
      GOOGLE_BASE_URL: google.apiUrl,
      SIGNUP_BONUS_CREDITS: "1000",
      ...(db ? { DATABASE_URL: db.url } : {}),
    });
    cookie = await signedIn(server, origin, "gemini@example.com");
  });
  afterAll(async () => {
    await server?.close();
    await google?.close();
    await db?.drop();
  });
  beforeEach(() => {
    Object.assign(google, { requests: [], downloads: [], reject: false, failNext: 0, failStatus: 500 });
  });

  const call = (method: string, path: string, body?: unknown) => pageApi(server, origin)(method, path, cookie, body);

  /** Submits a generation and waits for it to end. */
  async function generate(input: Record<string, unknown>): Promise<Generation> {
    const submitted = await call("POST", "/api/generations", input);
    expect(submitted.status).toBe(201);
    const { generation } = (await submitted.json()) as { generation: { id: string } };
    let ended: Generation | undefined;
    await waitFor(
      "the generation to end",
      async () => {
        const read = (await (await call("GET", `/api/generations/${generation.id}`)).json()) as {
          generation: Generation;
        };
        if (["queued", "processing"].includes(read.generation.status)) return false;
        ended = read.generation;
        return true;
      },
      { output: server.output, timeoutMs: 90_000 },
    );
    return ended!;
  }

  const bytesOf = async (url: string) =>
    new Uint8Array(await (await fetch(`${server.url}${url}`, { headers: { Cookie: cookie } })).arrayBuffer());

  it("offers Google's models once its key is set", async () => {
    const res = await call("GET", "/api/models");
    const ids = ((await res.json()) as { models: { id: string }[] }).models.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["nano-banana-2-1", "nano-banana-pro", "veo-3-1"]));
  });

  it("makes images with Nano Banana: one generateContent call per image, with the key, the ratio and the seed", async () => {
    const done = await generate({
      tool: "text-to-image",
      model: "nano-banana-2-1",
      prompt: "a lighthouse in fog",
      aspectRatio: "16:9",
      count: 2,
      seed: 5,
    });
    expect(done).toMatchObject({ status: "succeeded", creditsCharged: 6, error: null });
    expect(done.outputs).toHaveLength(2);
    for (const output of done.outputs) {
      expect(output.mimeType).toBe("image/png");
      expect(output.width!).toBeGreaterThan(output.height!);
    }
    expect(google.requests).toHaveLength(2);
    for (const request of google.requests)
      expect(request).toMatchObject({
        method: "POST",
        path: "/v1beta/models/gemini-nano-banana-2.1:generateContent",
        headers: { "x-goog-api-key": KEY },
        body: {
          contents: [{ parts: [{ text: "a lighthouse in fog" }] }],
          generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "16:9" }, seed: 5 },
        },
      });
  });

  it("edits an uploaded picture with Nano Banana Pro: the picture goes inline beside the prompt", async () => {
    const upload = await uploadImage(server, origin, cookie);
    const done = await generate({
      tool: "image-to-image",
      model: "nano-banana-pro",
      prompt: "the same sketch in watercolour",
      inputAssetId: upload,
    });
    expect(done).toMatchObject({ status: "succeeded", creditsCharged: 8 });
    expect(google.requests).toHaveLength(1);
    expect(google.requests[0]).toMatchObject({
      path: "/v1beta/models/gemini-3-pro-image:generateContent",
      body: {
        contents: [
          {
            parts: [
              { text: "the same sketch in watercolour" },
              { inlineData: expect.stringMatching(/^data:image\/\w+;base64,<\d+ bytes>$/) },
            ],
          },
        ],
      },
    });
  });

  it("makes a Veo video: a long-running prediction, its operation polled, the file fetched with the key", async () => {
    const done = await generate({
      tool: "text-to-video",
      model: "veo-3-1",
      prompt: "waves on a breakwater",
      aspectRatio: "9:16",
      style: "documentary",
      duration: 5,
    });
    expect(done).toMatchObject({ status: "succeeded", creditsCharged: 120 });
    expect(done.outputs[0]!.mimeType).toBe("video/mp4");
    // The provider's video as it came, marked after its last box with where it was made (XMP).
    const stored = Buffer.from(await bytesOf(done.outputs[0]!.url));
    expect(stored.subarray(0, FAKE_MP4.length).equals(Buffer.from(FAKE_MP4))).toBe(true);
    expect(stored.subarray(FAKE_MP4.length).toString("latin1")).toContain("trainedAlgorithmicMedia");
    expect(google.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1beta/models/veo-3.1-generate:predictLongRunning",
      headers: { "x-goog-api-key": KEY },
      body: {
        instances: [{ prompt: "waves on a breakwater, documentary style" }],
        parameters: { sampleCount: 1, aspectRatio: "9:16", durationSeconds: 6 },
      },
    });
    expect(google.requests.slice(1)).toContainEqual(
      expect.objectContaining({
        method: "GET",
        path: expect.stringMatching(/^\/v1beta\/models\/veo-3\.1-generate\/operations\//),
      }),
    );
    expect(google.downloads).toEqual([expect.stringMatching(new RegExp(`:download\\?key=${KEY}$`))]);
  });

  it("fails like any provider when Google refuses: the user's usual message, and nothing charged", async () => {
    google.reject = "image";
    const refused = await generate({ tool: "text-to-image", model: "nano-banana-2-1", prompt: "a lighthouse" });
    expect(refused).toMatchObject({
      status: "failed",
      creditsCharged: 0,
      error: { code: "content_rejected", message: FAILURES.content_rejected.text },
    });

    google.reject = false;
    google.failNext = 1;
    google.failStatus = 400;
    const invalid = await generate({ tool: "text-to-image", model: "nano-banana-2-1", prompt: "a lighthouse" });
    expect(invalid).toMatchObject({
      status: "failed",
      creditsCharged: 0,
      error: { code: "invalid_request", message: FAILURES.invalid_request.text },
    });
  });
});
