import { experimental_generateVideo as generateVideo } from "ai";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, type Experimental_VideoModelV4CallOptions as VideoCallOptions } from "@ai-sdk/provider";
import { createDemoVideoModel, DEMO_VIDEO_STYLES, renderDemoPoster } from "#server/providers/demo/index.ts";
import { renderDemoImage } from "#server/providers/demo/still.ts";
import { demoVideoFrames } from "#server/providers/demo/video-model.ts";

interface Box {
  type: string;
  start: number;
  body: number;
  end: number;
}

/** The boxes directly inside bytes[start, end). */
function children(bytes: Uint8Array, start: number, end: number): Box[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Box[] = [];
  for (let at = start; at + 8 <= end;) {
    const size = view.getUint32(at);
    if (size < 8 || at + size > end) break;
    out.push({
      type: new TextDecoder().decode(bytes.subarray(at + 4, at + 8)),
      start: at,
      body: at + 8,
      end: at + size,
    });
    at += size;
  }
  return out;
}

function find(bytes: Uint8Array, path: string[]): Box {
  let box: Box = { type: "", start: 0, body: 0, end: bytes.byteLength };
  for (const type of path) {
    const next = children(bytes, box.body, box.end).find((b) => b.type === type);
    if (!next) throw new Error(`no ${path.join("/")}`);
    box = next;
  }
  return box;
}

function describeMp4(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const top = children(bytes, 0, bytes.byteLength).map((b) => b.type);
  const mvhd = find(bytes, ["moov", "mvhd"]);
  const timescale = view.getUint32(mvhd.body + 12);
  const duration = view.getUint32(mvhd.body + 16);
  const stbl = ["moov", "trak", "mdia", "minf", "stbl"];
  const stsd = find(bytes, [...stbl, "stsd"]);
  const tkhd = find(bytes, ["moov", "trak", "tkhd"]);
  const stss = find(bytes, [...stbl, "stss"]);
  return {
    top,
    seconds: duration / timescale,
    sampleEntries: children(bytes, stsd.body + 8, stsd.end).map((b) => b.type),
    width: view.getUint32(tkhd.body + 76) >>> 16,
    height: view.getUint32(tkhd.body + 80) >>> 16,
    keyframes: view.getUint32(stss.body + 4),
  };
}

function call(options: Partial<VideoCallOptions>): VideoCallOptions {
  return {
    prompt: "sunset over the mountains",
    n: 1,
    aspectRatio: undefined,
    resolution: undefined,
    duration: undefined,
    fps: undefined,
    seed: 3,
    image: undefined,
    frameImages: undefined,
    inputReferences: undefined,
    generateAudio: undefined,
    providerOptions: {},
    ...options,
  };
}

const posterOf = (metadata: unknown) => Buffer.from((metadata as { demo: { poster: string } }).demo.poster, "base64");

