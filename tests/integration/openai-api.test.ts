import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

/** The OpenAI-compatible API, driven by the official `openai` package with only a base URL and an Atelier key. */
describe(`the OpenAI-compatible API with the official SDK, on ${backend}`, () => {
  let server: TestServer;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let client: OpenAI;

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer({ PORT: String(port), SITE_URL: origin, ...(db ? { DATABASE_URL: db.url } : {}) });
    const cookie = await signedIn(server, origin, "sdk@example.com");
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
});
