import { generateImage } from "ai";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { ImageModelV4CallOptions } from "@ai-sdk/provider";
import { createDemoImageModel, renderDemoImage } from "#server/providers/demo/image-model.ts";

const model = createDemoImageModel();

function call(options: Partial<ImageModelV4CallOptions>): ImageModelV4CallOptions {
  return {
    prompt: "sunset over the mountains",
    n: 1,
    size: undefined,
    aspectRatio: "1:1",
    seed: 7,
    files: undefined,
    mask: undefined,
    providerOptions: {},
    ...options,
  };
}

async function one(options: Partial<ImageModelV4CallOptions>): Promise<Buffer> {
  const { images } = await model.doGenerate(call(options));
  const image = images[0];
  if (!(image instanceof Uint8Array)) throw new Error("expected PNG bytes");
  return Buffer.from(image);
}

async function rgb(png: Uint8Array): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference per channel value, 0–255. */
function difference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

describe("demo image model", () => {
  it("describes itself as the SDK expects", () => {
    expect(model).toMatchObject({
      specificationVersion: "v4",
      provider: "demo",
      modelId: "demo-image",
      maxImagesPerCall: 4,
    });
  });

  it("draws the same PNG for the same prompt and seed, and a different one otherwise", async () => {
    const first = await one({ seed: 11 });
    const again = await one({ seed: 11 });
    expect(first.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(again.equals(first)).toBe(true);
    expect((await one({ seed: 12 })).equals(first)).toBe(false);
    expect((await one({ seed: 11, prompt: "a lighthouse on a cliff" })).equals(first)).toBe(false);
  });

  it("derives a seed from the prompt when none is given", async () => {
    const a = await one({ seed: undefined, prompt: "a quiet lake" });
    const b = await one({ seed: undefined, prompt: "a quiet lake" });
    expect(a.equals(b)).toBe(true);
  });

  it("makes every image of a batch different", async () => {
    const { images } = await model.doGenerate(call({ n: 3 }));
    const unique = new Set(images.map((image) => Buffer.from(image).toString("base64")));
    expect(unique.size).toBe(3);
  });

  it.each([
    ["1:1", 1024, 1024],
    ["4:3", 1024, 768],
    ["3:4", 768, 1024],
    ["16:9", 1024, 576],
    ["9:16", 576, 1024],
  ] as const)("draws %s at %i×%i", async (aspectRatio, width, height) => {
    const meta = await sharp(await one({ aspectRatio })).metadata();
    expect([meta.width, meta.height]).toEqual([width, height]);
  });

  it.each([
    "sunset over the mountains",
    "a quiet ocean at dawn",
    "neon city at night",
    "a galaxy with a ringed planet",
    "abstract pastel shapes",
    "misty pine forest",
    "desert dunes",
    "a cat wearing a hat",
  ])("draws a picture, not a flat colour: %s", async (prompt) => {
    const stats = await sharp(await one({ prompt, aspectRatio: "4:3" })).stats();
    const spread = Math.max(...stats.channels.slice(0, 3).map((c) => c.stdev));
    expect(spread).toBeGreaterThan(18);
  });

  it("takes colours the negative prompt names out of the palette", async () => {
    const prompt = "red sunset over the sea";
    const plain = await one({ prompt });
    const withoutRed = await one({ prompt, providerOptions: { demo: { negativePrompt: "red" } } });
    const redness = async (png: Buffer) => {
      const [r, g, b] = (await sharp(png).stats()).channels;
      return r!.mean - (g!.mean + b!.mean) / 2;
    };
    expect(withoutRed.equals(plain)).toBe(false);
    expect(await redness(withoutRed)).toBeLessThan((await redness(plain)) - 20);
  });

  it("leaves the picture alone when the negative prompt names a colour it does not have", async () => {
    const prompt = "red sunset over the sea";
    const plain = await one({ prompt });
    const withoutGreen = await one({ prompt, providerOptions: { demo: { negativePrompt: "green" } } });
    expect(withoutGreen.equals(plain)).toBe(true);
  });

  describe("image to image", () => {
    const input = () => renderDemoImage({ prompt: "rolling green hills in spring", seed: 3, width: 600, height: 400 });

    it("keeps the input's shape, fitted within 1024 px", async () => {
      const source = await input();
      const meta = await sharp(
        await one({ files: [{ type: "file", mediaType: "image/png", data: source }] }),
      ).metadata();
      expect([meta.width, meta.height]).toEqual([1024, 682]);
    });

    it("stays near the input at strength 0 and moves away as strength grows", async () => {
      const source = await input();
      const reference = (await rgb(await sharp(source).resize(1024, 682, { fit: "fill" }).png().toBuffer())).data;
      const at = async (strength: number) => {
        const png = await one({
          prompt: "neon night",
          files: [{ type: "file", mediaType: "image/png", data: source }],
          providerOptions: { demo: { strength } },
        });
        return difference((await rgb(png)).data, reference);
      };
      const [none, some, full] = [await at(0), await at(0.6), await at(1)];
      expect(none).toBeLessThan(10);
      expect(some).toBeGreaterThan(none + 10);
      expect(full).toBeGreaterThan(some + 10);
    });

    it("depends on the input, and reads base64 as well as bytes", async () => {
      const source = await input();
      const other = await renderDemoImage({ prompt: "city skyline by day", seed: 4, width: 600, height: 400 });
      const fromBytes = await one({ files: [{ type: "file", mediaType: "image/png", data: source }] });
      const fromBase64 = await one({
        files: [{ type: "file", mediaType: "image/png", data: Buffer.from(source).toString("base64") }],
      });
      const fromOther = await one({ files: [{ type: "file", mediaType: "image/png", data: other }] });
      expect(fromBase64.equals(fromBytes)).toBe(true);
      expect(fromOther.equals(fromBytes)).toBe(false);
    });

    it("rejects an input that is not an image", async () => {
      const files = [{ type: "file" as const, mediaType: "image/png", data: new Uint8Array([1, 2, 3]) }];
      await expect(model.doGenerate(call({ files }))).rejects.toThrow(/could not be read/);
    });
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    controller.abort(new Error("user cancelled"));
    await expect(model.doGenerate(call({ abortSignal: controller.signal }))).rejects.toThrow("user cancelled");
  });

  it("works through the AI SDK's generateImage, for text and for image to image", async () => {
    const { images, warnings } = await generateImage({
      model,
      prompt: "a quiet ocean at dawn",
      n: 2,
      aspectRatio: "16:9",
      seed: 5,
      providerOptions: { demo: { negativePrompt: "clouds" } },
    });
    expect(warnings).toEqual([]);
    expect(images).toHaveLength(2);
    expect(images[0]!.mediaType).toBe("image/png");
    expect(await sharp(images[1]!.uint8Array).metadata()).toMatchObject({ width: 1024, height: 576 });

    const edited = await generateImage({
      model,
      prompt: { text: "sunset", images: [images[0]!.uint8Array] },
      providerOptions: { demo: { strength: 0.5 } },
    });
    expect(await sharp(edited.image.uint8Array).metadata()).toMatchObject({ width: 1024, height: 576 });
  });
});
