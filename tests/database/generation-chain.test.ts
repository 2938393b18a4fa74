import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { getOwnImage } from "#server/modules/generation/get-own-image.ts";
import { user } from "#server/db/schema/index.ts";
import { eq } from "drizzle-orm";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

interface View {
  id: string;
  outputs: { id: string }[];
}

describe(`a result's chain on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let owner: string;
  let ownerId: string;
  let otherId: string;
  beforeAll(async () => {
    app = await openApp();
    // The stranger signs up too: a second account with images of its own to be kept from.
    [owner] = await Promise.all([app.signedIn("chain@example.com"), app.signedIn("stranger@example.com")]);
    const db = app.runtime.database.db;
    const idOf = async (email: string) =>
      (await db.select({ id: user.id }).from(user).where(eq(user.email, email)))[0]!.id;
    [ownerId, otherId] = await Promise.all([idOf("chain@example.com"), idOf("stranger@example.com")]);
  });
  afterAll(async () => {
    await app?.close();
  });

  async function generate(cookie: string, body: object): Promise<View> {
    const res = await app.call("POST", "/api/generations", { cookie, body });
    expect(res.status).toBe(201);
    const { generation } = (await res.json()) as { generation: View };
    expect(await app.ended(generation.id, cookie)).toBe("succeeded");
    const read = await app.call("GET", `/api/generations/${generation.id}`, { cookie });
    return ((await read.json()) as { generation: View }).generation;
  }
  const share = (cookie: string, id: string, visibility: "public" | "private") =>
    app.call("PATCH", `/api/generations/${id}`, { cookie, body: { visibility } });
  const read = (id: string, viewerId: string | null) =>
    getGeneration({ db: app.runtime.database.db, env: app.runtime.env, id, viewerId, allowPublic: true, chain: true });

  it("links a result to the one its input image came from and to the one it varies, for its owner", async () => {
    const source = await generate(owner, { tool: "text-to-image", model: "demo-image", prompt: "a heron at dawn" });
    const image = source.outputs[0]!.id;
    const edited = await generate(owner, {
      tool: "image-to-image",
      model: "demo-image",
      prompt: "as a woodcut",
      inputAssetId: image,
    });
    const variation = await generate(owner, {
      tool: "text-to-image",
      model: "demo-image",
      prompt: "a heron at dawn",
      seed: 7,
      variationOf: source.id,
    });

    const child = await read(edited.id, ownerId);
    expect(child.parent).toEqual({
      id: source.id,
      tool: "text-to-image",
      prompt: "a heron at dawn",
      thumbUrl: `/media/${image}/thumb.webp`,
    });
    expect(child.input?.id).toBe(image);
    expect((await read(variation.id, ownerId)).parent?.id).toBe(source.id);

    const parent = await read(source.id, ownerId);
    expect(parent.parent).toBeNull();
    expect(parent.children?.count).toBe(2);
    expect(parent.children?.items.map((c) => c.id).sort()).toEqual([edited.id, variation.id].sort());

    // A poll does not read the chain.
    const polled = await getGeneration({
      db: app.runtime.database.db,
      env: app.runtime.env,
      id: edited.id,
      viewerId: ownerId,
    });
    expect(polled.parent).toBeUndefined();
  });

  it("shows a public result's parent to others only when the parent is public too", async () => {
    const source = await generate(owner, { tool: "text-to-image", model: "demo-image", prompt: "a private sketch" });
    const made = await generate(owner, {
      tool: "image-to-image",
      model: "demo-image",
      prompt: "finished",
      inputAssetId: source.outputs[0]!.id,
    });
    expect((await share(owner, made.id, "public")).status).toBe(200);

    const seen = await read(made.id, otherId);
    expect(seen.mine).toBe(false);
    expect(seen.parent).toBeNull();
    // Nor the images it was given.
    expect(seen.input).toBeNull();
    expect((await read(made.id, null)).parent).toBeNull();
    // The private parent's page shows others nothing of what was made from it either.
    await expect(read(source.id, otherId)).rejects.toMatchObject({ code: "not_found" });

    expect((await share(owner, source.id, "public")).status).toBe(200);
    expect((await read(made.id, otherId)).parent?.id).toBe(source.id);
    expect((await read(source.id, null)).children?.items.map((c) => c.id)).toEqual([made.id]);

    // Made private again, the link goes.
    expect((await share(owner, source.id, "private")).status).toBe(200);
    expect((await read(made.id, null)).parent).toBeNull();
  });

  it("starts a tool only with the viewer's own image", async () => {
    const mine = await generate(owner, { tool: "text-to-image", model: "demo-image", prompt: "a lantern" });
    const db = app.runtime.database.db;
    const own = await getOwnImage({ db, userId: ownerId, assetId: mine.outputs[0]!.id });
    expect(own).toMatchObject({ id: mine.outputs[0]!.id, prompt: "a lantern" });
    expect(own?.width).toBeGreaterThan(0);
    expect(await getOwnImage({ db, userId: otherId, assetId: mine.outputs[0]!.id })).toBeNull();
    expect(await getOwnImage({ db, userId: ownerId, assetId: "not-an-id" })).toBeNull();
  });
});
