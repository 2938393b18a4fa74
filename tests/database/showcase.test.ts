import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { listShowcase } from "#server/modules/generation/list-showcase.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

describe(`the home page's showcase on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;
  beforeAll(async () => {
    app = await openApp();
    cookie = await app.signedIn("showcase@example.com");
  });
  afterAll(async () => {
    await app?.close();
  });

  async function generate(prompt: string): Promise<string> {
    const res = await app.call("POST", "/api/generations", {
      cookie,
      body: { tool: "text-to-image", model: "demo-image", prompt, count: 2 },
    });
    const { generation } = (await res.json()) as { generation: { id: string } };
    expect(await app.ended(generation.id, cookie)).toBe("succeeded");
    return generation.id;
  }
  const share = (id: string, visibility: "public" | "private") =>
    app.call("PATCH", `/api/generations/${id}`, { cookie, body: { visibility } });

  it("shows only what owners made public, newest first, with its first picture and nothing about its owner", async () => {
    const older = await generate("an older public heron");
    const hidden = await generate("a private heron");
    const newer = await generate("a newer public heron");
    expect((await share(older, "public")).status).toBe(200);
    expect((await share(newer, "public")).status).toBe(200);
    const db = app.runtime.database.db;
    let items = await listShowcase({ db, limit: 8 });
    expect(items.map((i) => i.id)).toEqual([newer, older]);
    expect(items.map((i) => i.id)).not.toContain(hidden);
    expect(items[0]).toMatchObject({ kind: "image", prompt: "a newer public heron", model: "Atelier Demo Image" });
    expect(Object.keys(items[0]!).sort()).toEqual(["height", "id", "imageUrl", "kind", "model", "prompt", "width"]);
    // Its picture is readable by anyone
    const picture = await app.call("GET", items[0]!.imageUrl);
    expect(picture.status).toBe(200);
    expect(picture.headers.get("content-type")).toMatch(/^image\//);

    expect((await share(newer, "private")).status).toBe(200);
    items = await listShowcase({ db, limit: 8 });
    expect(items.map((i) => i.id)).toEqual([older]);
    expect(await listShowcase({ db, limit: 0 })).toEqual([]);
  });
});
