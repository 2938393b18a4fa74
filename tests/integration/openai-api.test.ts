import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { promptHelperAnswer } from "#server/providers/demo/chat-model.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

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
    // The sign-up bonus is spent an answer at a time until the next one is refused.
    let refused: unknown;
    for (let i = 0; i < 60 && !refused; i++) {
      requests = 0;
      refused = await retrying.chat.completions
        .create({ model: "prompt-helper", messages: [{ role: "user", content: `a small boat, take ${i}` }] })
        .then(
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
  });
});
