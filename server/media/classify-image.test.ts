import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import {
  CLASSIFIER_CATEGORIES,
  classificationVerdict,
  classifyImage,
  stopClassifier,
  type ClassifierScores,
} from "#server/media/classify-image.ts";

const flat = (background: string) =>
  sharp({ create: { width: 1024, height: 1024, channels: 3, background } })
    .png()
    .toBuffer();

/** A left-to-right blue-to-orange gradient, as JPEG: a plain graphic, not a photograph of anyone. */
async function gradient(): Promise<Buffer> {
  const width = 512;
  const height = 384;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = x / (width - 1);
      const i = (y * width + x) * 3;
      raw[i] = Math.round(40 + 200 * t);
      raw[i + 1] = Math.round(90 + 60 * t);
      raw[i + 2] = Math.round(220 - 180 * t);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg()
    .toBuffer();
}

const sum = (scores: ClassifierScores) => CLASSIFIER_CATEGORIES.reduce((total, c) => total + scores[c], 0);
const top = (scores: ClassifierScores) => [...CLASSIFIER_CATEGORIES].sort((a, b) => scores[b] - scores[a])[0];

// The model loads in the worker on the first image (a couple of seconds), then each image takes about one.
describe("classifyImage", { timeout: 60_000 }, () => {
  afterAll(() => stopClassifier());

  it("scores plain generated pictures as drawing or neutral, and does not flag them", async () => {
    for (const bytes of [await flat("#3366cc"), await gradient()]) {
      const { scores, ms } = await classifyImage(bytes);
      expect(Object.keys(scores).sort()).toEqual([...CLASSIFIER_CATEGORIES]);
      expect(sum(scores)).toBeCloseTo(1, 3);
      expect(["drawing", "neutral"]).toContain(top(scores));
      expect(classificationVerdict(scores, "standard")).toEqual({ flagged: false, categories: [] });
      expect(classificationVerdict(scores, "strict")).toEqual({ flagged: false, categories: [] });
      expect(ms).toBeGreaterThan(0);
    }
  });

  it("answers every one of several images asked for at once, each with its own scores", async () => {
    const images = await Promise.all(["#3366cc", "#ffffff", "#202020", "#cc3333"].map(flat));
    const results = await Promise.all(images.map((bytes) => classifyImage(bytes)));
    expect(results).toHaveLength(4);
    for (const { scores } of results) expect(sum(scores)).toBeCloseTo(1, 3);
    // Different pictures, different answers: no reply went to another image's caller.
    expect(new Set(results.map(({ scores }) => scores.neutral)).size).toBeGreaterThan(1);
  });

  it("refuses bytes that are not an image, with a message that says so", async () => {
    await expect(classifyImage(new TextEncoder().encode("not an image at all"))).rejects.toThrow(
      /could not read the image/,
    );
    await expect(classifyImage(new Uint8Array())).rejects.toThrow(/could not read the image/);
  });

  it("rejects the images waiting when the worker stops, and starts a new one for the next", async () => {
    const bytes = await flat("#3366cc");
    const waiting = classifyImage(bytes);
    // Let the image reach the worker's queue before stopping it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = expect(waiting).rejects.toThrow(/stopped/);
    await stopClassifier();
    await refused;
    const { scores } = await classifyImage(bytes);
    expect(sum(scores)).toBeCloseTo(1, 3);
  });
});

describe("classificationVerdict", () => {
  const scores = (s: Partial<ClassifierScores>): ClassifierScores => ({
    drawing: 0,
    hentai: 0,
    neutral: 0,
    porn: 0,
    sexy: 0,
    ...s,
  });

  it("flags explicit content at the standard level, naming what counted, highest first", () => {
    expect(classificationVerdict(scores({ porn: 0.9, neutral: 0.1 }), "standard")).toEqual({
      flagged: true,
      categories: ["porn"],
    });
    // Split between the two explicit classes: neither alone passes, their sum does.
    expect(classificationVerdict(scores({ hentai: 0.4, porn: 0.35, drawing: 0.25 }), "standard")).toEqual({
      flagged: true,
      categories: ["hentai", "porn"],
    });
  });

  it("lets suggestive content through at the standard level and holds it back at the strict one", () => {
    const swimsuit = scores({ sexy: 0.6, neutral: 0.3, porn: 0.1 });
    expect(classificationVerdict(swimsuit, "standard")).toEqual({ flagged: false, categories: [] });
    expect(classificationVerdict(swimsuit, "strict")).toEqual({ flagged: true, categories: ["sexy"] });
  });

  it("leaves out of a flag's reasons a counted category that carried little of the score", () => {
    expect(classificationVerdict(scores({ porn: 0.5, sexy: 0.1, hentai: 0.05, neutral: 0.35 }), "strict")).toEqual({
      flagged: true,
      categories: ["porn"],
    });
  });

  it("does not flag safe pictures at either level", () => {
    const safe = scores({ neutral: 0.7, drawing: 0.2, sexy: 0.05, porn: 0.03, hentai: 0.02 });
    expect(classificationVerdict(safe, "standard").flagged).toBe(false);
    expect(classificationVerdict(safe, "strict").flagged).toBe(false);
  });
});
