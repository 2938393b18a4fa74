import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { text } from "#tests/support/locales.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

interface Media {
  id: string;
  url: string;
  thumbUrl: string | null;
  mimeType: string;
  width: number;
  height: number;
  durationMs: number | null;
  sizeBytes: number;
}
interface View {
  id: string;
  status: string;
  progress: number;
  etaSeconds: number | null;
  creditsHeld: number;
  creditsCharged: number | null;
  outputs: Media[];
  input: Media | null;
  visibility: string;
}

describe(`generations over HTTP with the offline models on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    app = await openApp();
    [alice, bob] = await Promise.all([app.signedIn("alice@example.com"), app.signedIn("bob@example.com")]);
  });
  afterAll(async () => {
    await app?.close();
  });

  const call: Awaited<ReturnType<typeof openApp>>["call"] = (...args) => app.call(...args);
  const balance = async (cookie: string) =>
    ((await (await call("GET", "/api/me", { cookie })).json()) as { credits: { available: number; held: number } })
      .credits;
  async function settled(id: string, cookie = alice): Promise<View> {
    for (let i = 0; i < 600; i++) {
      const res = await call("GET", `/api/generations/${id}`, { cookie });
      expect(res.status).toBe(200);
      const { generation } = (await res.json()) as { generation: View };
      if (!["queued", "processing"].includes(generation.status)) return generation;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`generation ${id} did not finish`);
  }

  it("creates images from a prompt, serves them to their owner only, and charges them", async () => {
    const before = await balance(alice);
    const res = await call("POST", "/api/generations", {
      cookie: alice,
      headers: { "Idempotency-Key": "first-images" },
      body: {
        tool: "text-to-image",
        model: "demo-image",
        prompt: "lanterns over a lake",
        count: 2,
        aspectRatio: "4:3",
      },
    });
    expect(res.status).toBe(201);
    const { generation } = (await res.json()) as { generation: View };
    expect(generation).toMatchObject({ creditsHeld: 2, visibility: "private" });
    expect(generation.etaSeconds).toBeGreaterThan(0);
    // The same key again is the same job.
    const again = await call("POST", "/api/generations", {
      cookie: alice,
      headers: { "Idempotency-Key": "first-images" },
      body: {
        tool: "text-to-image",
        model: "demo-image",
        prompt: "lanterns over a lake",
        count: 2,
        aspectRatio: "4:3",
      },
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { generation: View }).generation.id).toBe(generation.id);

    const done = await settled(generation.id);
    expect(done).toMatchObject({ status: "succeeded", progress: 100, creditsCharged: 2 });
    expect(await balance(alice)).toMatchObject({ available: before.available - 2, held: 0 });
    const [first] = done.outputs;
    expect(first).toMatchObject({ mimeType: "image/png", width: 1024, height: 768 });

    const file = await call("GET", first!.url, { cookie: alice });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("cache-control")).toContain("private");
    // The media route's own policy, not the pages': nothing in a stored file may run, even opened directly.
    expect(file.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(file.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.byteLength).toBe(first!.sizeBytes);
    expect(Number(file.headers.get("content-length"))).toBe(first!.sizeBytes);
    expect((await sharp(bytes).metadata()).width).toBe(1024);
    const etag = file.headers.get("etag")!;
    expect((await call("GET", first!.url, { cookie: alice, headers: { "If-None-Match": etag } })).status).toBe(304);
    const thumb = await call("GET", first!.thumbUrl!, { cookie: alice });
    expect(thumb.headers.get("content-type")).toBe("image/webp");
    expect((await call("GET", `${first!.url}?download`, { cookie: alice })).headers.get("content-disposition")).toMatch(
      /^attachment; filename="atelier-/,
    );

    // Nobody else sees it: not signed out, not another user, not by any operation.
    expect((await call("GET", first!.url)).status).toBe(404);
    expect((await call("GET", first!.url, { cookie: bob })).status).toBe(404);
    for (const [method, path, body] of [
      ["GET", `/api/generations/${generation.id}`, undefined],
      ["POST", `/api/generations/${generation.id}/cancel`, undefined],
      ["PATCH", `/api/generations/${generation.id}`, { visibility: "public" }],
      ["DELETE", `/api/generations/${generation.id}`, undefined],
    ] as const) {
      const r = await call(method, path, { cookie: bob, body });
      expect(r.status, `${method} ${path}`).toBe(404);
    }

    // Public: anyone may see the media; private again: gone again.
    expect(
      (await call("PATCH", `/api/generations/${generation.id}`, { cookie: alice, body: { visibility: "public" } }))
        .status,
    ).toBe(200);
    const open = await call("GET", first!.url);
    expect(open.status).toBe(200);
    expect(open.headers.get("cache-control")).toContain("public");
    // A shared picture may be embedded by another site, still sandboxed.
    expect(open.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(open.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    await call("PATCH", `/api/generations/${generation.id}`, { cookie: alice, body: { visibility: "private" } });
    expect((await call("GET", first!.url)).status).toBe(404);
  });

  it("renders a video and streams it in byte ranges, as players ask for it", async () => {
    const res = await call("POST", "/api/generations", {
      cookie: alice,
      body: { tool: "text-to-video", model: "demo-video", prompt: "paper boats on a river", style: "animation" },
    });
    expect(res.status).toBe(201);
    const { generation } = (await res.json()) as { generation: View };
    const done = await settled(generation.id);
    expect(done).toMatchObject({ status: "succeeded", creditsCharged: 5 });
    const video = done.outputs[0]!;
    expect(video).toMatchObject({ mimeType: "video/mp4", durationMs: 5000 });

    const head = await call("HEAD", video.url, { cookie: alice });
    expect(head.headers.get("accept-ranges")).toBe("bytes");
    expect(Number(head.headers.get("content-length"))).toBe(video.sizeBytes);
    const part = await call("GET", video.url, { cookie: alice, headers: { Range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${video.sizeBytes}`);
    const head100 = Buffer.from(await part.arrayBuffer());
    expect(head100.byteLength).toBe(100);
    expect(head100.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const tail = await call("GET", video.url, { cookie: alice, headers: { Range: "bytes=-10" } });
    expect(tail.headers.get("content-range")).toBe(
      `bytes ${video.sizeBytes - 10}-${video.sizeBytes - 1}/${video.sizeBytes}`,
    );
    const beyond = await call("GET", video.url, { cookie: alice, headers: { Range: `bytes=${video.sizeBytes}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${video.sizeBytes}`);
  });

  it("transforms an uploaded image, and refuses a file that is not one", async () => {
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.set("file", new Blob([png], { type: "image/png" }), "input.png");
    const up = await call("POST", "/api/uploads", { cookie: alice, body: form });
    expect(up.status).toBe(201);
    const { upload } = (await up.json()) as { upload: Media };
    expect(upload).toMatchObject({ width: 300, height: 200 });
    expect((await call("GET", upload.url, { cookie: alice })).status).toBe(200);
    expect((await call("GET", upload.url, { cookie: bob })).status).toBe(404);

    const res = await call("POST", "/api/generations", {
      cookie: alice,
      body: {
        tool: "image-to-image",
        model: "demo-image",
        prompt: "as a watercolour",
        inputAssetId: upload.id,
        strength: 0.4,
      },
    });
    expect(res.status).toBe(201);
    const done = await settled(((await res.json()) as { generation: View }).generation.id);
    expect(done.status).toBe("succeeded");
    expect(done.input?.id).toBe(upload.id);
    expect(done.outputs[0]!.width / done.outputs[0]!.height).toBeCloseTo(1.5, 1);

    // Bob cannot use Alice's upload.
    const stolen = await call("POST", "/api/generations", {
      cookie: bob,
      body: { tool: "image-to-image", model: "demo-image", prompt: "mine now", inputAssetId: upload.id },
    });
    expect(stolen.status).toBe(422);

    const fake = new FormData();
    fake.set("file", new Blob([Buffer.from("just some text, not a picture")], { type: "image/png" }), "photo.png");
    const refused = await call("POST", "/api/uploads", { cookie: alice, body: fake, headers: { "X-Locale": "fr" } });
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({
      error: { code: "input_image_invalid", message: text("fr", "messages", "generation.errors.inputInvalid") },
    });
  });

  it("keeps an uploaded mask as a lossless grey PNG, and edits with it", async () => {
    const mask = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#000000" } })
      .composite([
        { input: { create: { width: 150, height: 200, channels: 3, background: "#ffffff" } }, left: 0, top: 0 },
      ])
      .png()
      .toBuffer();
    const picture = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    const upload = async (bytes: Buffer, purpose?: string) => {
      const form = new FormData();
      form.set("file", new Blob([new Uint8Array(bytes)]), "x");
      if (purpose) form.set("purpose", purpose);
      const res = await call("POST", "/api/uploads", { cookie: alice, body: form });
      expect(res.status).toBe(201);
      return ((await res.json()) as { upload: Media }).upload;
    };
    const input = await upload(picture);
    const kept = await upload(mask, "mask");
    expect(kept.mimeType).toBe("image/png");
    const bytes = Buffer.from(await (await call("GET", kept.url, { cookie: alice })).arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: "png", channels: 1 });
    const data = await sharp(bytes).extractChannel(0).raw().toBuffer();
    expect(new Set(data)).toEqual(new Set([0, 255]));

    const res = await call("POST", "/api/generations", {
      cookie: alice,
      body: {
        tool: "inpaint",
        model: "demo-image",
        prompt: "a red boat",
        inputAssetId: input.id,
        maskAssetId: kept.id,
      },
    });
    expect(res.status).toBe(201);
    const done = await settled(((await res.json()) as { generation: View }).generation.id);
    expect(done).toMatchObject({ status: "succeeded", tool: "inpaint", creditsCharged: 1 });
  });

  it("answers every refusal as JSON with a stable code and a message in the caller's language", async () => {
    const noSession = await call("POST", "/api/generations", {
      body: { tool: "text-to-image", model: "demo-image", prompt: "x" },
    });
    expect(noSession.status).toBe(401);
    expect(await noSession.json()).toMatchObject({ error: { code: "unauthorized", message: "Please login first" } });

    const unknown = await call("POST", "/api/generations", {
      cookie: alice,
      headers: { "X-Locale": "de" },
      body: { tool: "text-to-image", model: "nope", prompt: "x" },
    });
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as { error: { code: string; message: string; requestId: string } };
    expect(body.error).toMatchObject({
      code: "unknown_model",
      message: text("de", "messages", "msg.generation.unknownModel"),
    });
    expect(body.error.requestId).toBe(unknown.headers.get("x-request-id"));

    const broke = await call("POST", "/api/generations", {
      cookie: bob,
      headers: { "X-Locale": "ja" },
      body: { tool: "text-to-video", model: "demo-video", prompt: "x", duration: 10 },
    });
    const { credits } = { credits: await balance(bob) };
    expect(credits.available).toBeLessThan(25);
    // Bob has the sign-up bonus only: enough for some videos, not unlimited ones.
    expect([201, 402]).toContain(broke.status);
    let status = broke.status;
    for (let i = 0; i < 10 && status === 201; i++) {
      status = (
        await call("POST", "/api/generations", {
          cookie: bob,
          headers: { "X-Locale": "ja" },
          body: { tool: "text-to-video", model: "demo-video", prompt: `x${i}` },
        })
      ).status;
    }
    expect(status).toBe(402);

    const crossSite = await call("POST", "/api/generations", {
      cookie: alice,
      headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
      body: { tool: "text-to-image", model: "demo-image", prompt: "x" },
    });
    expect(crossSite.status).toBe(403);

    // The public API takes no field it does not know: a misspelled image_url is not a text-to-image charge.
    const { secret } = (await (await call("POST", "/api/keys", { cookie: alice, body: {} })).json()) as {
      secret: string;
    };
    const before = await balance(alice);
    const typo = await app.app.request(`${app.origin}/api/v1/images`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Accept-Language": "de" },
      body: JSON.stringify({ model: "demo-image", prompt: "a lighthouse", image_ur: "https://example.com/a.png" }),
    });
    expect(typo.status).toBe(400);
    expect(await typo.json()).toMatchObject({
      error: {
        code: "unknown_field",
        message: text("de", "messages", "api.errors.unknownField").replace("{{field}}", "image_ur"),
        detail: "unknown field: image_ur",
      },
    });
    const typoQuery = await app.app.request(`${app.origin}/api/v1/generations?limt=5`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(typoQuery.status).toBe(400);
    expect(await balance(alice)).toEqual(before);

    const notJson = await app.app.request(`${app.origin}/api/generations`, {
      method: "POST",
      headers: {
        Cookie: alice,
        Origin: app.origin,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/json",
      },
      body: "{",
    });
    expect(notJson.status).toBe(400);
  });

  it("lists, cancels and deletes", async () => {
    const res = await call("POST", "/api/generations", {
      cookie: alice,
      body: { tool: "text-to-video", model: "demo-video", prompt: "a slow sunrise", duration: 10 },
    });
    const { generation } = (await res.json()) as { generation: View };
    const cancel = await call("POST", `/api/generations/${generation.id}/cancel`, { cookie: alice });
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as { generation: View }).generation.status).toBe("canceled");
    expect(await balance(alice)).toMatchObject({ held: 0 });

    const list = await call("GET", "/api/generations?kind=video&limit=10", { cookie: alice });
    const { items } = (await list.json()) as { items: View[] };
    expect(items[0]!.id).toBe(generation.id);
    expect(items.every((g) => g.outputs.every((o) => o.mimeType === "video/mp4"))).toBe(true);
    expect((await call("GET", "/api/generations?status=bogus", { cookie: alice })).status).toBe(422);

    expect((await call("DELETE", `/api/generations/${generation.id}`, { cookie: alice })).status).toBe(204);
    expect((await call("GET", `/api/generations/${generation.id}`, { cookie: alice })).status).toBe(404);
  });
});
