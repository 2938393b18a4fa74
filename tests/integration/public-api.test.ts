import sharp from "sharp";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
const LIMIT = 60;

interface Generation {
  id: string;
  status: string;
  tool: string;
  credits_held: number;
  credits_charged: number | null;
  outputs: Array<{ url: string; mime_type: string }>;
  input_image: { url: string } | null;
}
type OpenApi = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
};

describe(`the public API on ${backend}`, () => {
  let server: TestServer;
  let origin: string;
  let alice: string;
  let bob: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let doc: OpenApi;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validators = new Map<string, ValidateFunction>();
  let checked = 0;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer({
      PORT: String(port),
      SITE_URL: origin,
      API_RATE_LIMIT_PER_MINUTE: String(LIMIT),
      // Each key's own limit is under test here; the account's over all its keys is in tests/database/api-keys.
      API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "100000",
      // Fifty requests at once are all worked: what they test is the answers (one job, the key's limit), not how a
      // busy process sheds them (tests/integration/overload.test.ts).
      MAX_CONCURRENT_REQUESTS: "0",
      ...(db ? { DATABASE_URL: db.url } : {}),
    });
    [alice, bob] = await Promise.all([
      signedIn(server, origin, "alice@example.com"),
      signedIn(server, origin, "bob@example.com"),
    ]);
    const res = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApi;
    ajv.addSchema(doc, "openapi");
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  /** The page's own calls (session cookie), for managing keys as the dashboard does. */
  const page = (method: string, path: string, cookie: string, body?: unknown) =>
    pageApi(server, origin)(method, path, cookie, body);
  async function newKey(cookie: string, name?: string) {
    const res = await page("POST", "/api/keys", cookie, name ? { name } : {});
    expect(res.status).toBe(201);
    return (await res.json()) as { key: { id: string; prefix: string; status: string }; secret: string };
  }

  /** Validates an answer against the operation's response schema in the served OpenAPI document. */
  function conforms(template: string, method: string, status: number, body: unknown) {
    const operation = doc.paths[template]?.[method.toLowerCase()];
    expect(operation, `${method} ${template} is documented`).toBeDefined();
    const response = operation!.responses[String(status)];
    expect(response, `${method} ${template} documents ${status}`).toBeDefined();
    const schema = response!.content?.["application/json"]?.schema;
    if (!schema) {
      expect(body).toBe("");
      return;
    }
    const id = `${method} ${template} ${status}`;
    let validate = validators.get(id);
    if (!validate) {
      const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
      validate = ajv.compile(resolved);
      validators.set(id, validate);
    }
    expect(validate(body), `${id}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    checked++;
  }

  async function api(
    key: string | null,
    method: string,
    template: string,
    o: { params?: Record<string, string>; query?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    let path = template;
    for (const [name, value] of Object.entries(o.params ?? {})) path = path.replace(`{${name}}`, value);
    const res = await fetch(`${server.url}/api/v1${path}${o.query ? `?${o.query}` : ""}`, {
      method,
      headers: {
        ...(key ? { Authorization: `Bearer ${key}` } : {}),
        ...(o.body !== undefined && !(o.body instanceof FormData) ? { "Content-Type": "application/json" } : {}),
        ...o.headers,
      },
      body:
        o.body instanceof FormData || typeof o.body === "string"
          ? o.body
          : o.body !== undefined
            ? JSON.stringify(o.body)
            : undefined,
    });
    const raw = await res.text();
    const body = raw && res.headers.get("content-type")?.includes("json") ? (JSON.parse(raw) as unknown) : raw;
    conforms(template, method, res.status, body);
    return { status: res.status, headers: res.headers, body: body as never };
  }

  async function settled(key: string, id: string): Promise<Generation> {
    for (let i = 0; i < 600; i++) {
      const res = await api(key, "GET", "/generations/{id}", { params: { id } });
      expect(res.status).toBe(200);
      const g = res.body as Generation;
      if (!["queued", "processing"].includes(g.status)) return g;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`generation ${id} did not finish`);
  }

  it("serves a valid OpenAPI 3.1 document with every operation and its examples", async () => {
    const full = doc as OpenApi & { openapi: string; components: { securitySchemes: object } };
    expect(full.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/credits",
      "/credits/ledger",
      "/generations",
      "/generations/{id}",
      "/generations/{id}/cancel",
      "/images",
      "/images/quote",
      "/models",
      "/v1/chat/completions",
      "/v1/images/edits",
      "/v1/images/generations",
      "/v1/models",
      "/v1/models/{id}",
      "/v1/videos",
      "/v1/videos/{id}",
      "/v1/videos/{id}/content",
      "/videos",
      "/videos/quote",
    ]);
    // The OpenAI-compatible API's paths are on the site's origin, not under /api/v1.
    for (const [path, item] of Object.entries(doc.paths))
      if (path.startsWith("/v1/")) expect((item as { servers?: unknown }).servers).toEqual([{ url: origin }]);
    expect(full.components.securitySchemes).toHaveProperty("bearer");
    expect(JSON.stringify(doc)).toContain('"example"');
  });

  it("serves the document in a reader's language on request, English otherwise", async () => {
    type Summaries = { paths: Record<string, Record<string, { summary?: string }>> };
    const summaryOf = (d: Summaries) => d.paths["/images"]!.post!.summary;
    const get = async (query: string) =>
      (await (await fetch(`${server.url}/api/v1/openapi.json${query}`)).json()) as Summaries & {
        tags: { name: string; "x-displayName"?: string }[];
      };
    const german = await get("?lang=de");
    expect(summaryOf(german)).toBe("Bildgenerierung erstellen");
    expect(german.tags.find((t) => t.name === "Generations")!["x-displayName"]).toBe("Generierungen");
    expect(Object.keys(german.paths)).toEqual(Object.keys(doc.paths));
    expect(summaryOf(await get("?lang=ja"))).toBe("画像生成を作成");
    for (const query of ["", "?lang=en", "?lang=xx", "?lang="]) {
      expect(summaryOf(await get(query)), query).toBe("Create an image generation");
    }
  });

  it("runs a whole session: models, an image from text and from a file, a video, lists, cancel, delete, credits", async () => {
    const { secret } = await newKey(alice, "Session");
    const models = await api(secret, "GET", "/models");
    expect(models.status).toBe(200);
    const ids = (models.body as { data: Array<{ id: string; kind: string }> }).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["demo-image", "demo-video"]));

    const start = (await api(secret, "GET", "/credits")).body as { available: number };
    const image = await api(secret, "POST", "/images", {
      body: { model: "demo-image", prompt: "A lighthouse at dusk", count: 2, aspect_ratio: "16:9" },
    });
    expect(image.status).toBe(201);
    expect(image.headers.get("location")).toBe(`/api/v1/generations/${(image.body as Generation).id}`);
    expect(image.headers.get("ratelimit-policy")).toBe(`${LIMIT};w=60`);
    const done = await settled(secret, (image.body as Generation).id);
    expect(done).toMatchObject({ status: "succeeded", tool: "text-to-image", credits_charged: 2 });
    // The offline demo's result says so, machine-readably and in a sentence with the page on connecting a provider.
    expect(done).toMatchObject({ demo: true, notice: expect.stringContaining(`${origin}/docs/configuration`) });
    expect(done.outputs).toHaveLength(2);
    expect(done.outputs[0]!.url.startsWith(`${origin}/media/`)).toBe(true);
    // The key's holder downloads its private files with no session: the addresses are signed for a day.
    const file = await fetch(done.outputs[0]!.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    const expires = Number(new URL(done.outputs[0]!.url).searchParams.get("expires"));
    expect(expires * 1000 - Date.now()).toBeGreaterThan(23 * 60 * 60 * 1000);
    expect((await fetch(done.outputs[0]!.url.split("?")[0]!)).status).toBe(404);

    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.set("model", "demo-image");
    form.set("prompt", "The same in watercolour");
    form.set("strength", "0.4");
    form.set("image", new Blob([new Uint8Array(png)], { type: "image/png" }), "input.png");
    const fromFile = await api(secret, "POST", "/images", { body: form });
    expect(fromFile.status).toBe(201);
    const edited = await settled(secret, (fromFile.body as Generation).id);
    expect(edited).toMatchObject({ status: "succeeded", tool: "image-to-image" });
    expect(edited.input_image).not.toBeNull();

    const video = await api(secret, "POST", "/videos", {
      body: { model: "demo-video", prompt: "Waves on a shore", style: "documentary" },
    });
    expect(video.status).toBe(201);
    const canceled = await api(secret, "POST", "/generations/{id}/cancel", {
      params: { id: (video.body as Generation).id },
    });
    expect(canceled.status).toBe(200);
    expect((canceled.body as Generation).status).toBe("canceled");
    const again = await api(secret, "POST", "/generations/{id}/cancel", { params: { id: done.id } });
    expect(again.status).toBe(409);
    expect((again.body as { error: { code: string } }).error.code).toBe("not_cancelable");

    const list = await api(secret, "GET", "/generations", { query: "kind=image&limit=1" });
    expect(list.status).toBe(200);
    const first = list.body as { data: Generation[]; next_cursor: string };
    expect(first.data).toHaveLength(1);
    const next = await api(secret, "GET", "/generations", {
      query: `kind=image&limit=1&cursor=${encodeURIComponent(first.next_cursor)}`,
    });
    expect((next.body as { data: Generation[] }).data[0]!.id).not.toBe(first.data[0]!.id);
    const bad = await api(secret, "GET", "/generations", { query: "status=sleeping" });
    expect(bad.status).toBe(422);

    const removed = await api(secret, "DELETE", "/generations/{id}", { params: { id: done.id } });
    expect(removed.status).toBe(204);
    expect((await api(secret, "GET", "/generations/{id}", { params: { id: done.id } })).status).toBe(404);

    const end = (await api(secret, "GET", "/credits")).body as { available: number };
    expect(end.available).toBe(start.available - 2 - 1);
    const ledger = await api(secret, "GET", "/credits/ledger", { query: "page_size=50" });
    const kinds = (ledger.body as { data: Array<{ kind: string }> }).data.map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(["signup_bonus", "hold", "capture", "release"]));

    // Mistakes get a precise code.
    const wrong = await api(secret, "POST", "/images", { body: { model: "no-such-model", prompt: "x" } });
    expect(wrong.status).toBe(400);
    expect((wrong.body as { error: { code: string } }).error.code).toBe("unknown_model");
    const tooMany = await api(secret, "POST", "/images", { body: { model: "demo-image", prompt: "x", count: 9 } });
    expect(tooMany.status).toBe(422);
    expect((tooMany.body as { error: { code: string; detail: string } }).error).toMatchObject({
      code: "invalid_options",
      detail: expect.stringContaining("count"),
    });
    const empty = await api(secret, "POST", "/images", { body: { model: "demo-image", prompt: "" } });
    expect((empty.body as { error: { code: string } }).error.code).toBe("prompt_invalid");
    const xml = await api(secret, "POST", "/images", {
      body: "<image/>",
      headers: { "Content-Type": "application/xml" },
    });
    expect(xml.status).toBe(415);
    const broke = await api(secret, "POST", "/videos", { body: "{", headers: { "Content-Type": "application/json" } });
    expect(broke.status).toBe(400);
    const german = await api(secret, "POST", "/images", {
      body: { model: "no-such-model", prompt: "x" },
      headers: { "Accept-Language": "de-DE,de;q=0.9" },
    });
    expect((german.body as { error: { message: string } }).error.message).toBe(
      text("de", "messages", "msg.generation.unknownModel"),
    );
    const nowhere = await fetch(`${server.url}/api/v1/nothing`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(nowhere.status).toBe(404);
    expect(((await nowhere.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect(checked).toBeGreaterThan(20);
  });

  it("quotes a request as creating it would hold it, as documented, holding nothing", async () => {
    const { secret } = await newKey(bob, "Quotes");
    const start = (await api(secret, "GET", "/credits")).body as { available: number };
    const image = await api(secret, "POST", "/images/quote", {
      body: { model: "demo-image", prompt: "A lighthouse at dusk", count: 3, image_url: "https://example.com/a.png" },
    });
    expect(image).toMatchObject({
      status: 200,
      body: { object: "quote", model: "demo-image", tool: "image-to-image", credits: 3 },
    });
    const video = await api(secret, "POST", "/videos/quote", { body: { model: "demo-video", prompt: "Waves" } });
    expect(video).toMatchObject({ status: 200, body: { tool: "text-to-video", credits: 5 } });
    const refused = await api(secret, "POST", "/images/quote", {
      body: { model: "demo-image", prompt: "x", options: { guidance_scale: 3 } },
    });
    expect(refused).toMatchObject({ status: 422, body: { error: { code: "invalid_options" } } });
    expect(((await api(secret, "GET", "/credits")).body as { available: number }).available).toBe(start.available);
  });

  it("refuses missing, unknown, deactivated and deleted keys, and keeps users apart", async () => {
    expect((await api(null, "GET", "/credits")).status).toBe(401);
    const unknown = await api("atl_" + "A".repeat(43), "GET", "/credits");
    expect(unknown.status).toBe(401);
    expect((unknown.body as { error: { code: string } }).error.code).toBe("invalid_api_key");

    const { key, secret } = await newKey(alice);
    const created = await api(secret, "POST", "/images", { body: { model: "demo-image", prompt: "Mine" } });
    const id = (created.body as Generation).id;
    expect((await page("PATCH", `/api/keys/${key.id}`, alice, { status: "inactive" })).status).toBe(200);
    const inactive = await api(secret, "GET", "/credits");
    expect(inactive.status).toBe(401);
    expect((inactive.body as { error: { code: string } }).error.code).toBe("api_key_inactive");
    expect((await page("PATCH", `/api/keys/${key.id}`, alice, { status: "active" })).status).toBe(200);
    expect((await api(secret, "GET", "/credits")).status).toBe(200);

    // Bob's key does not reach Alice's generation, nor can Bob change Alice's key.
    const other = await newKey(bob);
    expect((await api(other.secret, "GET", "/generations/{id}", { params: { id } })).status).toBe(404);
    expect((await api(other.secret, "POST", "/generations/{id}/cancel", { params: { id } })).status).toBe(404);
    expect((await api(other.secret, "DELETE", "/generations/{id}", { params: { id } })).status).toBe(404);
    const bobs = (await api(other.secret, "GET", "/generations")).body as { data: Generation[] };
    expect(bobs.data.map((g) => g.id)).not.toContain(id);
    expect((await page("PATCH", `/api/keys/${key.id}`, bob, { status: "inactive" })).status).toBe(404);
    expect((await page("DELETE", `/api/keys/${key.id}`, bob)).status).toBe(404);

    expect((await page("DELETE", `/api/keys/${key.id}`, alice)).status).toBe(204);
    const deleted = await api(secret, "GET", "/credits");
    expect(deleted.status).toBe(401);
    expect((deleted.body as { error: { code: string } }).error.code).toBe("invalid_api_key");
  });

  it("answers 50 concurrent requests with one idempotency key with one job and one hold", async () => {
    const { secret } = await newKey(alice);
    const before = (await api(secret, "GET", "/credits")).body as { held: number; available: number };
    const body = { model: "demo-video", prompt: "One video only", duration: 5 };
    const headers = { "Idempotency-Key": "video-once" };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => api(secret, "POST", "/videos", { body, headers })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(created.map((a) => (a.body as Generation).id));
    expect(ids.size).toBe(1);
    // Once it answered, the same request replays the stored answer.
    const replay = await api(secret, "POST", "/videos", { body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((replay.body as Generation).id).toBe([...ids][0]);
    const changed = await api(secret, "POST", "/videos", { body: { ...body, prompt: "Another" }, headers });
    expect(changed.status).toBe(422);
    expect((changed.body as { error: { code: string } }).error.code).toBe("idempotency_mismatch");
    // The same JSON written in another order is the same request.
    const reordered = await api(secret, "POST", "/videos", {
      body: { duration: 5, prompt: "One video only", model: "demo-video" },
      headers,
    });
    expect(reordered.headers.get("idempotent-replayed")).toBe("true");
    const ledger = (await api(secret, "GET", "/credits/ledger", { query: "page_size=100" })).body as {
      data: Array<{ kind: string; reference: string }>;
    };
    const holds = ledger.data.filter((e) => e.kind === "hold" && e.reference === `job:${[...ids][0]}`);
    expect(holds).toHaveLength(1);
    const after = (await api(secret, "GET", "/credits")).body as { available: number; held: number };
    expect(before.available - after.available).toBeLessThanOrEqual(5);
  });

  it("replays a multipart retry sent with a new boundary, and keeps no answer for a request refused by validation", async () => {
    const { secret } = await newKey(alice);
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#cc6633" } })
      .png()
      .toBuffer();
    const formOf = (prompt: string) => {
      const form = new FormData();
      form.set("model", "demo-image");
      form.set("prompt", prompt);
      form.set("image", new Blob([new Uint8Array(png)], { type: "image/png" }), "input.png");
      return form;
    };
    const headers = { "Idempotency-Key": "upload-once" };
    const first = await api(secret, "POST", "/images", { body: formOf("A retried upload"), headers });
    expect(first.status).toBe(201);
    const retry = await api(secret, "POST", "/images", { body: formOf("A retried upload"), headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((retry.body as Generation).id).toBe((first.body as Generation).id);

    const invalid = await api(secret, "POST", "/videos", {
      body: { model: "demo-video", prompt: "Fixed later", duration: 99 },
      headers: { "Idempotency-Key": "fixed-later" },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("idempotent-replayed")).toBeNull();
    const fixed = await api(secret, "POST", "/videos", {
      body: { model: "demo-video", prompt: "Fixed later", duration: 5 },
      headers: { "Idempotency-Key": "fixed-later" },
    });
    expect(fixed.status).toBe(201);
  });

  it("limits each key per minute with RateLimit headers and 429 with Retry-After", async () => {
    const { secret } = await newKey(bob);
    const answers = await Promise.all(Array.from({ length: LIMIT + 5 }, () => api(secret, "GET", "/credits")));
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(LIMIT);
    expect(limited).toHaveLength(5);
    const retryAfter = Number(limited[0]!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited[0]!.headers.get("ratelimit")).toMatch(/^limit=\d+, remaining=0, reset=\d+$/);
    expect((limited[0]!.body as { error: { code: string } }).error.code).toBe("rate_limited");
    // Another key of the same user has its own budget.
    const fresh = await newKey(bob);
    expect((await api(fresh.secret, "GET", "/credits")).status).toBe(200);
  });

  it("checks, counts and limits the key of a status poll in the statement that reads the generation", async () => {
    const { key, secret } = await newKey(alice, "Poller");
    const created = await api(secret, "POST", "/images", { body: { model: "demo-image", prompt: "Polled" } });
    const id = (created.body as Generation).id;
    const polled = await api(secret, "GET", "/generations/{id}", { params: { id } });
    expect(polled.status).toBe(200);
    expect((polled.body as Generation).id).toBe(id);
    expect(polled.headers.get("ratelimit")).toMatch(/^limit=60, remaining=58, reset=\d+$/);
    expect(polled.headers.get("cache-control")).toBe("no-store");
    // HEAD runs the same route: counted once.
    const head = await fetch(`${server.url}/api/v1/generations/${id}`, {
      method: "HEAD",
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("ratelimit")).toMatch(/remaining=57,/);
    // An id that cannot exist is not found, and still counted.
    const odd = await api(secret, "GET", "/generations/{id}", { params: { id: "not-an-id" } });
    expect(odd.status).toBe(404);
    expect(odd.headers.get("ratelimit")).toMatch(/remaining=56,/);

    expect((await page("PATCH", `/api/keys/${key.id}`, alice, { status: "inactive" })).status).toBe(200);
    const inactive = await api(secret, "GET", "/generations/{id}", { params: { id } });
    expect(inactive.status).toBe(401);
    expect(inactive.headers.get("www-authenticate")).toBe('Bearer realm="atelier"');
    expect((inactive.body as { error: { code: string } }).error.code).toBe("api_key_inactive");
    const unknown = await api("atl_" + "B".repeat(43), "GET", "/generations/{id}", { params: { id } });
    expect(unknown.status).toBe(401);
    expect((unknown.body as { error: { code: string } }).error.code).toBe("invalid_api_key");
    expect((await page("PATCH", `/api/keys/${key.id}`, alice, { status: "active" })).status).toBe(200);

    const answers = await Promise.all(
      Array.from({ length: LIMIT }, () => api(secret, "GET", "/generations/{id}", { params: { id } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(LIMIT - 4);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(4);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited[0]!.headers.get("ratelimit")).toMatch(/^limit=60, remaining=0, reset=\d+$/);
    expect((limited[0]!.body as { error: { code: string } }).error.code).toBe("rate_limited");
    const listed = (
      (await (await page("GET", "/api/keys", alice)).json()) as {
        keys: Array<{ id: string; requestCount: number }>;
      }
    ).keys;
    expect(listed.find((k) => k.id === key.id)?.requestCount).toBe(4 + LIMIT);
  });

  it("lists keys with their use, never their secrets, and stores only hashes", async () => {
    const { key, secret } = await newKey(alice, "Listed");
    await api(secret, "GET", "/credits");
    await api(secret, "GET", "/models");
    const res = await page("GET", "/api/keys", alice);
    const text = await res.text();
    expect(text).not.toContain(secret);
    const listed = (JSON.parse(text) as { keys: Array<{ id: string; requestCount: number; lastUsedAt: string }> }).keys;
    const mine = listed.find((k) => k.id === key.id)!;
    expect(mine).toMatchObject({ requestCount: 2, lastUsedAt: expect.any(String) });
    expect(key.prefix).toBe(secret.slice(0, 12));
    const long = await page("POST", "/api/keys", alice, { name: "x".repeat(65) });
    expect(long.status).toBe(422);
  });
});
