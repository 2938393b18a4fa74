import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIGITAL_SOURCE_TYPES, embedXmp, provenanceXmp, readXmp, type XmpContainer } from "#server/media/xmp.ts";
import { mp4Info } from "#server/media/mp4.ts";
import { renderDemoVideo } from "#server/providers/demo/video-model.ts";

const dir = mkdtempSync(join(tmpdir(), "xmp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What ExifTool reads in a file's XMP (the tool anyone checking a file would use), by tag name. */
function exiftool(bytes: Uint8Array, name: string): Record<string, unknown> {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const out = execFileSync("exiftool", ["-j", "-XMP:all", "-Warning", "-Error", path], { encoding: "utf8" });
  return (JSON.parse(out) as Record<string, unknown>[])[0]!;
}

const mark = (
  sourceType: "trainedAlgorithmicMedia" | "compositeWithTrainedAlgorithmicMedia" = "trainedAlgorithmicMedia",
) =>
  provenanceXmp({
    sourceType,
    site: 'Atelier & "Friends"',
    generationId: "0b7c6f0e-6d43-4d35-9a55-2f0f3f8f4e21",
    model: "FLUX.1 [dev] <local>",
    createdAt: new Date("2026-11-28T10:00:00Z"),
  });

/** A picture with detail and, when asked, transparency. */
async function picture(alpha: boolean) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="64"><rect width="96" height="64" fill="${
    alpha ? "none" : "#224"
  }"/><circle cx="40" cy="30" r="20" fill="#e63"/><rect x="60" y="10" width="20" height="40" fill="#3a7" opacity="0.6"/></svg>`;
  return sharp(Buffer.from(svg));
}

const pixels = async (bytes: Uint8Array) => (await sharp(bytes).ensureAlpha().raw().toBuffer()).toString("base64");

describe("provenance as XMP in a file's own container", () => {
  const files: Array<{ name: string; container: XmpContainer; bytes: () => Promise<Uint8Array> }> = [
    { name: "png", container: "png", bytes: async () => (await picture(true)).png().toBuffer() },
    { name: "jpeg", container: "jpeg", bytes: async () => (await picture(false)).jpeg().toBuffer() },
    {
      name: "jpeg with Exif",
      container: "jpeg",
      bytes: async () => (await picture(false)).withMetadata({ orientation: 1 }).jpeg().toBuffer(),
    },
    {
      name: "lossy webp",
      container: "webp",
      bytes: async () => (await picture(false)).webp({ quality: 80 }).toBuffer(),
    },
    {
      name: "lossless webp with alpha",
      container: "webp",
      bytes: async () => (await picture(true)).webp({ lossless: true }).toBuffer(),
    },
    {
      name: "lossy webp with alpha (extended already)",
      container: "webp",
      bytes: async () => (await picture(true)).webp({ quality: 80 }).toBuffer(),
    },
  ];

  for (const file of files) {
    it(`marks a ${file.name} that ExifTool reads, its pixels untouched, once however often it is marked`, async () => {
      const original = await file.bytes();
      const marked = embedXmp(original, file.container, mark());
      const read = exiftool(marked, `${file.name.replaceAll(" ", "-")}.${file.container}`);
      expect(read.Error).toBeUndefined();
      expect(read.Warning).toBeUndefined();
      expect(read).toMatchObject({
        DigitalSourceType: DIGITAL_SOURCE_TYPES.trainedAlgorithmicMedia,
        CreatorTool: 'Atelier & "Friends"',
        Identifier: "0b7c6f0e-6d43-4d35-9a55-2f0f3f8f4e21",
      });
      expect(await pixels(marked)).toBe(await pixels(original));
      const meta = await sharp(marked).metadata();
      const before = await sharp(original).metadata();
      expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual([
        before.format,
        before.width,
        before.height,
        before.hasAlpha,
      ]);
      // Marked again (an edit's composite type): the one packet replaced, not a second beside it.
      const again = embedXmp(marked, file.container, mark("compositeWithTrainedAlgorithmicMedia"));
      const text = Buffer.from(again).toString("latin1");
      expect(text.split("<x:xmpmeta").length - 1).toBe(1);
      expect(exiftool(again, `again-${file.name.replaceAll(" ", "-")}.${file.container}`).DigitalSourceType).toBe(
        DIGITAL_SOURCE_TYPES.compositeWithTrainedAlgorithmicMedia,
      );
      expect(readXmp(again)).toContain("compositeWithTrainedAlgorithmicMedia");
    });
  }

  describe("an MP4", () => {
    let video: Uint8Array;
    beforeAll(async () => {
      video = (
        await renderDemoVideo({ prompt: "a lighthouse", seed: 3, style: "realistic", duration: 5, aspectRatio: "16:9" })
      ).mp4;
    }, 60_000);

    it("gets a uuid box ExifTool reads, every sample where it was, and one packet however often it is marked", () => {
      const marked = embedXmp(video, "mp4", mark());
      expect(Buffer.from(marked.subarray(0, video.length)).equals(Buffer.from(video))).toBe(true);
      expect(exiftool(marked, "clip.mp4")).toMatchObject({
        DigitalSourceType: DIGITAL_SOURCE_TYPES.trainedAlgorithmicMedia,
        Identifier: "0b7c6f0e-6d43-4d35-9a55-2f0f3f8f4e21",
      });
      expect(mp4Info(marked)).toEqual(mp4Info(video));
      const again = embedXmp(marked, "mp4", mark("compositeWithTrainedAlgorithmicMedia"));
      expect(Buffer.from(again).toString("latin1").split("<x:xmpmeta").length - 1).toBe(1);
      expect(readXmp(again)).toContain("compositeWithTrainedAlgorithmicMedia");
      expect(exiftool(again, "again.mp4").DigitalSourceType).toBe(
        DIGITAL_SOURCE_TYPES.compositeWithTrainedAlgorithmicMedia,
      );
    });
  });

  it("refuses bytes that are not the container named", () => {
    const text = new TextEncoder().encode("not a picture at all, only text");
    for (const container of ["png", "jpeg", "webp", "mp4"] as const)
      expect(() => embedXmp(text, container, mark())).toThrow(/not an? /);
  });
});
