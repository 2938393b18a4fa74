import { describe, expect, it } from "vitest";
import { readPrompt, toHsl, type Rgb } from "#server/providers/demo/prompt.ts";

const hue = (c: Rgb) => toHsl(c)[0];
const isReddish = (c: Rgb) => {
  const [h, s] = toHsl(c);
  return s > 0.15 && (h < 25 || h > 335);
};

describe("reading a prompt", () => {
  it.each([
    ["sunset over the mountains", "mountains", "golden"],
    ["a quiet ocean at dawn", "sea", "golden"],
    ["neon city at night", "city", "night"],
    ["a galaxy far away", "cosmos", "night"],
    ["misty pine forest", "forest", "day"],
    ["desert dunes at noon", "dunes", "day"],
    ["abstract gradient wallpaper", "abstract", expect.any(String)],
  ])("%s → %s", (prompt, composition, time) => {
    expect(readPrompt(prompt, undefined, 1)).toMatchObject({ composition, time });
  });

  it("understands a few words beyond English", () => {
    expect(readPrompt("Sonnenuntergang am Meer", undefined, 1)).toMatchObject({ composition: "sea", time: "golden" });
    expect(readPrompt("夜の海", undefined, 1)).toMatchObject({ composition: "sea", time: "night" });
    expect(readPrompt("forêt en automne", undefined, 1)).toMatchObject({ composition: "forest", time: "golden" });
  });

  it("colours the scene with the colours the prompt names", () => {
    const accents = readPrompt("a blue forest", undefined, 1).palette.accents;
    expect(accents.every((c) => Math.abs(hue(c) - 214) < 15)).toBe(true);
  });

  it("gives a synthwave sun to neon scenes and a moon to plain nights", () => {
    expect(readPrompt("synthwave mountains", undefined, 1)).toMatchObject({ neon: true, elements: { sun: true } });
    expect(readPrompt("a lake at night", undefined, 1)).toMatchObject({ elements: { sun: false, moon: true } });
  });

  it("leaves out what the negative prompt names", () => {
    expect(readPrompt("mountain lake", "mountains", 1).composition).toBe("sea");
    expect(readPrompt("a lake at night", "stars, moon", 1).elements).toMatchObject({ stars: false, moon: false });
    const palette = readPrompt("red sunset", "red", 1).palette;
    const colours = [palette.skyTop, palette.skyMid, palette.skyHorizon, ...palette.land, ...palette.accents];
    expect(colours.filter(isReddish)).toEqual([]);
    const plain = readPrompt("red sunset", undefined, 1).palette;
    expect([plain.skyTop, plain.skyMid, plain.skyHorizon, ...plain.land, ...plain.accents].some(isReddish)).toBe(true);
  });

  it("matches whole words, so a season is not the sea", () => {
    expect(readPrompt("the holiday season", undefined, 1).composition).not.toBe("sea");
    expect(readPrompt("seaside", "sea", 1).composition).not.toBe("sea");
  });
});
