import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, runRole, startServer, TEST_DATABASE_URL, tempDir, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { readStream } from "#tests/support/chat-stream.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

/*
 * A model an operator reserves to a plan (`plans add … --models`) is refused to an account on the free plan wherever a
 * generation can start: the studio's own API, the public API, the OpenAI-compatible API and the chat's tools, with a
 * translated message naming the plan (`403 plan_required` on the APIs). Nothing is held for a refused request.
 */
describe(`models reserved to a plan on ${backend}`, () => {
  let server: TestServer;
  let origin: string;
  let cookie: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    const where = db ? { DATABASE_URL: db.url } : { DATA_DIR: tempDir() };
    const admin = async (...args: string[]) => {
      const run = runRole("admin", where, args);
      expect(await run.exited, run.output()).toBe(0);
    };
    await admin(
      ...["plans", "add", "--id", "studio", "--name", "Studio", "--monthly", "1200:usd", "--credits", "500"],
      ...["--models", "demo-image"],
    );
    await admin("plans", "set", "studio", "names.fr=Atelier Pro");
    server = await startServer({ PORT: String(port), SITE_URL: origin, ...where });
    cookie = await signedIn(server, origin, "free@example.com");
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  const page = (method: string, path: string, body?: unknown) => pageApi(server, origin)(method, path, cookie, body);
  const credits = async () =>
    ((await (await page("GET", "/api/me")).json()) as { credits: { balance: number; held: number } }).credits;

  it("refuses the reserved model in the studio, both APIs and the chat, and lets the others through", async () => {
    const studio = await fetch(`${server.url}/api/generations`, {
      method: "POST",
      headers: {
        Cookie: cookie,
        Origin: origin,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/json",
        "X-Locale": "fr",
      },
      body: JSON.stringify({ model: "demo-image", prompt: "Un phare au crépuscule", tool: "text-to-image" }),
    });
    expect(studio.status).toBe(403);
    const refusal = (await studio.json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe("plan_required");
    expect(refusal.error.message).toContain("Atelier Pro");

    const created = await page("POST", "/api/keys", { name: "Plans" });
    const { secret } = (await created.json()) as { secret: string };
    const bearer = { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" };
    const v1 = await fetch(`${server.url}/api/v1/images`, {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({ model: "demo-image", prompt: "A lighthouse at dusk" }),
    });
    expect(v1.status).toBe(403);
    const v1Body = (await v1.json()) as { error: { code: string; message: string; detail?: string } };
    expect(v1Body.error.code).toBe("plan_required");
    expect(v1Body.error.message).toContain("Studio");

    const openai = await fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({ model: "demo-image", prompt: "A lighthouse at dusk" }),
    });
    expect(openai.status).toBe(403);
    expect(JSON.stringify(await openai.json())).toContain("Studio");

    // The chat's tool is refused with the same words, and the answer goes on.
    const conversation = await page("POST", "/api/chat/conversations", { model: "prompt-helper" });
    const { id } = ((await conversation.json()) as { conversation: { id: string } }).conversation;
    const answer = await readStream(
      await page("POST", `/api/chat/conversations/${id}/messages`, { text: "draw a red apple" }),
    );
    expect(JSON.stringify(answer)).toContain("Studio");

    // Nothing was held, and no generation made, for what was refused.
    expect((await credits()).held).toBe(0);
    const list = await fetch(`${server.url}/api/v1/generations`, { headers: bearer });
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);

    // A model no plan reserves is still everyone's.
    const video = await fetch(`${server.url}/api/v1/videos`, {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({ model: "demo-video", prompt: "Waves on the shore" }),
    });
    expect(video.status).toBe(201);
  });
});
