import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApp } from "#tests/support/in-process.ts";

const TRAINED = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
const COMPOSITE = "http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia";

interface Media {
  id: string;
  url: string;
  thumbUrl: string | null;
  mimeType: string;
}
interface View {
  id: string;
  status: string;
  outputs: Media[];
}

/*
 * Every output says it was made by AI, as others read it (ExifTool): written once where outputs are stored, so each
 * tool, the studio's API, the public API and the OpenAI-compatible one, images and videos, and the formats `/v1`
 * converts to, all carry it; an edit of a picture the user uploaded says it is a composite.
 */
describe("provenance in every output", () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;
  let key: string;
  const dir = mkdtempSync(join(tmpdir(), "provenance-"));
  let files = 0;

  /** ExifTool's reading of a file's XMP. */
  const exif = (bytes: Uint8Array, ext: string) => {
    const path = join(dir, `${files++}.${ext}`);
    writeFileSync(path, bytes);
    const out = execFileSync("exiftool", ["-j", "-XMP:all", "-FileType", path], { encoding: "utf8" });
    return (JSON.parse(out) as Record<string, unknown>[])[0]!;
  };
  const bytesOf = async (res: Response) => {
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  };
  const generate = async (body: object) => {
    const res = await app.call("POST", "/api/generations", { cookie, body });
    expect(res.status, await res.clone().text()).toBe(201);
    const { generation } = (await res.json()) as { generation: View };
    expect(await app.ended(generation.id, cookie)).toBe("succeeded");
    const read = await app.call("GET", `/api/generations/${generation.id}`, { cookie });
    return ((await read.json()) as { generation: View }).generation;
  };
  const upload = async (bytes: Uint8Array, mask = false) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "picture.png");
    if (mask) form.append("purpose", "mask");
    const res = await app.call("POST", "/api/uploads", { cookie, body: form });
    expect(res.status).toBe(201);
    return ((await res.json()) as { upload: { id: string } }).upload.id;
  };
  const api = (method: string, path: string, body?: unknown) =>
    app.app.request(`${app.origin}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body !== undefined && !(body instanceof FormData) ? { "Content-Type": "application/json" } : {}),
      },
      body: body instanceof FormData ? body : body !== undefined ? JSON.stringify(body) : undefined,
    });

  let picture: Uint8Array;
  let mask: Uint8Array;

  beforeAll(async () => {
    app = await openApp({ SITE_NAME: "Studio Nord", SIGNUP_BONUS_CREDITS: "500" });
    cookie = await app.signedIn("maker@example.com");
    const created = await app.call("POST", "/api/keys", { cookie, body: {} });
    key = ((await created.json()) as { secret: string }).secret;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="#9cf"/><circle cx="160" cy="120" r="60" fill="#c30"/></svg>`;
    picture = new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
    const half = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="#000"/><rect width="160" height="240" fill="#fff"/></svg>`;
    mask = new Uint8Array(await sharp(Buffer.from(half)).png().toBuffer());
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The output and its thumbnail read, each naming this site and this generation, of this source type. */
  const expectMarked = async (g: View, sourceType: string, fileType: string) => {
    expect(g.outputs.length).toBeGreaterThan(0);
    for (const output of g.outputs) {
      const file = exif(await bytesOf(await app.call("GET", output.url, { cookie })), "bin");
      expect(file).toMatchObject({
        FileType: fileType,
        DigitalSourceType: sourceType,
        CreatorTool: "Studio Nord",
        Identifier: g.id,
      });
      if (output.thumbUrl) {
        const thumb = exif(await bytesOf(await app.call("GET", output.thumbUrl, { cookie })), "webp");
        expect(thumb).toMatchObject({ FileType: "Extended WEBP", DigitalSourceType: sourceType, Identifier: g.id });
      }
    }
  };

  it("marks what each image tool makes: from a prompt as made by AI, from an uploaded picture as a composite", async () => {
    const made = await generate({ tool: "text-to-image", model: "demo-image", prompt: "a lighthouse at dusk" });
    await expectMarked(made, TRAINED, "PNG");
    const input = await upload(picture);
    const painted = await upload(mask, true);
    const edits: object[] = [
      { tool: "image-to-image", prompt: "the same in winter", inputAssetId: input },
      { tool: "inpaint", prompt: "a red door", inputAssetId: input, maskAssetId: painted },
      { tool: "outpaint", prompt: "more sea", inputAssetId: input, extend: { left: 80, right: 80 } },
      { tool: "upscale", inputAssetId: input, scale: 2 },
      { tool: "remove-background", inputAssetId: input },
    ];
    for (const edit of edits) await expectMarked(await generate({ model: "demo-image", ...edit }), COMPOSITE, "PNG");
    // An edit of a result (made by AI itself) is made by AI.
    const again = await generate({
      tool: "image-to-image",
      model: "demo-image",
      prompt: "the same at night",
      inputAssetId: made.outputs[0]!.id,
    });
    await expectMarked(again, TRAINED, "PNG");
  });

  it("marks a video in its MP4, and one from an uploaded picture as a composite", async () => {
    await expectMarked(
      await generate({ tool: "text-to-video", model: "demo-video", prompt: "waves on a shore", duration: 5 }),
      TRAINED,
      "MP4",
    );
    await expectMarked(
      await generate({
        tool: "image-to-video",
        model: "demo-video",
        prompt: "the sun sets",
        inputAssetId: await upload(picture),
        duration: 5,
      }),
      COMPOSITE,
      "MP4",
    );
  });

  it("marks what the public API makes, and what /v1 sends in PNG, JPEG and WebP", async () => {
    const created = await api("POST", "/api/v1/images", { model: "demo-image", prompt: "a harbour in fog" });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    let done: { status: string; outputs: { url: string }[] } | undefined;
    for (let i = 0; i < 600 && (!done || ["queued", "processing"].includes(done.status)); i++) {
      if (done) await new Promise((r) => setTimeout(r, 50));
      done = (await (await api("GET", `/api/v1/generations/${id}`)).json()) as typeof done;
    }
    expect(done?.status).toBe("succeeded");
    const url = new URL(done!.outputs[0]!.url);
    expect(exif(await bytesOf(await api("GET", `${url.pathname}${url.search}`)), "png")).toMatchObject({
      DigitalSourceType: TRAINED,
      Identifier: id,
    });

    const form = new FormData();
    form.append("model", "demo-image");
    form.append("tool", "image-to-image");
    form.append("prompt", "the harbour in spring");
    form.append("image", new Blob([new Uint8Array(picture)], { type: "image/png" }), "harbour.png");
    const edit = await api("POST", "/api/v1/images", form);
    expect(edit.status, await edit.clone().text()).toBe(201);

    for (const [format, type] of [
      ["png", "PNG"],
      ["jpeg", "JPEG"],
      ["webp", "Extended WEBP"],
    ] as const) {
      const res = await api("POST", "/v1/images/generations", {
        model: "demo-image",
        prompt: `a harbour at noon (${format})`,
        response_format: "b64_json",
        output_format: format,
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const answer = (await res.json()) as { data: { b64_json: string }[]; atelier: { generation_id: string } };
      expect(exif(Buffer.from(answer.data[0]!.b64_json, "base64"), format)).toMatchObject({
        FileType: type,
        DigitalSourceType: TRAINED,
        Identifier: answer.atelier.generation_id,
      });
    }
  });
});
