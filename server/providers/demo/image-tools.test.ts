import { generateImage } from "ai";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, type ImageModelV4CallOptions, type ImageModelV4File } from "@ai-sdk/provider";
import { createDemoImageModel, demoSeedOf, renderDemoImage } from "#server/providers/demo/image-model.ts";
import { prepareStill } from "#server/providers/demo/still.ts";

const model = createDemoImageModel();

function call(options: Partial<ImageModelV4CallOptions>): ImageModelV4CallOptions {
  return {
    prompt: undefined,
    n: 1,
    size: undefined,
    aspectRatio: undefined,
    seed: undefined,
    files: undefined,
    mask: undefined,
    providerOptions: {},
    ...options,
  };
}

const file = (data: Uint8Array | Buffer): ImageModelV4File => ({ type: "file", mediaType: "image/png", data });

async function run(options: Partial<ImageModelV4CallOptions>) {
  const { images, warnings } = await model.doGenerate(call(options));
  return { images: images.map((image) => Buffer.from(image as Uint8Array)), warnings };
}

async function raw(png: Uint8Array, channels: 3 | 4 = 3) {
  const image = sharp(png);
  const { data, info } = await (channels === 4 ? image.ensureAlpha() : image.removeAlpha())
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A PNG drawn from a function of the pixel: RGB, or RGBA when it gives four values. */
async function paint(width: number, height: number, colour: (x: number, y: number) => number[]): Promise<Buffer> {
  const channels = colour(0, 0).length as 3 | 4;
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * channels);
  }
  return sharp(data, { raw: { width, height, channels } }).png().toBuffer();
}

/** A small deterministic noise, so synthetic pictures are not perfectly flat. */
const noise = (x: number, y: number) => ((Math.imul((x * 73856093) ^ (y * 19349663), 0x9e3779b1) >>> 24) % 13) - 6;

