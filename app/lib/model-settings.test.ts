import { describe, expect, it } from "vitest";
import type { ParameterField } from "#common/model-parameters.ts";
import { changedSettings, defaultSettings, isFormula, lowestUnitCredits } from "./model-settings.ts";

const fields: ParameterField[] = [
  { name: "guidance_scale", type: "number", label: "Guidance", default: 3.5, minimum: 1, maximum: 20 },
  { name: "quality", type: "string", label: "Quality", choices: ["low", "high"], default: "low" },
  { name: "safety", type: "boolean", label: "Safety checker", default: true },
  { name: "negative", type: "string", label: "Style words" },
];

describe("a model's advanced settings in the studio", () => {
  it("starts from the fields' defaults", () => {
    expect(defaultSettings(fields)).toEqual({ guidance_scale: 3.5, quality: "low", safety: true });
    expect(defaultSettings(undefined)).toEqual({});
  });

  it("sends only what differs from the defaults, and nothing when all are left", () => {
    expect(changedSettings(fields, defaultSettings(fields))).toBeUndefined();
    expect(changedSettings(fields, { guidance_scale: 3.5, quality: "high", safety: false, negative: "" })).toEqual({
      quality: "high",
      safety: false,
    });
    expect(changedSettings(fields, { negative: "blur", guidance_scale: undefined })).toEqual({ negative: "blur" });
  });
});

describe("the model picker's price label", () => {
  it("is a formula when settings multiply it or a minimum applies", () => {
    expect(isFormula({ unit: "image", credits: 2 })).toBe(false);
    expect(isFormula({ unit: "image", credits: 2, multipliers: {} })).toBe(false);
    expect(isFormula({ unit: "image", credits: 2, minimum: 5 })).toBe(true);
    expect(isFormula({ unit: "video", credits: 5, multipliers: { resolution: { "1080p": 2 } } })).toBe(true);
  });

  it("starts from the cheapest factor of each setting, never above the base", () => {
    expect(lowestUnitCredits({ unit: "image", credits: 4, multipliers: { resolution: { "1080p": 2 } } })).toBe(4);
    expect(
      lowestUnitCredits({
        unit: "videoSecond",
        credits: 3,
        multipliers: { resolution: { "480p": 0.5, "1080p": 2 }, audio: { true: 1.5 } },
      }),
    ).toBe(1.5);
    expect(lowestUnitCredits({ unit: "image", credits: 1, multipliers: { quality: { low: 1 / 3 } } })).toBe(0.33);
  });
});
