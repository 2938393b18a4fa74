import http from "node:http";
import net, { type AddressInfo } from "node:net";
import sharp from "sharp";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, waitFor, type TestServer } from "#tests/support/server.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";

interface Media {
  url: string;
  width: number | null;
  height: number | null;
}
interface Generation {
  id: string;
  status: string;
  kind: string;
  tool: string;
  prompt: string;
  credits_held: number;
  credits_charged: number | null;
  outputs: Media[];
  input_image: Media | null;
  mask_image: Media | null;
  end_image: Media | null;
  scale: number | null;
  extend: { top: number; right: number; bottom: number; left: number } | null;
  parent_id: string | null;
  error: { code: string; message: string } | null;
}
type OpenApi = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
};

const png = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

/**
 * Every tool through `/api/v1`, once with the images uploaded and once by URL: the URLs served by a local server the
 * site is told to trust (`INPUT_URL_ALLOWED_ORIGINS`), every other address refused by the outbound policy as always.
 */
describe("the public API's tools, by upload and by URL", () => {
  let server: TestServer;
  let origin: string;
  let key: string;
  let doc: OpenApi;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validators = new Map<string, ValidateFunction>();

  /** The trusted image server, and a canary that must never be reached. */
  let images: http.Server;
  let imagesOrigin: string;
  let canary: net.Server;
  let canaryPort: number;
  let canaryConnections = 0;
  const files: Record<string, Buffer> = {};

  beforeAll(async () => {
    files["/photo.png"] = await png(64, 48, "#3366cc");
    files["/end.png"] = await png(64, 48, "#cc6633");
    // White where the image changes: the right half.
    files["/mask.png"] = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#000000" } })
      .composite([{ input: await png(32, 48, "#ffffff"), left: 32, top: 0 }])
      .png()
      .toBuffer();
    canary = net.createServer((socket) => {
      canaryConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
    canaryPort = (canary.address() as AddressInfo).port;
    images = http.createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://images").pathname;
      if (path === "/elsewhere") {
        res.writeHead(302, { location: `https://127.0.0.1:${canaryPort}/photo.png` }).end();
        return;
      }
      const body = files[path];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "image/png", "content-length": body.length }).end(body);
    });
    await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
    imagesOrigin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startServer({
      PORT: String(port),
      SITE_URL: origin,
      INPUT_URL_ALLOWED_ORIGINS: imagesOrigin,
      SIGNUP_BONUS_CREDITS: "200",
      API_RATE_LIMIT_PER_MINUTE: "1000",
      API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "1000",
    });
    const cookie = await signedIn(server, origin, "tools@example.com");
    const created = await pageApi(server, origin)("POST", "/api/keys", cookie, { name: "Tools" });
    key = ((await created.json()) as { secret: string }).secret;
    doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as OpenApi;
    ajv.addSchema(doc, "openapi");
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((r) => images?.close(r));
    await new Promise((r) => canary?.close(r));
  });

  /** Validates an answer against the operation's response schema in the served OpenAPI document. */
  function conforms(template: string, status: number, body: unknown) {
    const schema = doc.paths[template]?.post?.responses[String(status)]?.content?.["application/json"]?.schema;
    expect(schema, `POST ${template} documents ${status}`).toBeDefined();
    const id = `${template} ${status}`;
    let validate = validators.get(id);
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
      validators.set(id, validate);
    }
    expect(validate(body), `${id}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }

  /** A POST of JSON or of a form (its files as named fields), answered and checked against the document. */
  async function post(path: string, body: Record<string, unknown>, uploads: Record<string, Buffer> = {}) {
    let init: RequestInit;
    if (Object.keys(uploads).length > 0) {
      const form = new FormData();
      for (const [name, value] of Object.entries(body))
        form.set(name, typeof value === "object" ? JSON.stringify(value) : String(value));
      for (const [name, bytes] of Object.entries(uploads))
        form.set(name, new Blob([new Uint8Array(bytes)], { type: "image/png" }), `${name}.png`);
      init = { body: form };
    } else init = { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } };
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method: "POST",
      ...init,
      headers: { Authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
    });
    const answer = (await res.json()) as never;
    conforms(path, res.status, answer);
    return { status: res.status, body: answer };
  }

  const available = async () =>
    (
      (await (await fetch(`${server.url}/api/v1/credits`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
        available: number;
      }
    ).available;
  const count = async () =>
    (
      (await (
        await fetch(`${server.url}/api/v1/generations?limit=100`, { headers: { Authorization: `Bearer ${key}` } })
      ).json()) as { data: unknown[] }
    ).data.length;

  async function settled(id: string): Promise<Generation> {
    let g: Generation | undefined;
    await waitFor(`generation ${id} to end`, async () => {
      const res = await fetch(`${server.url}/api/v1/generations/${id}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      g = (await res.json()) as Generation;
      return !["queued", "processing"].includes(g.status);
    });
    return g!;
  }

  /**
   * Quotes a request, creates it with the same body, and waits for it: the quote is what was held and charged, and
   * the balance moved by exactly that.
   */
  async function run(kind: "images" | "videos", body: Record<string, unknown>, uploads: Record<string, Buffer> = {}) {
    const before = await available();
    const quote = await post(`/${kind}/quote`, body, uploads);
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(await available()).toBe(before);
    const created = await post(`/${kind}`, body, uploads);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const done = await settled((created.body as Generation).id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    const credits = (quote.body as { credits: number }).credits;
    expect(done).toMatchObject({ credits_held: credits, credits_charged: credits });
    expect(await available()).toBe(before - credits);
    expect((quote.body as { tool: string }).tool).toBe(done.tool);
    expect(done.outputs.length).toBeGreaterThan(0);
    return done;
  }

  const url = (path: string) => `${imagesOrigin}${path}`;

  it("edits with a mask (inpaint): uploaded, and by URL", async () => {
    const uploaded = await run(
      "images",
      { tool: "inpaint", model: "demo-image", prompt: "A red sailing boat" },
      { image: files["/photo.png"]!, mask: files["/mask.png"]! },
    );
    expect(uploaded).toMatchObject({ tool: "inpaint", prompt: "A red sailing boat" });
    expect(uploaded.input_image).toMatchObject({ width: 64, height: 48 });
    expect(uploaded.mask_image).toMatchObject({ width: 64, height: 48 });
    // The mask is kept as it was painted: white on the right half, black on the left.
    const mask = await sharp(Buffer.from(await (await fetch(uploaded.mask_image!.url)).arrayBuffer()))
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(mask.data[10 * 64 + 5]).toBe(0);
    expect(mask.data[10 * 64 + 50]).toBe(255);

    const linked = await run("images", {
      tool: "inpaint",
      model: "demo-image",
      prompt: "A red sailing boat",
      image_url: url("/photo.png"),
      mask_url: url("/mask.png"),
    });
    expect(linked.tool).toBe("inpaint");
    expect(linked.input_image).toMatchObject({ width: 64, height: 48 });
    expect(linked.mask_image).toMatchObject({ width: 64, height: 48 });
  });

  it("extends the canvas (outpaint): pixels on each side by upload, a new ratio by URL", async () => {
    const uploaded = await run(
      "images",
      { tool: "outpaint", model: "demo-image", extend: { left: 16, right: 16 } },
      { image: files["/photo.png"]! },
    );
    expect(uploaded).toMatchObject({ tool: "outpaint", extend: { top: 0, right: 16, bottom: 0, left: 16 } });
    const linked = await run("images", {
      tool: "outpaint",
      model: "demo-image",
      image_url: url("/photo.png"),
      extend_to: "16:9",
    });
    // 64x48 centred on a 16:9 canvas: 85 pixels wide.
    expect(linked).toMatchObject({ tool: "outpaint", extend: { top: 0, bottom: 0, left: 10, right: 11 } });
  });

  it("upscales ×2 by upload and ×4 by URL, with no prompt", async () => {
    const uploaded = await run(
      "images",
      { tool: "upscale", model: "demo-image", scale: 2 },
      { image: files["/photo.png"]! },
    );
    expect(uploaded).toMatchObject({ tool: "upscale", scale: 2, prompt: "" });
    const linked = await run("images", {
      tool: "upscale",
      model: "demo-image",
      image_url: url("/photo.png"),
      scale: 4,
    });
    expect(linked).toMatchObject({ tool: "upscale", scale: 4 });
  });

  it("removes the background by upload and by URL, and refuses a prompt for it by name", async () => {
    const uploaded = await run(
      "images",
      { tool: "remove-background", model: "demo-image" },
      { image: files["/photo.png"]! },
    );
    expect(uploaded.tool).toBe("remove-background");
    const linked = await run("images", {
      tool: "remove-background",
      model: "demo-image",
      image_url: url("/photo.png"),
    });
    expect(linked.input_image).not.toBeNull();
    const prompted = await post("/images", {
      tool: "remove-background",
      model: "demo-image",
      prompt: "x",
      image_url: url("/photo.png"),
    });
    expect(prompted).toMatchObject({
      status: 400,
      body: { error: { code: "unknown_field", detail: expect.stringContaining("prompt") } },
    });
  });

  it("animates an image (image-to-video) with an end frame, by upload and by URL", async () => {
    const uploaded = await run(
      "videos",
      { model: "demo-video", prompt: "The camera drifts over the sea", duration: 5 },
      { image: files["/photo.png"]!, end_image: files["/end.png"]! },
    );
    // A start image makes it image to video without naming the tool.
    expect(uploaded).toMatchObject({ kind: "video", tool: "image-to-video" });
    expect(uploaded.input_image).not.toBeNull();
    expect(uploaded.end_image).not.toBeNull();
    const linked = await run("videos", {
      tool: "image-to-video",
      model: "demo-video",
      prompt: "The camera drifts over the sea",
      image_url: url("/photo.png"),
      end_image_url: url("/end.png"),
    });
    expect(linked.tool).toBe("image-to-video");
    expect(linked.end_image).not.toBeNull();
  });

  it("makes a variation of a result, linked to it as its parent, by upload and by URL", async () => {
    const source = await run("images", { model: "demo-image", prompt: "A lighthouse at dusk" });
    const uploaded = await run(
      "images",
      { model: "demo-image", prompt: "A lighthouse at dusk", variation_of: source.id },
      { image: files["/photo.png"]! },
    );
    expect(uploaded).toMatchObject({ tool: "image-to-image", parent_id: source.id });
    const linked = await run("images", {
      model: "demo-image",
      prompt: "A lighthouse at dusk",
      image_url: url("/photo.png"),
      variation_of: source.id,
    });
    expect(linked).toMatchObject({ tool: "image-to-image", parent_id: source.id });
    const stranger = await post("/images", {
      model: "demo-image",
      prompt: "x",
      variation_of: "00000000-0000-4000-8000-000000000000",
    });
    expect(stranger).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
  });

  it("refuses hostile URLs, a missing mask and a bad upload as before, charging and keeping nothing", async () => {
    const before = await available();
    const made = await count();
    const hostile = [
      `http://127.0.0.1:${canaryPort}/photo.png`,
      `https://127.0.0.1:${canaryPort}/photo.png`,
      "http://169.254.169.254/latest/meta-data/",
      "https://10.0.0.1/photo.png",
      "https://localhost/photo.png",
      // The trusted server redirecting elsewhere: the next hop meets the policy again.
      url("/elsewhere"),
    ];
    for (const address of hostile) {
      for (const body of [
        { tool: "upscale", model: "demo-image", image_url: address },
        { tool: "inpaint", model: "demo-image", prompt: "x", image_url: url("/photo.png"), mask_url: address },
      ]) {
        const refused = await post("/images", body);
        expect(refused, address).toMatchObject({ status: 400, body: { error: { code: "input_url_refused" } } });
      }
      const video = await post("/videos", {
        model: "demo-video",
        prompt: "x",
        image_url: url("/photo.png"),
        end_image_url: address,
      });
      expect(video, address).toMatchObject({ status: 400, body: { error: { code: "input_url_refused" } } });
    }
    expect(canaryConnections).toBe(0);

    const unmasked = await post(
      "/images",
      { tool: "inpaint", model: "demo-image", prompt: "x" },
      {
        image: files["/photo.png"]!,
      },
    );
    expect(unmasked).toMatchObject({ status: 422, body: { error: { code: "mask_required" } } });
    const notAnImage = await post(
      "/images",
      { tool: "inpaint", model: "demo-image", prompt: "x" },
      { image: files["/photo.png"]!, mask: Buffer.from("not a picture") },
    );
    expect(notAnImage.body).toMatchObject({ error: { code: "input_image_invalid" } });
    const wrongTool = await post(
      "/videos",
      { tool: "text-to-video", model: "demo-video", prompt: "x" },
      {
        image: files["/photo.png"]!,
      },
    );
    expect(wrongTool).toMatchObject({
      status: 400,
      body: { error: { code: "unknown_field", detail: expect.stringContaining("image") } },
    });
    const quoted = await post("/images/quote", { tool: "upscale", model: "demo-image", scale: 4 });
    expect(quoted).toMatchObject({ status: 422, body: { error: { code: "input_image_required" } } });

    expect(await available()).toBe(before);
    expect(await count()).toBe(made);
  });
});
