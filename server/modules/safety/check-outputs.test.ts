import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { parseEnv } from "#server/env.ts";
import { checkOutputs, needsReview, type ImageClassifier } from "./check-outputs.ts";

const models = ModelRegistry.builtIn(parseEnv({}));
const png = async () =>
  new Uint8Array(
    await sharp({ create: { width: 32, height: 32, channels: 3, background: "#88aacc" } })
      .png()
      .toBuffer(),
  );

describe("output checks", () => {
  it("flags what the provider's own checker flagged, and what the classifier flags at the level", async () => {
    const seen: string[] = [];
    const classify: ImageClassifier = async (_bytes, level) => {
      seen.push(level);
      return {
        source: "classifier",
        flagged: level === "strict",
        categories: level === "strict" ? ["sexy"] : [],
        scores: { sexy: 0.6 },
      };
    };
    const image = { bytes: await png(), mediaType: "image/png" };
    const standard = await checkOutputs(
      { models, classify },
      { level: "standard", outputs: [image, { ...image, flagged: true }] },
    );
    expect(standard).toEqual([
      { source: "provider", flagged: true, categories: ["sexual"] },
      { source: "classifier", flagged: false, categories: [], scores: { sexy: 0.6 } },
    ]);
    expect(needsReview("standard", standard)).toBe(true);
    const strict = await checkOutputs({ models, classify }, { level: "strict", outputs: [image] });
    expect(strict).toEqual([{ source: "classifier", flagged: true, categories: ["sexy"], scores: { sexy: 0.6 } }]);
    expect(seen).toEqual(["standard", "standard", "strict"]);
  });

  it("checks a video by its poster, runs nothing at off, and holds for review at strict when a check fails", async () => {
    let calls = 0;
    const failing: ImageClassifier = async () => {
      calls++;
      throw new Error("no model");
    };
    const video = { bytes: new Uint8Array([0, 0, 0, 0]), mediaType: "video/mp4", poster: await png() };
    expect(await checkOutputs({ models, classify: failing }, { level: "off", outputs: [video] })).toEqual([]);
    expect(calls).toBe(0);
    const findings = await checkOutputs({ models, classify: failing }, { level: "standard", outputs: [video] });
    expect(findings).toEqual([{ source: "classifier", flagged: false, categories: [], unavailable: true }]);
    expect(calls).toBe(1);
    expect(needsReview("standard", findings)).toBe(false);
    expect(needsReview("strict", findings)).toBe(true);
  });
});
