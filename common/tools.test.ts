import { describe, expect, it } from "vitest";
import { GENERATION_TOOLS, TOOLS, inferTools, isTool, toolOfHash, toolPath, toolsOfKind } from "./tools.ts";
import { submitSchema } from "./generation.ts";

describe("the table of tools", () => {
  it("gives each tool a distinct fixed 8-hex hash, the three first ones as they always were", () => {
    const hashes = TOOLS.map((t) => t.hash);
    expect(new Set(hashes).size).toBe(hashes.length);
    for (const h of hashes) expect(h).toMatch(/^[0-9a-f]{8}$/);
    expect(toolPath("text-to-image")).toBe("/dashboard/image/7595af7e");
    expect(toolPath("image-to-image")).toBe("/dashboard/image/927fb8ad");
    expect(toolPath("text-to-video")).toBe("/dashboard/video/5afe14a8");
  });

  it("finds a tool by its hash only under its own kind", () => {
    expect(toolOfHash("5afe14a8", "video")).toBe("text-to-video");
    expect(toolOfHash("5afe14a8", "image")).toBeUndefined();
    expect(toolOfHash("fb0e7e3a", "video")).toBe("image-to-video");
    expect(toolOfHash("deadbeef")).toBeUndefined();
    expect(isTool("upscale")).toBe(true);
    expect(isTool("colorize")).toBe(false);
    expect(toolsOfKind("video")).toEqual(["text-to-video", "image-to-video"]);
  });

  it("builds one request shape per tool: what a tool does not take is an unknown field", () => {
    expect(GENERATION_TOOLS).toHaveLength(TOOLS.length);
    const ok = submitSchema.safeParse({ tool: "upscale", model: "m", inputAssetId: crypto.randomUUID(), scale: "4" });
    expect(ok.success && ok.data).toMatchObject({ tool: "upscale", prompt: "", scale: 4 });
    const noPrompt = submitSchema.safeParse({ tool: "remove-background", model: "m", prompt: "x" });
    expect(noPrompt.success).toBe(false);
    const mask = submitSchema.safeParse({
      tool: "text-to-image",
      model: "m",
      prompt: "x",
      maskAssetId: crypto.randomUUID(),
    });
    expect(mask.success).toBe(false);
    const video = submitSchema.safeParse({
      tool: "image-to-video",
      model: "m",
      prompt: "x",
      endUrl: "https://e.example/a.png",
    });
    expect(video.success && video.data).toMatchObject({ duration: 5, aspectRatio: "16:9", style: "cinematic" });
  });

  it("infers the tools a model serves from its inputs", () => {
    const base = { prompt: true, image: false, mask: false, scale: false };
    expect(inferTools("image", base)).toEqual(["text-to-image"]);
    expect(inferTools("image", { ...base, image: true })).toEqual(["text-to-image", "image-to-image"]);
    expect(inferTools("image", { ...base, image: true, imageRequired: true })).toEqual(["image-to-image"]);
    expect(inferTools("image", { ...base, image: true, imageRequired: true, mask: true })).toEqual([
      "inpaint",
      "outpaint",
    ]);
    expect(inferTools("image", { ...base, prompt: false, image: true, imageRequired: true, scale: true })).toEqual([
      "upscale",
    ]);
    expect(inferTools("image", { ...base, prompt: false, image: true, imageRequired: true })).toEqual([
      "remove-background",
    ]);
    expect(inferTools("video", base)).toEqual(["text-to-video"]);
    expect(inferTools("video", { ...base, image: true, imageRequired: true })).toEqual(["image-to-video"]);
    expect(inferTools("video", { ...base, image: true })).toEqual(["text-to-video", "image-to-video"]);
  });
});
