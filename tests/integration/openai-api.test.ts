import { connect, createServer, type Server, type Socket } from "node:net";
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, waitFor, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { promptHelperAnswer } from "#server/providers/demo/chat-model.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

/**
 * A TCP proxy in front of the server that loses answers as a network does: while `drops` is above 0, a connection's
 * answer is swallowed as soon as it begins and the connection is cut, so the client never sees it (the request
 * itself reached the server). Counts the connections that carried a request.
 */
async function lossyProxy(
  target: URL,
): Promise<{ url: string; drops: number; requests: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = {
    url: "",
    drops: 0,
    requests: 0,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let lose = false;
    client.on("data", (chunk) => {
      // A new request on this connection: decided when it starts whether its answer is lost.
      if (/^(GET|POST|DELETE|PUT|PATCH) /.test(chunk.toString("latin1", 0, 8))) {
        proxy.requests++;
        lose = proxy.drops > 0;
        if (lose) proxy.drops--;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (!lose) return void client.write(chunk);
      client.destroy();
      upstream.destroy();
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return proxy;
}

/** A stream's text, and what its usage chunk says it cost. */
async function readChatStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = "";
  let charged: number | undefined;
  let finish: string | null = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
    const atelier = (chunk as unknown as { atelier?: { credits_charged: number } }).atelier;
    if (atelier) charged = atelier.credits_charged;
  }
  return { text, charged, finish };
}

/** The OpenAI-compatible API, driven by the official `openai` package with only a base URL and an Atelier key. */
describe(`the OpenAI-compatible API with the official SDK, on ${backend}`, () => {
  let server: TestServer;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let client: OpenAI;
  let cookie: string;
  let origin: string;
  const balance = async () =>
    (
      (await (await pageApi(server, origin)("GET", "/api/me", cookie)).json()) as {
        credits: { balance: number; held: number };
      }
    ).credits;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer({ PORT: String(port), SITE_URL: origin, ...(db ? { DATABASE_URL: db.url } : {}) });
    cookie = await signedIn(server, origin, "sdk@example.com");
    const created = await pageApi(server, origin)("POST", "/api/keys", cookie, { name: "SDK" });
    const { secret } = (await created.json()) as { secret: string };
    client = new OpenAI({ apiKey: secret, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  /** A new account with its own key (and the sign-up bonus), and an SDK client for it. */
  const account = async (email: string, options: ConstructorParameters<typeof OpenAI>[0] = {}) => {
    const session = await signedIn(server, origin, email);
    const created = await pageApi(server, origin)("POST", "/api/keys", session, { name: "SDK" });
    const { secret } = (await created.json()) as { secret: string };
    const credits = async () =>
      (
        (await (await pageApi(server, origin)("GET", "/api/me", session)).json()) as {
          credits: { balance: number; held: number };
        }
      ).credits;
    /** The account's generations of a kind, as `/api/v1` lists them. */
    const generations = async (kind: "image" | "video") =>
      (
        (await (
          await fetch(`${server.url}/api/v1/generations?kind=${kind}`, {
            headers: { Authorization: `Bearer ${secret}` },
          })
        ).json()) as { data: { id: string; status: string }[] }
      ).data;
    return {
      secret,
      credits,
      generations,
      client: new OpenAI({ apiKey: secret, baseURL: `${server.url}/v1`, maxRetries: 0, ...options }),
    };
  };

  it("lists and retrieves the models: the studio's and the chat's, with Atelier's details beside", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    const ids = models.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["demo-image", "demo-video", "prompt-helper"]));
    for (const model of models)
      expect(model).toMatchObject({ object: "model", created: expect.any(Number), owned_by: "atelier" });
    const image = await client.models.retrieve("demo-image");
    expect(image).toMatchObject({ id: "demo-image", object: "model", atelier: { kind: "image", offline: true } });
    const chat = await client.models.retrieve("prompt-helper");
    expect(chat).toMatchObject({ atelier: { kind: "chat" } });
  });

  it("raises the SDK's own errors: NotFound for an unknown model, Authentication for a wrong key", async () => {
    const unknown = await client.models.retrieve("no-such-model").catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    const notFound = unknown as InstanceType<typeof OpenAI.NotFoundError>;
    expect(notFound.status).toBe(404);
    expect(notFound.code).toBe("model_not_found");
    expect(notFound.param).toBe("model");
    expect(notFound.type).toBe("invalid_request_error");
    expect(notFound.requestID).toEqual(expect.any(String));

    const stranger = new OpenAI({ apiKey: `atl_${"x".repeat(43)}`, baseURL: client.baseURL, maxRetries: 0 });
    const refused = await stranger.models.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("invalid_api_key");
  });

  it("completes a chat whole and streamed, with its usage, charging the answer once", async () => {
    const before = await balance();
    const whole = await client.chat.completions.create({
      model: "prompt-helper",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "a lighthouse in a storm" },
      ],
    });
    expect(whole.object).toBe("chat.completion");
    expect(whole.choices[0]!.message).toMatchObject({
      role: "assistant",
      content: promptHelperAnswer("a lighthouse in a storm", "en"),
    });
    expect(whole.choices[0]!.finish_reason).toBe("stop");
    expect(whole.usage!.total_tokens).toBe(whole.usage!.prompt_tokens + whole.usage!.completion_tokens);
    const { data, response } = await client.chat.completions
      .create({ model: "prompt-helper", messages: [{ role: "user", content: "a fox in the snow" }] })
      .withResponse();
    const charged = Number(response.headers.get("x-atelier-credits-charged"));
    expect(charged).toBeGreaterThan(0);
    expect(data.choices[0]!.message.content).toBe(promptHelperAnswer("a fox in the snow", "en"));

    const stream = await client.chat.completions.create({
      model: "prompt-helper",
      messages: [{ role: "user", content: "a quiet harbour" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(5);
    expect(text).toBe(promptHelperAnswer("a quiet harbour", "en"));
    expect(finish).toBe("stop");
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    // Nothing stays held, and the API's conversations are not listed on the chat page.
    await expect.poll(async () => (await balance()).held).toBe(0);
    expect((await balance()).balance).toBeLessThan(before.balance);
    const listed = (await (await pageApi(server, origin)("GET", "/api/chat/conversations", cookie)).json()) as {
      conversations: unknown[];
    };
    expect(listed.conversations).toEqual([]);
  });

  it("says an unknown chat model and a bad request in the SDK's errors", async () => {
    const unknown = await client.chat.completions
      .create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    const bad = await client.chat.completions
      .create({ model: "prompt-helper", messages: [{ role: "assistant", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("says out of credits as the SDK's RateLimitError, which the SDK does not retry", async () => {
    const broke = await signedIn(server, origin, "broke@example.com");
    const created = await pageApi(server, origin)("POST", "/api/keys", broke, { name: "SDK" });
    const { secret } = (await created.json()) as { secret: string };
    let requests = 0;
    const retrying = new OpenAI({
      apiKey: secret,
      baseURL: client.baseURL,
      maxRetries: 3,
      fetch: (url, init) => {
        requests++;
        return fetch(url, init);
      },
    });
    // The sign-up bonus is spent four images at a time until the next request is refused.
    let refused: unknown;
    for (let i = 0; i < 10 && !refused; i++) {
      requests = 0;
      refused = await retrying.images.generate({ model: "demo-image", prompt: `a small boat, take ${i}`, n: 4 }).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.code).toBe("insufficient_quota");
    expect(error.type).toBe("insufficient_quota");
    expect(error.headers?.get("x-should-retry")).toBe("false");
    // Asked once: not retried.
    expect(requests).toBe(1);
    // A chat with nothing left is refused the same way.
    requests = 0;
    const chat = await retrying.chat.completions
      .create({ model: "prompt-helper", messages: [{ role: "user", content: "a small boat" }] })
      .catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.RateLimitError);
    expect(requests).toBe(1);
  });

  it("generates images as signed links and as bytes, in the size and format asked, charging each image", async () => {
    const { client, credits } = await account("images@example.com");
    const { data: made, response } = await client.images
      .generate({ model: "demo-image", prompt: "a red fox in the snow", n: 2, size: "1536x1024" })
      .withResponse();
    expect(response.headers.get("x-atelier-credits-charged")).toBe("2");
    expect(made.data).toHaveLength(2);
    // The offline demo's images say what they are, and where to read about connecting a provider.
    expect((made as unknown as { atelier: object }).atelier).toMatchObject({
      demo: true,
      notice: expect.stringContaining(`${origin}/docs/configuration`),
    });
    const [width, height] = made.size!.split("x").map(Number);
    // 1536x1024 is nearest to the model's 4:3.
    expect(width! / height!).toBeCloseTo(4 / 3, 1);
    for (const image of made.data!) {
      expect(image.url!.startsWith(`${origin}/media/`)).toBe(true);
      // The link opens without a key or a session, as OpenAI's do.
      const file = await fetch(image.url!);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/png");
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe("PNG");
      // A link is for its own file and time only.
      // One character of the signature changed (to a different one whatever it was).
      const tampered = image.url!.replace(/sig=(.)/, (_, c: string) => `sig=${c === "A" ? "B" : "A"}`);
      expect(tampered).not.toBe(image.url);
      expect((await fetch(tampered)).status).toBe(404);
      expect(
        (await fetch(image.url!.replace(/expires=(\d+)/, (_, e: string) => `expires=${Number(e) + 60}`))).status,
      ).toBe(404);
    }
    expect((await fetch(made.data![0]!.url!.split("?")[0]!)).status).toBe(404);

    const jpeg = await client.images.generate({ model: "demo-image", prompt: "a red fox", output_format: "jpeg" });
    const jpegFile = await fetch(jpeg.data![0]!.url!);
    expect(jpegFile.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(Buffer.from(await jpegFile.arrayBuffer())).metadata()).format).toBe("jpeg");

    const bytes = await client.images.generate({
      model: "demo-image",
      prompt: "a red fox",
      size: "1024x1024",
      response_format: "b64_json",
      output_format: "webp",
    });
    expect(bytes.output_format).toBe("webp");
    const webp = await sharp(Buffer.from(bytes.data![0]!.b64_json!, "base64")).metadata();
    expect(webp.format).toBe("webp");
    expect(webp.width).toBe(webp.height);
    expect(await credits()).toMatchObject({ balance: 16, held: 0 });
  });

  it("edits an image sent as a file, and refuses what the models here cannot do by its field", async () => {
    const { secret, client, credits } = await account("edits@example.com");
    const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    const file = () => toFile(png, "input.png", { type: "image/png" });
    const edited = await client.images.edit({
      model: "demo-image",
      image: await file(),
      prompt: "make it a watercolour",
      response_format: "b64_json",
    });
    expect((await sharp(Buffer.from(edited.data![0]!.b64_json!, "base64")).metadata()).format).toBe("png");
    // A list of one image is sent as `image[]`.
    const linked = await client.images.edit({
      model: "demo-image",
      image: [await file()],
      prompt: "at night",
      size: "1024x1536",
    });
    const linkedFile = await fetch(linked.data![0]!.url!);
    expect(linkedFile.status).toBe(200);
    const meta = await sharp(Buffer.from(await linkedFile.arrayBuffer())).metadata();
    expect(meta.format).toBe("png");
    expect(linked.size).toBe(`${meta.width}x${meta.height}`);
    expect(await credits()).toMatchObject({ balance: 18, held: 0 });

    const refusal = async (request: Promise<unknown>) => {
      const error = await request.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      return (error as InstanceType<typeof OpenAI.BadRequestError>).param;
    };
    expect(
      await refusal(client.images.edit({ model: "demo-image", image: [await file(), await file()], prompt: "x" })),
    ).toBe("image");
    expect(
      await refusal(client.images.edit({ model: "demo-image", image: await file(), mask: await file(), prompt: "x" })),
    ).toBe("mask");
    expect(await refusal(client.images.generate({ model: "demo-image", prompt: "x", n: 5 }))).toBe("n");
    expect(await refusal(client.images.generate({ model: "demo-image", prompt: "x", background: "transparent" }))).toBe(
      "background",
    );
    expect(await refusal(client.images.generate({ model: "demo-image", prompt: "x", size: "huge" }))).toBe("size");
    const unknown = await client.images.generate({ model: "dall-e-2", prompt: "x" }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    // A form that cannot be read is the request's fault, with or without an idempotency key.
    const variants: Record<string, string>[] = [{}, { "Idempotency-Key": "broken-form" }];
    for (const headers of variants) {
      const broken = await fetch(`${server.url}/v1/images/edits`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "multipart/form-data; boundary=x", ...headers },
        body: "not a form",
      });
      expect(broken.status).toBe(400);
      expect(((await broken.json()) as { error: { param: string } }).error.param).toBe("body");
    }
    expect(await credits()).toMatchObject({ balance: 18, held: 0 });
  });

  it("edits within OpenAI's mask and makes a video from an input_reference, each charged once; refusals cost nothing", async () => {
    const { secret, client, credits, generations } = await account("tools@example.com");
    const photo = await sharp({ create: { width: 96, height: 64, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    /** OpenAI's mask: opaque where the image stays, fully transparent where it is edited (here, the right half). */
    const maskOf = (width: number, height: number) => {
      const rgba = Buffer.alloc(width * height * 4);
      for (let i = 0; i < width * height; i++) rgba[i * 4 + 3] = i % width < width / 2 ? 255 : 0;
      return sharp(rgba, { raw: { width, height, channels: 4 } })
        .png()
        .toBuffer();
    };
    const file = (bytes: Buffer, name = "image.png") => toFile(bytes, name, { type: "image/png" });
    const read = async (id: string) =>
      (await (
        await fetch(`${server.url}/api/v1/generations/${id}`, { headers: { Authorization: `Bearer ${secret}` } })
      ).json()) as {
        tool: string;
        credits_charged: number;
        input_image: { width: number } | null;
        mask_image: { url: string } | null;
      };

    const { data: edited, response } = await client.images
      .edit({
        model: "demo-image",
        image: await file(photo),
        mask: await file(await maskOf(96, 64), "mask.png"),
        prompt: "a red sailing boat",
        response_format: "b64_json",
      })
      .withResponse();
    expect(response.headers.get("x-atelier-credits-charged")).toBe("1");
    expect((await sharp(Buffer.from(edited.data![0]!.b64_json!, "base64")).metadata()).format).toBe("png");
    const inpainted = await read(response.headers.get("x-atelier-generation-id")!);
    expect(inpainted).toMatchObject({ tool: "inpaint", credits_charged: 1, input_image: { width: 96 } });
    // Atelier's mask: white where OpenAI's was transparent, black where it was opaque.
    const mask = await sharp(Buffer.from(await (await fetch(inpainted.mask_image!.url)).arrayBuffer()))
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(mask.info).toMatchObject({ width: 96, height: 64 });
    expect(mask.data[10 * 96 + 10]).toBe(0);
    expect(mask.data[10 * 96 + 80]).toBe(255);
    expect(await credits()).toMatchObject({ balance: 19, held: 0 });

    const { data: video, response: created } = await client.videos
      .create({ model: "demo-video", prompt: "the sea comes alive", input_reference: await file(photo, "start.png") })
      .withResponse();
    expect(created.headers.get("x-atelier-credits-held")).toBe("5");
    let polled = video;
    await waitFor("the video", async () => {
      polled = await client.videos.retrieve(video.id);
      return polled.status === "completed" || polled.status === "failed";
    });
    expect(polled.status).toBe("completed");
    expect(await read(video.id)).toMatchObject({
      tool: "image-to-video",
      credits_charged: 5,
      input_image: { width: 96 },
    });
    expect(await credits()).toMatchObject({ balance: 14, held: 0 });
    const made = [...(await generations("image")), ...(await generations("video"))].length;

    const refusal = async (request: Promise<unknown>) =>
      request.then(
        () => null,
        (e: unknown) => e,
      );
    const param = async (request: Promise<unknown>) => {
      const error = await refusal(request);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      return (error as InstanceType<typeof OpenAI.BadRequestError>).param;
    };
    const edit = async (model: string, maskBytes: Buffer) =>
      client.images.edit({ model, image: await file(photo), mask: await file(maskBytes, "mask.png"), prompt: "x" });
    // A mask of another size, a mask with nothing transparent, a model that does not edit with a mask, none at all.
    expect(await param(edit("demo-image", await maskOf(48, 32)))).toBe("mask");
    expect(await param(edit("demo-image", photo))).toBe("mask");
    expect(await param(edit("demo-video", await maskOf(96, 64)))).toBe("model");
    expect(await refusal(edit("no-such-model", await maskOf(96, 64)))).toBeInstanceOf(OpenAI.NotFoundError);
    const animate = async (model: string) =>
      client.videos.create({ model, prompt: "x", input_reference: await file(photo, "start.png") });
    expect(await param(animate("demo-image"))).toBe("model");
    expect(await refusal(animate("no-such-model"))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await credits()).toMatchObject({ balance: 14, held: 0 });
    expect([...(await generations("image")), ...(await generations("video"))]).toHaveLength(made);
  });

  it("creates a video, polls it, downloads it and its thumbnail, lists, and deletes it", async () => {
    const { client, credits } = await account("videos@example.com");
    const { data: video, response } = await client.videos
      .create({ model: "demo-video", prompt: "waves on a beach at dawn", seconds: "5" as never, size: "1280x720" })
      .withResponse();
    expect(video).toMatchObject({
      object: "video",
      model: "demo-video",
      seconds: "5",
      prompt: "waves on a beach at dawn",
    });
    expect(["queued", "in_progress"]).toContain(video.status);
    expect(response.headers.get("x-atelier-credits-held")).toBe("5");
    let polled = video;
    const deadline = Date.now() + 90_000;
    while (polled.status !== "completed" && polled.status !== "failed" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      polled = await client.videos.retrieve(video.id);
    }
    expect(polled).toMatchObject({ status: "completed", progress: 100, error: null });
    expect((polled as unknown as { atelier: object }).atelier).toMatchObject({
      demo: true,
      notice: expect.stringContaining(`${origin}/docs/configuration`),
    });
    const [w, h] = polled.size.split("x").map(Number);
    expect(w!).toBeGreaterThan(h!);
    expect(polled.completed_at).toBeGreaterThanOrEqual(polled.created_at);

    const content = Buffer.from(await (await client.videos.downloadContent(video.id)).arrayBuffer());
    expect(content.subarray(4, 8).toString()).toBe("ftyp");
    const thumbnail = await client.videos.downloadContent(video.id, { variant: "thumbnail" });
    expect((await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()).format).toBe("webp");
    expect(await credits()).toMatchObject({ balance: 15, held: 0 });

    const second = await client.videos.create({ model: "demo-video", prompt: "rain on a window" });
    const listed = [];
    for await (const item of client.videos.list({ limit: 1 })) listed.push(item.id);
    expect(listed).toEqual([second.id, video.id]);
    const oldest = await client.videos.list({ order: "asc", limit: 1 });
    expect(oldest.data.map((v) => v.id)).toEqual([video.id]);
    expect(oldest.has_more).toBe(true);

    const badLength = await client.videos
      .create({ model: "demo-video", prompt: "x", seconds: "4" })
      .catch((e: unknown) => e);
    expect(badLength).toBeInstanceOf(OpenAI.BadRequestError);
    expect((badLength as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("seconds");

    expect(await client.videos.delete(video.id)).toEqual({ id: video.id, object: "video.deleted", deleted: true });
    expect(await client.videos.retrieve(video.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("charges once when the SDK retries after a lost answer or a dropped connection, and twice when asked twice", async () => {
    const { secret, client, credits, generations } = await account("retries@example.com");
    let calls = 0;
    let dropped: "after" | "during" = "after";
    const flaky = new OpenAI({
      apiKey: secret,
      baseURL: `${server.url}/v1`,
      maxRetries: 2,
      fetch: async (url, init) => {
        calls++;
        if (calls > 1) return fetch(url, init);
        if (dropped === "after") {
          // The answer is made and lost on its way back.
          await (await fetch(url, init)).arrayBuffer();
        } else {
          // The connection drops while the server is still working on the request.
          const abort = new AbortController();
          const sent = fetch(url, { ...init, signal: abort.signal });
          setTimeout(() => abort.abort(), 150);
          await sent.catch(() => undefined);
        }
        throw new TypeError("fetch failed: connection reset");
      },
    });

    const { data: image, response } = await flaky.images
      .generate({ model: "demo-image", prompt: "a lighthouse in fog" })
      .withResponse();
    expect(calls).toBe(2);
    expect((await fetch(image.data![0]!.url!)).status).toBe(200);
    // The retry was answered from the first attempt's job: there is one.
    const made = await generations("image");
    expect(made.map((g) => g.id)).toEqual([response.headers.get("x-atelier-generation-id")]);
    expect(await credits()).toMatchObject({ balance: 19, held: 0 });

    calls = 0;
    dropped = "during";
    await flaky.images.generate({ model: "demo-image", prompt: "a lighthouse at noon" });
    expect(calls).toBe(2);
    expect(await generations("image")).toHaveLength(2);
    expect(await credits()).toMatchObject({ balance: 18, held: 0 });

    calls = 0;
    dropped = "during";
    const before = await credits();
    const { data: answer, response: answered } = await flaky.chat.completions
      .create({ model: "prompt-helper", messages: [{ role: "user", content: "a kite" }] })
      .withResponse();
    expect(calls).toBe(2);
    expect(answer.choices[0]!.message.content).toBe(promptHelperAnswer("a kite", "en"));
    // The retry waited for the first attempt and got its answer: one answer, charged once.
    expect(answered.headers.get("idempotent-replayed")).toBe("true");
    const afterChat = await credits();
    // The replay itself costs nothing more; the answer says what the first attempt was charged.
    expect(answered.headers.get("x-atelier-credits-charged")).toBe("0");
    const charged = (answer as unknown as { atelier: { credits_charged: number } }).atelier.credits_charged;
    expect(charged).toBeGreaterThan(0);
    expect(afterChat.balance).toBe(before.balance - charged);

    // The same request sent twice on purpose (not a retry) is two requests.
    await client.images.generate({ model: "demo-image", prompt: "a lighthouse in fog" });
    expect(await generations("image")).toHaveLength(3);
    expect((await credits()).balance).toBe(afterChat.balance - 1);

    // With an Idempotency-Key, the same key is the same job and a different request under it is refused.
    const first = await client.images.generate(
      { model: "demo-image", prompt: "a red kite" },
      { headers: { "Idempotency-Key": "kite-1" } },
    );
    const again = await client.images.generate(
      { model: "demo-image", prompt: "a red kite" },
      { headers: { "Idempotency-Key": "kite-1" } },
    );
    expect((again as unknown as { atelier: { generation_id: string } }).atelier.generation_id).toBe(
      (first as unknown as { atelier: { generation_id: string } }).atelier.generation_id,
    );
    expect(await generations("image")).toHaveLength(4);
    const mismatch = await client.images
      .generate({ model: "demo-image", prompt: "a blue kite" }, { headers: { "Idempotency-Key": "kite-1" } })
      .catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((await credits()).balance).toBe(afterChat.balance - 2);
  });
  it("answers a streamed chat again, charged once, when its answer is lost or it is sent again with its key", async () => {
    const { secret, credits } = await account("streams@example.com");
    const proxy = await lossyProxy(new URL(server.url));
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${proxy.url}/v1`, maxRetries: 2 });
    try {
      // The SDK's own retry after the first answer was lost before its stream began: the same answer, once.
      const before = await credits();
      proxy.drops = 1;
      const { data: stream, response } = await sdk.chat.completions
        .create({
          model: "prompt-helper",
          messages: [{ role: "user", content: "a lantern festival" }],
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      const first = await readChatStream(stream);
      expect(proxy.requests).toBe(2);
      expect(response.headers.get("idempotent-replayed")).toBe("true");
      expect(response.headers.get("x-atelier-credits-charged")).toBe("0");
      expect(first.text).toBe(promptHelperAnswer("a lantern festival", "en"));
      expect(first.finish).toBe("stop");
      expect(first.charged).toBeGreaterThan(0);
      await expect.poll(credits).toMatchObject({ balance: before.balance - first.charged!, held: 0 });

      // Sent five times with one Idempotency-Key, while the first is still being written and after: one answer.
      const keyed = (n: number) =>
        sdk.chat.completions
          .create(
            { model: "prompt-helper", messages: [{ role: "user", content: `a paper boat ${n}` }], stream: true },
            { headers: { "Idempotency-Key": "stream-boat" } },
          )
          .withResponse();
      const opened = await keyed(0);
      const meanwhile = await keyed(0);
      expect(meanwhile.response.headers.get("idempotent-replayed")).toBe("true");
      const [whole, replayed] = await Promise.all([readChatStream(opened.data), readChatStream(meanwhile.data)]);
      expect(whole.text).toBe(promptHelperAnswer("a paper boat 0", "en"));
      expect(replayed.text).toBe(whole.text);
      for (let i = 0; i < 3; i++) {
        const again = await keyed(0);
        expect(again.response.headers.get("x-atelier-credits-charged")).toBe("0");
        expect((await readChatStream(again.data)).text).toBe(whole.text);
      }
      const afterKeyed = await credits();
      const ledger = async () =>
        (
          (await (
            await fetch(`${server.url}/api/v1/credits/ledger?page_size=100`, {
              headers: { Authorization: `Bearer ${secret}` },
            })
          ).json()) as { data: { kind: string; reference: string | null }[] }
        ).data;
      // Two answers charged in all (the lost one and the keyed one), each named by its chat answer.
      const captures = (await ledger()).filter((e) => e.kind === "capture");
      expect(captures).toHaveLength(2);
      for (const capture of captures) expect(capture.reference).toMatch(/^chat:[0-9a-f-]{36}$/);
      expect(afterKeyed.held).toBe(0);

      // The same with the answer whole, its first answer lost: answered again, charged once.
      proxy.drops = 1;
      proxy.requests = 0;
      const { data: answer, response: answered } = await sdk.chat.completions
        .create({ model: "prompt-helper", messages: [{ role: "user", content: "a quiet pond" }] })
        .withResponse();
      expect(proxy.requests).toBe(2);
      expect(answered.headers.get("idempotent-replayed")).toBe("true");
      expect(answer.choices[0]!.message.content).toBe(promptHelperAnswer("a quiet pond", "en"));
      expect((await ledger()).filter((e) => e.kind === "capture")).toHaveLength(3);

      // An image request sent again with its key is made again from its job: it says it cost nothing more.
      const image = () =>
        sdk.images
          .generate({ model: "demo-image", prompt: "a kite at dusk" }, { headers: { "Idempotency-Key": "kite-dusk" } })
          .withResponse();
      const made = await image();
      expect(made.response.headers.get("x-atelier-credits-charged")).toBe("1");
      const remade = await image();
      expect(remade.response.headers.get("x-atelier-credits-charged")).toBe("0");
      expect(remade.response.headers.get("idempotent-replayed")).toBe("true");
      expect(remade.response.headers.get("x-atelier-generation-id")).toBe(
        made.response.headers.get("x-atelier-generation-id"),
      );
    } finally {
      await proxy.close();
    }
  });
});

describe(`the OpenAI-compatible API when a job outlasts the wait or fails, on ${backend}`, () => {
  let server: TestServer;
  let fake: FakeOpenAI;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // After the fake listens: its own port could otherwise be the one handed out here.
    const port = await freePort();
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    // gpt-image-1 through a local OpenAI that takes its time, and a request that waits one second for it.
    server = await startServer({
      PORT: String(port),
      SITE_URL: `http://127.0.0.1:${port}`,
      OPENAI_API_KEY: "sk-local",
      OPENAI_BASE_URL: fake.apiUrl,
      API_WAIT_SECONDS: "1",
      ...(db ? { DATABASE_URL: db.url } : {}),
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await db?.drop();
  });

  it("answers 504 generation_pending with where to follow the job; the same request again waits on the same job", async () => {
    const origin = server.url;
    const cookie = await signedIn(server, origin, "waiting@example.com");
    const created = await pageApi(server, origin)("POST", "/api/keys", cookie, { name: "SDK" });
    const { secret } = (await created.json()) as { secret: string };
    const client = new OpenAI({ apiKey: secret, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const request = () =>
      client.images.generate(
        { model: "gpt-image-1", prompt: "a slow sunrise" },
        { headers: { "Idempotency-Key": "sunrise" } },
      );
    fake.delayMs = 4000;
    const error = await request().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    const failure = error as InstanceType<typeof OpenAI.InternalServerError>;
    expect(failure.status).toBe(504);
    expect(failure.code).toBe("generation_pending");
    expect(failure.headers?.get("x-should-retry")).toBe("true");
    const poll = failure.headers!.get("location")!;
    expect(poll).toMatch(/^\/api\/v1\/generations\/[0-9a-f-]{36}$/);
    const job = await fetch(`${server.url}${poll}`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(["queued", "processing"]).toContain(((await job.json()) as { status: string }).status);

    // Asked again (as the SDK does on its own after a 504) until the image is there: one job, charged once.
    let result: OpenAI.ImagesResponse | undefined;
    for (let i = 0; i < 30 && !result; i++) result = await request().catch(() => undefined);
    expect((result as unknown as { atelier: { generation_id: string } }).atelier.generation_id).toBe(
      poll.split("/").pop(),
    );
    expect(fake.requests.filter((r) => r.path.endsWith("/images/generations"))).toHaveLength(1);
    const me = (await (await pageApi(server, origin)("GET", "/api/me", cookie)).json()) as {
      credits: { balance: number; held: number };
    };
    expect(me.credits).toMatchObject({ balance: 20 - 8, held: 0 });

    // The provider's safety system refusing the prompt is the SDK's BadRequestError, and costs nothing.
    fake.delayMs = 0;
    fake.reject = true;
    const refused = await client.images.generate({ model: "gpt-image-1", prompt: "refused" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("content_policy_violation");
    const after = (await (await pageApi(server, origin)("GET", "/api/me", cookie)).json()) as {
      credits: { balance: number; held: number };
    };
    expect(after.credits).toMatchObject({ balance: 20 - 8, held: 0 });
  });
});