async function pixels(png: Uint8Array): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function meanSaturation(rgb: Buffer): number {
  let sum = 0;
  for (let i = 0; i < rgb.length; i += 3)
    sum += Math.max(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!) - Math.min(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
  return sum / (rgb.length / 3);
}

// Each test renders and encodes real clips: seconds, not milliseconds.
describe("demo video model", { timeout: 60_000 }, () => {
  it("makes a 5 s H.264 MP4 through the AI SDK, reporting progress and letting other work run", async () => {
    const progress: number[] = [];
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const result = await generateVideo({
      model: createDemoVideoModel({ onProgress: (p) => progress.push(p) }),
      prompt: "a quiet ocean at dawn",
      seed: 9,
    }).finally(() => {
      counting = false;
    });

    expect(result.video.mediaType).toBe("video/mp4");
    const mp4 = result.video.uint8Array;
    expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe("ftyp");
    const info = describeMp4(mp4);
    expect(info.seconds).toBeCloseTo(5, 1);
    expect(info.sampleEntries).toEqual(["avc1"]);
    expect([info.width, info.height]).toEqual([768, 432]);
    // Seekable and streamable: keyframes are indexed and the index comes before the media.
    expect(info.keyframes).toBeGreaterThan(1);
    expect(info.top.indexOf("moov")).toBeLessThan(info.top.indexOf("mdat"));

    expect(result.providerMetadata.demo).toMatchObject({ width: 768, height: 432, durationMs: 5000, fps: 24 });
    const still = await pixels(posterOf(result.providerMetadata));
    expect([still.width, still.height]).toEqual([768, 432]);
    // The poster alone is the clip's own: the styles' test below compares posters without rendering clips.
    const alone = await renderDemoPoster({
      prompt: "a quiet ocean at dawn",
      seed: 9,
      style: "cinematic",
      duration: 5,
      aspectRatio: "16:9",
    });
    expect(Buffer.from(alone).equals(posterOf(result.providerMetadata))).toBe(true);

    expect(progress.length).toBeGreaterThan(10);
    expect(progress.every((p, i) => p >= 0 && p <= 1 && (i === 0 || p >= progress[i - 1]!))).toBe(true);
    expect(progress.at(-1)).toBe(1);
    // One frame per turn of the event loop: 120 frames give waiting requests 120 chances to run.
    expect(turns).toBeGreaterThanOrEqual(120);
  });

  it("makes a 10 s square clip, and says which asked-for options it could not honour", async () => {
    const model = createDemoVideoModel();
    const { videos, providerMetadata, warnings } = await model.doGenerate!(
      call({ duration: 10, aspectRatio: "1:1", fps: 30, providerOptions: { demo: { style: "noir" } } }),
    );
    expect(warnings.map((w) => ("feature" in w ? w.feature : w.type)).sort()).toEqual(["fps", "style"]);
    const video = videos[0]!;
    if (video.type !== "binary") throw new Error("expected bytes");
    const info = describeMp4(video.data);
    expect(info.seconds).toBeCloseTo(10, 1);
    expect([info.width, info.height]).toEqual([576, 576]);
    expect(providerMetadata?.demo).toMatchObject({ width: 576, height: 576, durationMs: 10000, style: "cinematic" });
  });

  it("gives each style its own look", async () => {
    const results = [];
    for (const style of DEMO_VIDEO_STYLES) {
      const png = await renderDemoPoster({
        prompt: "sunset over the mountains",
        seed: 3,
        style,
        duration: 5,
        aspectRatio: "16:9",
      });
      results.push({ style, png: Buffer.from(png), still: await pixels(png) });
    }
    const unique = new Set(results.map((r) => r.png.toString("base64")));
    expect(unique.size).toBe(DEMO_VIDEO_STYLES.length);

    const byStyle = Object.fromEntries(results.map((r) => [r.style, r.still]));
    // Cinematic has letterbox bars: the top rows are black.
    const topRow = (still: { data: Buffer; width: number }) => {
      const row = still.data.subarray(0, still.width * 3);
      return row.reduce((a, b) => a + b, 0) / row.length;
    };
    expect(topRow(byStyle.cinematic!)).toBeLessThan(3);
    expect(topRow(byStyle.realistic!)).toBeGreaterThan(20);
    // Documentary is muted; abstract is vivid.
    expect(meanSaturation(byStyle.documentary!.data)).toBeLessThan(meanSaturation(byStyle.realistic!.data) * 0.75);
    expect(meanSaturation(byStyle.abstract!.data)).toBeGreaterThan(meanSaturation(byStyle.documentary!.data) * 1.5);
  });

  it("gives the same bytes for the same request", async () => {
    const model = createDemoVideoModel();
    const options = call({ prompt: "abstract shapes", seed: 8, providerOptions: { demo: { style: "abstract" } } });
    const bytes = async () => {
      const video = (await model.doGenerate!(options)).videos[0]!;
      if (video.type !== "binary") throw new Error("expected bytes");
      return Buffer.from(video.data);
    };
    expect((await bytes()).equals(await bytes())).toBe(true);
  });

  it("stops rendering soon after the caller aborts", async () => {
    const controller = new AbortController();
    const progress: number[] = [];
    const model = createDemoVideoModel({
      onProgress: (p) => {
        progress.push(p);
        if (p >= 0.2) controller.abort(new Error("cancelled by user"));
      },
    });
    await expect(model.doGenerate!(call({ duration: 10, abortSignal: controller.signal }))).rejects.toThrow(
      "cancelled by user",
    );
    expect(Math.max(...progress)).toBeLessThan(0.25);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createDemoVideoModel().doGenerate!(call({ abortSignal: controller.signal }))).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  describe("image to video", () => {
    const start = () => renderDemoImage({ prompt: "a lighthouse on a cliff", seed: 2, width: 400, height: 240 });
    const end = () => renderDemoImage({ prompt: "neon city at night", seed: 6, width: 300, height: 300 });

    /** An 8×8 thumbnail's RGB values, for comparing pictures by their broad colours. */
    async function thumb(rgb: Uint8Array, width: number, height: number, channels: 3 | 4): Promise<Buffer> {
      return sharp(rgb, { raw: { width, height, channels } })
        .removeAlpha()
        .resize(8, 8, { fit: "fill" })
        .raw()
        .toBuffer();
    }
    const cover = async (png: Uint8Array, width: number, height: number) => {
      const fitted = await sharp(png).resize(width, height, { fit: "cover" }).removeAlpha().png().toBuffer();
      return sharp(fitted).resize(8, 8, { fit: "fill" }).raw().toBuffer();
    };
    const distance = (a: Buffer, b: Buffer) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]!), 0) / a.length;

    it("moves from the start image to the end image, as the AI SDK passes them", async () => {
      const [first, last] = [await start(), await end()];
      const progress: number[] = [];
      const result = await generateVideo({
        model: createDemoVideoModel({ onProgress: (p) => progress.push(p) }),
        prompt: { image: first, text: "the light turns on" },
        frameImages: [{ image: last, frameType: "last_frame" }],
        aspectRatio: "1:1",
        duration: 5,
        seed: 4,
      });
      const info = describeMp4(result.video.uint8Array);
      expect(info.seconds).toBeCloseTo(5, 1);
      expect([info.width, info.height]).toEqual([576, 576]);
      expect(info.sampleEntries).toEqual(["avc1"]);
      expect(progress.at(-1)).toBe(1);
      expect(result.warnings).toEqual([]);

      // The frames the encoder was given: the first is the start image, the last the end image, cover-fitted.
      const frames = await demoVideoFrames({
        prompt: "the light turns on",
        seed: 4,
        style: "cinematic",
        duration: 5,
        aspectRatio: "1:1",
        startImage: { type: "file", data: first, mediaType: "image/png" },
        endImage: { type: "file", data: last, mediaType: "image/png" },
      });
      const [a, b] = [await cover(first, 576, 576), await cover(last, 576, 576)];
      const opening = await thumb(frames.draw(0), 576, 576, 4);
      const closing = await thumb(frames.draw(frames.count - 1), 576, 576, 4);
      expect(distance(opening, a)).toBeLessThan(4);
      expect(distance(closing, b)).toBeLessThan(4);
      expect(distance(a, b)).toBeGreaterThan(20);
      // The poster is the frame one second in.
      const poster = await pixels(posterOf(result.providerMetadata));
      const second = await thumb(frames.draw(frames.posterIndex), 576, 576, 4);
      expect(distance(await thumb(poster.data, 576, 576, 3), second)).toBeLessThan(2);
    });

    it("moves across a lone start image, in the offered shape nearest the image's, the same bytes each time", async () => {
      const model = createDemoVideoModel();
      const options = call({
        prompt: "slowly",
        seed: 5,
        image: { type: "file", data: Buffer.from(await start()).toString("base64"), mediaType: "image/png" },
      });
      const bytes = async () => {
        const { videos, providerMetadata, warnings } = await model.doGenerate!(options);
        expect(warnings).toEqual([]);
        expect(providerMetadata?.demo).toMatchObject({ width: 768, height: 432 });
        const video = videos[0]!;
        if (video.type !== "binary") throw new Error("expected bytes");
        return Buffer.from(video.data);
      };
      const once = await bytes();
      expect(describeMp4(once).seconds).toBeCloseTo(5, 1);
      expect(once.equals(await bytes())).toBe(true);
      // The camera moves: the clip does not end where it began.
      const frames = await demoVideoFrames({
        prompt: "slowly",
        seed: 5,
        style: "cinematic",
        duration: 5,
        aspectRatio: "16:9",
        startImage: { type: "file", data: await start(), mediaType: "image/png" },
      });
      const opening = await thumb(frames.draw(0).slice(), 768, 432, 4);
      const closing = await thumb(frames.draw(frames.count - 1), 768, 432, 4);
      expect(distance(opening, await cover(await start(), 768, 432))).toBeLessThan(4);
      expect(distance(opening, closing)).toBeGreaterThan(2);
    });

    it("takes a start image tagged as the first frame, and refuses an end image alone, a URL and bytes that are not an image", async () => {
      const model = createDemoVideoModel();
      const image = { type: "file" as const, data: await end(), mediaType: "image/png" };
      // A start image given only as the first of the frame images is the start image all the same.
      const both = await model.doGenerate!(
        call({
          aspectRatio: "9:16",
          frameImages: [
            { image, frameType: "first_frame" },
            { image, frameType: "last_frame" },
          ],
        }),
      );
      expect(both.warnings).toEqual([]);
      expect(both.providerMetadata?.demo).toMatchObject({ width: 432, height: 768 });
      await expect(model.doGenerate!(call({ frameImages: [{ image, frameType: "last_frame" }] }))).rejects.toThrow(
        /needs a start image/,
      );
      await expect(
        model.doGenerate!(call({ image: { type: "url", url: "https://example.com/a.png" } })),
      ).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(
        model.doGenerate!(call({ image: { type: "file", data: new Uint8Array([1, 2]), mediaType: "image/png" } })),
      ).rejects.toThrow(/start image could not be read/);
    });
  });
});
