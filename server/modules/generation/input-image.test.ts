import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { AppError } from "#server/errors.ts";
import {
  INPUT_IMAGE_MAX_BYTES,
  INPUT_IMAGE_MAX_PIXELS,
  normalizeInputImage,
} from "#server/modules/generation/input-image.ts";

function solid(width: number, height: number, background: string | object, channels: 3 | 4 = 3) {
  return sharp({ create: { width, height, channels, background } });
}

async function refusal(bytes: Uint8Array): Promise<AppError> {
  const error = await normalizeInputImage(bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

async function pixel(bytes: Uint8Array, x: number, y: number) {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + info.channels)];
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A genuine, fully decodable 1-bit greyscale PNG of any size: all-black rows deflate to almost nothing. */
function blackPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([1, 0, 0, 0, 0], 8);
  const rows = Buffer.alloc(height * (1 + Math.ceil(width / 8)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(rows, { level: 9 })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A real PNG whose header is rewritten to claim other dimensions, with a valid checksum so only the size lies. */
function withDeclaredSize(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  // Signature (8) + length (4) + "IHDR" (4): width and height follow
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}

function bmp1x1(): Buffer {
  const file = Buffer.alloc(58);
  file.write("BM", 0, "latin1");
  file.writeUInt32LE(58, 2);
  file.writeUInt32LE(54, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(1, 18);
  file.writeInt32LE(1, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(24, 28);
  file.writeUInt32LE(4, 34);
  file.set([0, 0, 255], 54);
  return file;
}

describe("normalizeInputImage", () => {
  it("accepts an opaque PNG and re-encodes it as WebP", async () => {
    const png = await solid(64, 48, "#3366cc").png().toBuffer();
    const result = await normalizeInputImage(png);
    expect(result).toMatchObject({ mediaType: "image/webp", width: 64, height: 48 });
    const meta = await sharp(result.bytes).metadata();
    expect(meta.format).toBe("webp");
    expect(await pixel(result.bytes, 10, 10)).toEqual([0x33, 0x66, 0xcc].map((c) => expect.closeTo(c, -1.5)));
  });

  it("keeps transparency as PNG", async () => {
    const png = await solid(32, 32, { r: 255, g: 0, b: 0, alpha: 0.5 }, 4).png().toBuffer();
    const result = await normalizeInputImage(png);
    expect(result).toMatchObject({ mediaType: "image/png", width: 32, height: 32 });
    const meta = await sharp(result.bytes).metadata();
    expect(meta).toMatchObject({ format: "png", hasAlpha: true });
    expect((await pixel(result.bytes, 5, 5))[3]).toBeCloseTo(128, -1);
  });

  it("accepts a WebP", async () => {
    const webp = await solid(20, 30, "green").webp().toBuffer();
    expect(await normalizeInputImage(webp)).toMatchObject({ mediaType: "image/webp", width: 20, height: 30 });
  });

  it("applies the EXIF orientation of a JPEG and drops EXIF, GPS, XMP and the colour profile", async () => {
    // Stored 40x20 with red on the left and blue on the right; orientation 6 means "turn 90° clockwise to view"
    const stored = await solid(40, 20, "red")
      .composite([{ input: await solid(20, 20, "blue").png().toBuffer(), left: 20, top: 0 }])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .withExifMerge({ IFD0: { Copyright: "Jane Doe" }, IFD3: { GPSMapDatum: "WGS-84", GPSLatitudeRef: "N" } })
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><secret>home address</secret></x:xmpmeta>')
      .withIccProfile("p3")
      .toBuffer();
    const before = await sharp(stored).metadata();
    expect(before).toMatchObject({ orientation: 6, width: 40, height: 20, hasProfile: true });
    expect(before.exif?.includes("WGS-84")).toBe(true);

    const result = await normalizeInputImage(stored);
    expect(result).toMatchObject({ mediaType: "image/webp", width: 20, height: 40 });
    const after = await sharp(result.bytes).metadata();
    expect(after).toMatchObject({ width: 20, height: 40, hasProfile: false });
    expect(after.orientation).toBeUndefined();
    expect(after.exif).toBeUndefined();
    expect(after.xmp).toBeUndefined();
    const bytes = Buffer.from(result.bytes);
    for (const secret of ["WGS-84", "Jane Doe", "home address"]) expect(bytes.includes(secret)).toBe(false);
    // The left of the stored picture is now the top
    const [topR, , topB] = await pixel(result.bytes, 10, 5);
    const [bottomR, , bottomB] = await pixel(result.bytes, 10, 35);
    expect(topR).toBeGreaterThan(200);
    expect(topB).toBeLessThan(60);
    expect(bottomB).toBeGreaterThan(200);
    expect(bottomR).toBeLessThan(60);
  });

  it("converts colours from an embedded profile to sRGB instead of just dropping the profile", async () => {
    const p3 = await solid(8, 8, { r: 200, g: 100, b: 50 }).withIccProfile("p3").png().toBuffer();
    const stored = await pixel(await sharp(p3, { ignoreIcc: true }).png().toBuffer(), 1, 1);
    const result = await normalizeInputImage(p3);
    const shown = await pixel(result.bytes, 1, 1);
    expect(shown).toEqual([200, 100, 50].map((c) => expect.closeTo(c, -1)));
    expect(Math.abs((shown[0] ?? 0) - (stored[0] ?? 0))).toBeGreaterThan(8);
  });

  it("keeps only the first frame of an animated WebP", async () => {
    const frame = (colour: string) => solid(16, 16, colour).png().toBuffer();
    const animated = await sharp([await frame("red"), await frame("blue"), await frame("lime")], {
      join: { animated: true },
    })
      .webp({ loop: 0, delay: [100, 100, 100] })
      .toBuffer();
    expect((await sharp(animated).metadata()).pages).toBe(3);
    const result = await normalizeInputImage(animated);
    expect(result).toMatchObject({ width: 16, height: 16 });
    const meta = await sharp(result.bytes).metadata();
    expect(meta.pages ?? 1).toBe(1);
    const [r, , b] = await pixel(result.bytes, 8, 8);
    expect(r).toBeGreaterThan(200);
    expect(b).toBeLessThan(60);
  });

  it("keeps as PNG an opaque image too wide for WebP", async () => {
    const wide = await solid(17_000, 4, "white").png().toBuffer();
    expect(await normalizeInputImage(wide)).toMatchObject({ mediaType: "image/png", width: 17_000, height: 4 });
  });

  it.each([
    ["a text file named .png", () => Buffer.from("this is not a picture, whatever the file name says\n")],
    ["an empty file", () => Buffer.alloc(0)],
    ["a GIF", () => solid(8, 8, "red").gif().toBuffer()],
    ["an SVG", () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect/></svg>')],
    ["a BMP", () => bmp1x1()],
    ["a TIFF", () => solid(8, 8, "red").tiff().toBuffer()],
    ["an AVIF", () => solid(8, 8, "red").avif().toBuffer()],
    ["only a PNG signature", () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])],
  ])("refuses %s as invalid", async (_name, make) => {
    expect((await refusal(await make())).code).toBe("input_image_invalid");
  });

  it.each([
    ["PNG", () => solid(300, 300, { r: 0, g: 0, b: 0 }, 3).png({ compressionLevel: 0 }).toBuffer()],
    ["JPEG", () => solid(300, 300, "red").jpeg().toBuffer()],
    ["WebP", () => solid(300, 300, "red").webp({ lossless: true }).toBuffer()],
  ])("refuses a truncated %s as invalid", async (_name, make) => {
    const whole = await make();
    expect((await refusal(whole.subarray(0, Math.floor(whole.length * 0.6)))).code).toBe("input_image_invalid");
  });

  it("refuses an 11 MB file as too large by its size alone", async () => {
    // A PNG signature in front of garbage: it would be invalid if the content were looked at first
    const big = Buffer.alloc(11 * 1024 * 1024, 7);
    big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(big.length).toBeGreaterThan(INPUT_IMAGE_MAX_BYTES);
    expect((await refusal(big)).code).toBe("input_image_too_large");
  });

  it("refuses a pixel flood from its header, before decoding anything", async () => {
    // Decoding would fail (there is only one pixel of data), so "too large" proves the header was enough
    const tiny = withDeclaredSize(await solid(1, 1, "red").png().toBuffer(), 20_000, 20_000);
    expect(tiny.length).toBeLessThan(100);
    const error = await refusal(tiny);
    expect(error.code).toBe("input_image_too_large");
    expect(error.message).toContain("20000x20000");
  });

  it("refuses a real, fully decodable 20000x20000 PNG of a few kilobytes", async () => {
    const bomb = blackPng(20_000, 20_000);
    expect(bomb.length).toBeLessThan(200_000);
    expect(await sharp(bomb, { limitInputPixels: false }).metadata()).toMatchObject({ width: 20_000, height: 20_000 });
    expect((await refusal(bomb)).code).toBe("input_image_too_large");
  });

  it("refuses an image just over the pixel limit and accepts the same kind of image under it", async () => {
    const side = Math.ceil(Math.sqrt(INPUT_IMAGE_MAX_PIXELS + 1));
    expect((await refusal(blackPng(side, side))).code).toBe("input_image_too_large");
    expect(await normalizeInputImage(blackPng(2_000, 1_000))).toMatchObject({ width: 2_000, height: 1_000 });
  });
});
