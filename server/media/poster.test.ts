import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { posterFrame } from "#server/media/poster.ts";
import { renderDemoVideo } from "#server/providers/demo/video-model.ts";

const hasFfmpeg = spawnSync("ffmpeg", ["-version"], { stdio: "ignore" }).error === undefined;

describe("poster frames", { timeout: 60_000 }, () => {
  const path = process.env.PATH;
  let video: Uint8Array;
  beforeAll(async () => {
    const clip = await renderDemoVideo({
      prompt: "a quiet ocean at dawn",
      seed: 1,
      style: "realistic",
      duration: 5,
      aspectRatio: "16:9",
    });
    video = clip.mp4;
  });
  afterEach(() => {
    process.env.PATH = path;
  });

  it("returns null, never throws, for bytes that are not a video", async () => {
    await expect(posterFrame(new Uint8Array())).resolves.toBeNull();
    await expect(posterFrame(new TextEncoder().encode("not a video at all"))).resolves.toBeNull();
  });

  it(`${hasFfmpeg ? "makes a PNG still of" : "returns null without ffmpeg for"} a demo video`, async () => {
    const still = await posterFrame(video);
    if (!hasFfmpeg) {
      expect(still).toBeNull();
      return;
    }
    expect(still).not.toBeNull();
    const meta = await sharp(still!).metadata();
    expect(meta).toMatchObject({ format: "png", width: 768, height: 432 });
  });

  it("returns null when no ffmpeg is on the PATH", async () => {
    const empty = await mkdtemp(join(tmpdir(), "no-ffmpeg-"));
    try {
      process.env.PATH = empty;
      await expect(posterFrame(video)).resolves.toBeNull();
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