describe("demo image tools", { timeout: 30_000 }, () => {
  describe("inpaint", () => {
    const [width, height] = [320, 200];
    const inside = (x: number, y: number) => x >= 100 && x < 220 && y >= 50 && y < 150;
    const source = () => renderDemoImage({ prompt: "rolling green hills in spring", seed: 3, width, height });
    const mask = () => paint(width, height, (x, y) => (inside(x, y) ? [255, 255, 255] : [0, 0, 0]));

    it("repaints the masked area at the input's own size and leaves the rest as it was", async () => {
      const input = await source();
      const { images } = await run({
        prompt: "neon city at night",
        seed: 5,
        n: 2,
        files: [file(input)],
        mask: file(await mask()),
        providerOptions: { demo: { tool: "inpaint" } },
      });
      expect(images).toHaveLength(2);
      expect(images[0]!.equals(images[1]!)).toBe(false);
      const before = await raw(input);
      for (const image of images) {
        const after = await raw(image);
        expect([after.width, after.height]).toEqual([width, height]);
        let kept = 0;
        let changed = 0;
        let deep = 0;
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const i = (y * width + x) * 3;
            const d =
              Math.abs(after.data[i]! - before.data[i]!) +
              Math.abs(after.data[i + 1]! - before.data[i + 1]!) +
              Math.abs(after.data[i + 2]! - before.data[i + 2]!);
            if (!inside(x, y)) kept = Math.max(kept, d);
            else if (x >= 130 && x < 190 && y >= 80 && y < 120) {
              changed += d / 3;
              deep++;
            }
          }
        }
        expect(kept).toBe(0);
        expect(changed / deep).toBeGreaterThan(25);
      }
    });

    it("paints the scene the prompt and seed draw, so the same request gives the same bytes", async () => {
      const options = {
        prompt: "a quiet ocean at dawn",
        seed: 9,
        files: [file(await source())],
        mask: file(await mask()),
        providerOptions: { demo: { tool: "inpaint" } },
      };
      const [a, b] = [(await run(options)).images[0]!, (await run(options)).images[0]!];
      expect(a.equals(b)).toBe(true);
      // Deep inside the mask the picture is the scene drawn for the prompt and the seed.
      const scene = await raw(await renderDemoImage({ prompt: "a quiet ocean at dawn", seed: 9, width, height }));
      const made = await raw(a);
      const i = (100 * width + 160) * 3;
      for (let c = 0; c < 3; c++) expect(Math.abs(made.data[i + c]! - scene.data[i + c]!)).toBeLessThanOrEqual(1);
    });

    it("fills a padded border (extending the canvas) with a picture, not with the padding", async () => {
      const input = await sharp(await source())
        .extend({ left: 80, right: 80, background: "#000000" })
        .png()
        .toBuffer();
      const border = await paint(width + 160, height, (x) => (x < 80 || x >= width + 80 ? [255, 255, 255] : [0, 0, 0]));
      const { images } = await run({
        prompt: "sunset over the mountains",
        files: [file(input)],
        mask: file(border),
        providerOptions: { demo: { tool: "inpaint" } },
      });
      const after = await sharp(images[0]!).extract({ left: 0, top: 0, width: 80, height }).stats();
      expect(await sharp(images[0]!).metadata()).toMatchObject({ width: width + 160, height });
      expect(Math.max(...after.channels.slice(0, 3).map((c) => c.mean))).toBeGreaterThan(40);
    });

    it("keeps a canvas larger than the scene is drawn at to its size and its unmasked pixels", async () => {
      const [wide, high] = [2200, 120];
      const input = await renderDemoImage({ prompt: "desert dunes", seed: 1, width: wide, height: high });
      const band = (x: number) => x >= 1000 && x < 1400;
      const { images } = await run({
        prompt: "neon city at night",
        seed: 4,
        files: [file(input)],
        mask: file(await paint(wide, high, (x) => (band(x) ? [255, 255, 255] : [0, 0, 0]))),
        providerOptions: { demo: { tool: "inpaint" } },
      });
      const [before, after] = [await raw(input), await raw(images[0]!)];
      expect([after.width, after.height]).toEqual([wide, high]);
      let kept = 0;
      let changed = 0;
      for (let y = 0; y < high; y++) {
        for (let x = 0; x < wide; x++) {
          const i = (y * wide + x) * 3;
          const d = Math.abs(after.data[i]! - before.data[i]!) + Math.abs(after.data[i + 2]! - before.data[i + 2]!);
          if (!band(x)) kept = Math.max(kept, d);
          else if (x >= 1100 && x < 1300) changed += d / 2 / (200 * high);
        }
      }
      expect(kept).toBe(0);
      expect(changed).toBeGreaterThan(25);
    });

    it("takes the image and the mask as the AI SDK's generateImage passes them", async () => {
      const input = await source();
      const { image, warnings } = await generateImage({
        model,
        prompt: { text: "a quiet ocean at dawn", images: [input], mask: await mask() },
        seed: 9,
        providerOptions: { demo: { tool: "inpaint" } },
      });
      expect(warnings).toEqual([]);
      const [before, after] = [await raw(input), await raw(image.uint8Array)];
      expect([after.width, after.height]).toEqual([width, height]);
      expect(after.data.subarray(0, width * 3 * 40).equals(before.data.subarray(0, width * 3 * 40))).toBe(true);
      expect(after.data.equals(before.data)).toBe(false);
    });

    it("blends where the mask is grey", async () => {
      const input = await source();
      const grey = await paint(width, height, () => [128, 128, 128]);
      const full = await paint(width, height, () => [255, 255, 255]);
      const at = async (m: Buffer) =>
        (
          await raw(
            (
              await run({
                prompt: "neon city",
                seed: 2,
                files: [file(input)],
                mask: file(m),
                providerOptions: { demo: { tool: "inpaint" } },
              })
            ).images[0]!,
          )
        ).data;
      const before = (await raw(input)).data;
      const [half, whole] = [await at(grey), await at(full)];
      let off = 0;
      for (let i = 0; i < before.length; i++) off += Math.abs(half[i]! - (before[i]! + whole[i]!) / 2);
      expect(off / before.length).toBeLessThan(1.5);
    });

    it("refuses a call without a mask, with a mask of another size, or without an image", async () => {
      const input = file(await source());
      const inpaint = { providerOptions: { demo: { tool: "inpaint" } }, prompt: "a boat" };
      await expect(run({ ...inpaint, files: [input] })).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(run({ ...inpaint, files: [input] })).rejects.toThrow(/needs a mask/);
      const small = file(await paint(32, 20, () => [255, 255, 255]));
      await expect(run({ ...inpaint, files: [input], mask: small })).rejects.toThrow(/must be the image's size/);
      await expect(run({ ...inpaint, mask: small })).rejects.toThrow(/needs an input image/);
      const garbage = file(new Uint8Array([1, 2, 3]));
      await expect(run({ ...inpaint, files: [input], mask: garbage })).rejects.toThrow(/mask could not be read/);
    });
  });

  describe("upscale", () => {
    it.each([2, 4])("makes the image ×%i, sharp and the same colours", async (scale) => {
      const input = await renderDemoImage({ prompt: "desert dunes", seed: 1, width: 96, height: 64 });
      const { images, warnings } = await run({
        files: [file(input)],
        n: 2,
        providerOptions: { demo: { tool: "upscale", scale } },
      });
      expect(images).toHaveLength(1);
      expect(warnings).toEqual([expect.objectContaining({ feature: "n" })]);
      expect(await sharp(images[0]!).metadata()).toMatchObject({
        format: "png",
        width: 96 * scale,
        height: 64 * scale,
      });
      const [a, b] = [await sharp(input).stats(), await sharp(images[0]!).stats()];
      for (let c = 0; c < 3; c++) expect(Math.abs(a.channels[c]!.mean - b.channels[c]!.mean)).toBeLessThan(3);
    });

    it("keeps transparency, and says the demo takes no creativity prompt", async () => {
      const input = await paint(40, 30, (x) => (x < 20 ? [200, 30, 30, 255] : [0, 0, 0, 0]));
      const { images, warnings } = await run({
        prompt: "more detail",
        files: [file(input)],
        providerOptions: { demo: { tool: "upscale", scale: 2 } },
      });
      const out = await raw(images[0]!, 4);
      expect([out.width, out.height]).toEqual([80, 60]);
      expect(out.data[(30 * 80 + 10) * 4 + 3]).toBe(255);
      expect(out.data[(30 * 80 + 70) * 4 + 3]).toBe(0);
      expect(warnings).toEqual([expect.objectContaining({ feature: "prompt" })]);
    });

    it("refuses other factors, a missing image and unreadable bytes", async () => {
      const input = file(await paint(8, 8, () => [1, 2, 3]));
      const tool = (scale?: number) => ({ providerOptions: { demo: { tool: "upscale", scale } } });
      await expect(run({ ...tool(3), files: [input] })).rejects.toThrow(/2 or 4/);
      await expect(run(tool(2))).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(run({ ...tool(2), files: [file(new Uint8Array([9, 9]))] })).rejects.toThrow(/could not be read/);
    });
  });

  describe("remove background", () => {
    const alphaAt = (image: { data: Buffer; width: number }, x: number, y: number) =>
      image.data[(Math.round(y) * image.width + Math.round(x)) * 4 + 3]!;
    const corners = (image: { data: Buffer; width: number; height: number }) => [
      alphaAt(image, 0, 0),
      alphaAt(image, image.width - 1, 0),
      alphaAt(image, 0, image.height - 1),
      alphaAt(image, image.width - 1, image.height - 1),
    ];

    it("cuts out the demo's own subject when the input is a demo picture", async () => {
      const prompt = "a robot in the desert";
      const seed = demoSeedOf(prompt, undefined, 1);
      const [width, height] = [256, 192];
      const input = await renderDemoImage({ prompt, seed, width, height });
      const { images, warnings } = await run({
        files: [file(input)],
        providerOptions: { demo: { tool: "remove-background", origin: { prompt, seed } } },
      });
      expect(warnings).toEqual([]);
      const out = await raw(images[0]!, 4);
      expect([out.width, out.height]).toEqual([width, height]);
      expect(corners(out)).toEqual([0, 0, 0, 0]);
      // The middle of the subject, where the painter put it.
      const { scene } = await prepareStill(prompt, undefined, seed, width, height);
      const robot = scene.subjects.find((s) => s.id === "robot")!;
      expect(alphaAt(out, robot.u * height, (robot.v - robot.h / 2) * height)).toBe(255);
      // The colours are the input's own.
      const before = await raw(input);
      const i = Math.round((robot.v - robot.h / 2) * height) * width + Math.round(robot.u * height);
      expect([...out.data.subarray(i * 4, i * 4 + 3)]).toEqual([...before.data.subarray(i * 3, i * 3 + 3)]);
    });

    it("cuts out the subject of a demo picture that was upscaled since", async () => {
      const prompt = "a robot in the desert";
      const source = await renderDemoImage({ prompt, seed: 7, width: 640, height: 360 });
      const [upscaled] = (
        await run({ files: [file(source)], providerOptions: { demo: { tool: "upscale", scale: 2 } } })
      ).images;
      const { images, warnings } = await run({
        files: [file(upscaled!)],
        providerOptions: { demo: { tool: "remove-background", origin: { prompt, seed: 7 } } },
      });
      expect(warnings).toEqual([]);
      const out = await raw(images[0]!, 4);
      expect([out.width, out.height]).toEqual([1280, 720]);
      expect(corners(out)).toEqual([0, 0, 0, 0]);
      const { scene } = await prepareStill(prompt, undefined, 7, 640, 360);
      const robot = scene.subjects.find((s) => s.id === "robot")!;
      expect(alphaAt(out, robot.u * 720, (robot.v - robot.h / 2) * 720)).toBe(255);
    });

    it.each([
      ["a plain backdrop", (x: number, y: number) => [236 + noise(x, y) / 2, 236, 240]],
      ["a gradient", (x: number, y: number) => [40 + y + noise(x, y), 90 + x / 3, 200 - y / 2]],
    ])("cuts a subject out of an upload on %s by its colour", async (_, background) => {
      const [width, height] = [240, 180];
      const disc = (x: number, y: number) => (x - 130) ** 2 + (y - 95) ** 2 < 50 ** 2;
      const input = await paint(width, height, (x, y) =>
        disc(x, y) ? [220 - (x - 80), 60 + noise(x, y), 40 + (y - 45)] : background(x, y),
      );
      // A wrong origin is checked against the picture and set aside.
      const { images, warnings } = await run({
        files: [file(input)],
        providerOptions: { demo: { tool: "remove-background", origin: { prompt: "a cat", seed: 1 } } },
      });
      expect(warnings).toEqual([]);
      const out = await raw(images[0]!, 4);
      expect([out.width, out.height]).toEqual([width, height]);
      expect(corners(out)).toEqual([0, 0, 0, 0]);
      expect(alphaAt(out, 130, 95)).toBe(255);
      expect(alphaAt(out, 130 + 38, 95)).toBe(255);
      expect(alphaAt(out, 130 + 62, 95)).toBe(0);
    });

    it("keeps a subject cut off by the bottom edge, on a backdrop darker towards its corners", async () => {
      const [width, height] = [300, 240];
      const head = (x: number, y: number) => (x - 150) ** 2 + (y - 90) ** 2 < 40 ** 2;
      const body = (x: number, y: number) => y > 145 && Math.abs(x - 150) < 70 + (y - 145) * 0.5;
      const input = await paint(width, height, (x, y) => {
        if (body(x, y)) return [40 + noise(x, y), 60 + (x - 80) / 4, 120];
        if (head(x, y)) return [230 - (y - 50) / 2, 160, 130];
        const vignette = 1 - 0.9 * (((x - width / 2) / width) ** 2 + ((y - height / 2) / height) ** 2);
        return [200 * vignette + noise(x, y), 190 * vignette, 170 * vignette];
      });
      const { images, warnings } = await run({
        files: [file(input)],
        providerOptions: { demo: { tool: "remove-background" } },
      });
      expect(warnings).toEqual([]);
      const out = await raw(images[0]!, 4);
      expect(corners(out)).toEqual([0, 0, 0, 0]);
      expect(alphaAt(out, 150, 90)).toBe(255);
      expect(alphaAt(out, 150, 235)).toBe(255);
      expect(alphaAt(out, 60, 90)).toBe(0);
      expect(alphaAt(out, 250, 90)).toBe(0);
    });

    it("gives the image back whole, never empty, when nothing stands out", async () => {
      const input = await paint(64, 48, (x, y) => [120 + noise(x, y), 130, 140]);
      const { images, warnings } = await run({
        files: [file(input)],
        providerOptions: { demo: { tool: "remove-background" } },
      });
      const out = await raw(images[0]!, 4);
      expect(corners(out)).toEqual([255, 255, 255, 255]);
      expect(warnings).toEqual([expect.objectContaining({ type: "other" })]);
    });

    it("refuses a call without an image", async () => {
      await expect(run({ providerOptions: { demo: { tool: "remove-background" } } })).rejects.toThrow(
        /needs an input image/,
      );
    });
  });

  it("refuses a tool it does not have", async () => {
    await expect(run({ prompt: "x", providerOptions: { demo: { tool: "colourise" } } })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });

  it("numbers its seeds as it draws them", async () => {
    expect(demoSeedOf("a quiet lake", 10, 2)).toBe(12);
    const batch = await run({ prompt: "a quiet lake", n: 2 });
    const second = await renderDemoImage({
      prompt: "a quiet lake",
      seed: demoSeedOf("a quiet lake", undefined, 1),
      width: 1024,
      height: 1024,
    });
    expect(batch.images[1]!.equals(Buffer.from(second))).toBe(true);
  });
});
