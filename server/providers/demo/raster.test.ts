import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "@ai-sdk/provider";
import { fitWithin, readImage, readMask, resizeRaw } from "#server/providers/demo/raster.ts";

describe("demo rasters", () => {
  it.each([1, 3, 4] as const)("resizes raw pixels of %i channel(s) to as many channels", async (channels) => {
    const data = new Uint8Array(40 * 30 * channels).fill(200);
    const out = await resizeRaw(data, 40, 30, channels, 80, 60, "mitchell");
    expect(out.length).toBe(80 * 60 * channels);
    expect(out[out.length - 1]).toBe(200);
  });

  it("reads a mask as one byte per pixel, transparent as black", async () => {
    const png = await sharp(Buffer.from([255, 255, 255, 255, 255, 255, 255, 0, 128, 128, 128, 255]), {
      raw: { width: 3, height: 1, channels: 4 },
    })
      .png()
      .toBuffer();
    const mask = await readMask({ type: "file", data: png }, "mask");
    expect([mask.width, mask.height, [...mask.data]]).toEqual([3, 1, [255, 0, 128]]);
  });

  it("reads RGB unless the image has transparency, and refuses URLs and bytes that are not an image", async () => {
    const rgb = await sharp({ create: { width: 4, height: 2, channels: 3, background: "#102030" } })
      .png()
      .toBuffer();
    expect(await readImage({ type: "file", data: rgb.toString("base64") }, "files", "input image")).toMatchObject({
      width: 4,
      height: 2,
      channels: 3,
    });
    await expect(readImage({ type: "url", url: "https://example.com/a.png" }, "files", "input image")).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(readImage({ type: "file", data: new Uint8Array([0]) }, "files", "input image")).rejects.toThrow(
      "The input image could not be read.",
    );
  });

  it("fits a size within a long side, never growing it", () => {
    expect(fitWithin(4096, 2048, 1024)).toEqual([1024, 512]);
    expect(fitWithin(300, 200, 1024)).toEqual([300, 200]);
  });
});
