import OpenAI from "openai";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn, uploadImage } from "#tests/support/session.ts";
import { outcomeOf, readStream, textOf } from "#tests/support/chat-stream.ts";
import {
  fakeReply,
  fakeTokens,
  fakeToolReply,
  startFakeOpenAIChat,
  type FakeOpenAIChat,
} from "#tests/fakes/openai-chat.ts";
import { chatCost } from "#config/chat-models.ts";
import { text } from "#tests/support/locales.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
/** The price of a model of an OpenAI-compatible server (see config/chat-models.ts). */
const PRICE = { inputPerMillion: 100, outputPerMillion: 400 };

describe(`the chat with an OpenAI-compatible server, over HTTP on ${backend}`, () => {
  let server: TestServer;
  let fake: FakeOpenAIChat;
  let origin: string;
  let cookie: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAIChat();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer({
      PORT: String(port),
      SITE_URL: origin,
      OPENAI_COMPATIBLE_BASE_URL: fake.apiUrl,
      OPENAI_COMPATIBLE_API_KEY: "local-key",
      OPENAI_COMPATIBLE_CHAT_MODELS: "Fake-Chat",
      // OpenAI's own models through the same fake: they read images and call tools.
      OPENAI_API_KEY: "sk-local",
      OPENAI_BASE_URL: fake.apiUrl,
      ...(db ? { DATABASE_URL: db.url } : {}),
    });
    cookie = await signedIn(server, origin, "asker@example.com");
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await db?.drop();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.chunkDelayMs = 5;
  });

  const call = (method: string, path: string, body?: unknown) => pageApi(server, origin)(method, path, cookie, body);
  const balance = async () =>
    ((await (await call("GET", "/api/me")).json()) as { credits: { balance: number; held: number } }).credits;
  const conversation = async (systemPrompt?: string) => {
    const res = await call("POST", "/api/chat/conversations", { model: "compat-fake-chat", systemPrompt });
    expect(res.status).toBe(201);
    return ((await res.json()) as { conversation: { id: string } }).conversation.id;
  };
  const ask = (id: string, text: string) => call("POST", `/api/chat/conversations/${id}/messages`, { text });
  type Saved = {
    messages: { id: string; role: string; status: string; parts: { text?: string }[]; errorCode: string | null }[];
  };
  const saved = async (id: string) => (await (await call("GET", `/api/chat/conversations/${id}`)).json()) as Saved;

  it("offers the server's model and streams its answer, charging the tokens the server counted", async () => {
    const models = (await (await call("GET", "/api/chat/models")).json()) as { models: { id: string; name: string }[] };
    expect(models.models).toContainEqual(expect.objectContaining({ id: "compat-fake-chat", name: "Fake-Chat" }));
    const before = await balance();
    const id = await conversation("Answer in one paragraph.");
    const chunks = await readStream(await ask(id, "tidal pools"));
    expect(chunks.filter((c) => c.type === "text-delta").length).toBeGreaterThan(5);
    expect(textOf(chunks)).toBe(fakeReply("tidal pools"));

    // What the server was sent: the model's own name, the key, the instructions, the question, the hold's limit.
    const [request] = fake.requests;
    expect(request!.authorization).toBe("Bearer local-key");
    expect(request!.body).toMatchObject({
      model: "Fake-Chat",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Answer in one paragraph." },
        { role: "user", content: "tidal pools" },
      ],
    });
    expect(request!.body.max_tokens).toBeGreaterThan(0);

    // Charged what the server counted, at the model's price, once.
    const outcome = outcomeOf(chunks)!;
    const prompt = 4 + fakeTokens("Answer in one paragraph.") + 4 + fakeTokens("tidal pools");
    expect(outcome).toMatchObject({
      status: "done",
      inputTokens: prompt,
      outputTokens: fakeTokens(fakeReply("tidal pools")),
      creditsCharged: chatCost(PRICE, prompt, fakeTokens(fakeReply("tidal pools"))),
    });
    expect(await balance()).toMatchObject({ balance: before.balance - (outcome.creditsCharged as number), held: 0 });
  });

  it("sends the images a question shows to a model that reads them, with the studio's tools; refuses them for one that does not", async () => {
    const image = await uploadImage(server, origin, cookie);

    const created = await call("POST", "/api/chat/conversations", { model: "gpt-4o-mini" });
    const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
    const chunks = await readStream(
      await call("POST", `/api/chat/conversations/${id}/messages`, { text: "what is in it?", attachments: [image] }),
    );
    expect(outcomeOf(chunks)!.status).toBe("done");
    const [request] = fake.requests;
    expect(request!.body.model).toBe("gpt-4o-mini");
    expect(request!.body.tools?.map((tool) => tool.function.name).sort()).toEqual([
      "animate_image",
      "extend_image",
      "generate_image",
      "generate_video",
      "make_variations",
      "remove_background",
      "upscale_image",
    ]);
    const content = request!.body.messages.at(-1)!.content as {
      type: string;
      text?: string;
      image_url?: { url: string };
    }[];
    expect(content[0]).toMatchObject({ type: "text", text: `what is in it?\n\n[Attached image: ${image}]` });
    expect(content[1]!.type).toBe("image_url");
    expect(content[1]!.image_url!.url).toMatch(/^data:image\/webp;base64,UklGR/);

    // A model of the compatible server neither reads images nor calls tools: the question is refused, saved nowhere.
    const plain = await conversation();
    const refused = await call("POST", `/api/chat/conversations/${plain}/messages`, {
      text: "look",
      attachments: [image],
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "chat_attachments_invalid",
      message: text("en", "messages", "chat.errors.imagesUnsupported").replace("{{model}}", "Fake-Chat"),
    });
    expect((await saved(plain)).messages).toEqual([]);
  });

  it("reads an image sent to /v1/chat/completions by a model that reads images, offering it no studio tools", async () => {
    const created = await call("POST", "/api/keys", { name: "SDK" });
    const { secret } = (await created.json()) as { secret: string };
    const client = new OpenAI({ apiKey: secret, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const png = await sharp({ create: { width: 48, height: 32, channels: 3, background: "#cc3366" } })
      .png()
      .toBuffer();
    const answer = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what colour is it?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } },
          ],
        },
      ],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }],
    });
    expect(answer.choices[0]!.message.content).toMatch(/^You asked about what colour is it\?/);
    const [request] = fake.requests;
    // The caller's own tool is offered, never the studio's.
    expect(request!.body.tools?.map((t) => t.function.name)).toEqual(["lookup"]);
    const content = request!.body.messages.at(-1)!.content as { type: string; image_url?: { url: string } }[];
    expect(content.find((p) => p.type === "image_url")!.image_url!.url).toMatch(/^data:image\/webp;base64,UklGR/);

    // A model that does not read images, a part no model here reads, and a forced tool are refused by field.
    const refusal = async (body: Parameters<typeof client.chat.completions.create>[0]) => {
      const error = await client.chat.completions.create({ ...body, stream: false }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      return (error as InstanceType<typeof OpenAI.BadRequestError>).param;
    };
    const image = { type: "image_url" as const, image_url: { url: `data:image/png;base64,${png.toString("base64")}` } };
    expect(
      await refusal({
        model: "compat-fake-chat",
        messages: [{ role: "user", content: [{ type: "text", text: "look" }, image] }],
      }),
    ).toBe("messages.0.content");
    expect(
      await refusal({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "", format: "wav" } }] }],
      }),
    ).toBe("messages.0.content");
    expect(
      await refusal({
        model: "compat-fake-chat",
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "lookup" } }],
        tool_choice: "required",
      }),
    ).toBe("tool_choice");
  });

  it("lets a model call the caller's tools through /v1/chat/completions, whole and streamed, and reads their results", async () => {
    const created = await call("POST", "/api/keys", { name: "Tools" });
    const { secret } = (await created.json()) as { secret: string };
    const client = new OpenAI({ apiKey: secret, baseURL: `${server.url}/v1`, maxRetries: 0 });
    fake.toolCall = (body) =>
      body.messages.at(-1)?.role === "tool" ? null : { name: "get_weather", arguments: '{"city":"Paris"}' };
    try {
      const tools: OpenAI.ChatCompletionTool[] = [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "The weather in a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        },
      ];
      const question = { role: "user" as const, content: "What is the weather in Paris?" };
      const first = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [question], tools });
      expect(first.choices[0]!.finish_reason).toBe("tool_calls");
      const toolCall = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect(toolCall).toMatchObject({ type: "function", function: { name: "get_weather" } });
      expect(JSON.parse(toolCall.function.arguments)).toEqual({ city: "Paris" });
      expect(fake.requests.at(-1)!.body.tools).toEqual([
        expect.objectContaining({ function: expect.objectContaining({ name: "get_weather" }) }),
      ]);

      const second = await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [
          question,
          first.choices[0]!.message,
          { role: "tool", tool_call_id: toolCall.id, content: "sunny, 21 °C" },
        ],
        tools,
      });
      expect(second.choices[0]!.finish_reason).toBe("stop");
      expect(second.choices[0]!.message.content).toBe(fakeToolReply("sunny, 21 °C"));
      // The model was sent its call and the tool's result.
      const sent = fake.requests.at(-1)!.body.messages as {
        role: string;
        content: unknown;
        tool_calls?: { id: string }[];
        tool_call_id?: string;
      }[];
      expect(sent.find((m) => m.role === "assistant")!.tool_calls![0]!.id).toBe(toolCall.id);
      expect(sent.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: toolCall.id, content: "sunny, 21 °C" });

      const stream = await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [question],
        tools,
        stream: true,
        stream_options: { include_usage: true },
      });
      const streamed: { name?: string; arguments: string } = { arguments: "" };
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
          streamed.name ??= delta.function?.name;
          streamed.arguments += delta.function?.arguments ?? "";
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(streamed).toEqual({ name: "get_weather", arguments: '{"city":"Paris"}' });
      expect(finish).toBe("tool_calls");
      expect(usage!.total_tokens).toBeGreaterThan(0);

      // A tool result that answers no call is refused by field.
      const stray = await client.chat.completions
        .create({
          model: "gpt-4o-mini",
          messages: [question, { role: "tool", tool_call_id: "call_nowhere", content: "?" }],
        })
        .catch((e: unknown) => e);
      expect(stray).toBeInstanceOf(OpenAI.BadRequestError);
      expect((stray as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages.1.tool_call_id");
    } finally {
      fake.toolCall = null;
    }
  });

  it("charges nothing when the server breaks off mid-answer, and keeps what it had written", async () => {
    const before = await balance();
    const id = await conversation();
    fake.breakNext = 1;
    fake.breakAfterChunks = 4;
    const chunks = await readStream(await ask(id, "a paper boat"));
    const written = textOf(chunks);
    expect(written).not.toBe("");
    expect(fakeReply("a paper boat").startsWith(written)).toBe(true);
    expect(written.length).toBeLessThan(fakeReply("a paper boat").length);
    expect(outcomeOf(chunks)).toMatchObject({ status: "failed", creditsCharged: 0 });
    expect(await balance()).toEqual(before);
    const answer = (await saved(id)).messages.find((m) => m.role === "assistant")!;
    expect(answer.status).toBe("failed");
    expect(answer.parts.map((p) => p.text).join("")).toBe(written);
    expect(answer.errorCode).toEqual(expect.any(String));

    // A failure before the first word: nothing written, nothing charged; the next question is answered again.
    fake.failNext = 1;
    const refused = await readStream(await ask(id, "a paper plane"));
    expect(textOf(refused)).toBe("");
    expect(outcomeOf(refused)).toMatchObject({
      status: "failed",
      errorCode: "provider_unavailable",
      creditsCharged: 0,
    });
    expect(await balance()).toEqual(before);
    const again = await readStream(await call("POST", `/api/chat/messages/${refused[0]!.messageId}/regenerate`));
    expect(textOf(again)).toBe(fakeReply("a paper plane"));
  });

  it("goes on reading the server when the page's connection drops, and the answer is resumed whole", async () => {
    fake.chunkDelayMs = 40;
    const before = await balance();
    const id = await conversation();
    const first = await readStream(await ask(id, "lanterns on a river"), (chunks) =>
      chunks.some((c) => c.type === "text-delta" && c.delta !== ""),
    );
    const resumed = await readStream(await call("GET", `/api/chat/messages/${first[0]!.messageId}/stream`));
    expect(textOf(resumed)).toBe(fakeReply("lanterns on a river"));
    const outcome = outcomeOf(resumed)!;
    expect(outcome.status).toBe("done");
    // The server was read to the end, once.
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.closedEarly).toBe(false);
    expect(await balance()).toMatchObject({ balance: before.balance - (outcome.creditsCharged as number), held: 0 });
  });

  it("hangs up on the server when its author stops the answer, and charges what was written", async () => {
    fake.chunkDelayMs = 40;
    const before = await balance();
    const id = await conversation();
    let stopped: Promise<Response> | undefined;
    const chunks = await readStream(await ask(id, "a clock tower"), (seen) => {
      if (!stopped && seen.some((c) => c.type === "text-delta" && c.delta !== ""))
        stopped = call("POST", `/api/chat/messages/${seen[0]!.messageId}/stop`);
      return false;
    });
    expect((await stopped!).status).toBe(202);
    const outcome = outcomeOf(chunks)!;
    expect(outcome.status).toBe("stopped");
    expect(textOf(chunks).length).toBeLessThan(fakeReply("a clock tower").length);
    await expect.poll(() => fake.requests[0]!.closedEarly).toBe(true);
    expect(await balance()).toMatchObject({ balance: before.balance - (outcome.creditsCharged as number), held: 0 });
  });
});
