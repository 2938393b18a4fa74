import { describe, expect, it } from "vitest";
import { checkParameters, priceOf, type ParameterField } from "./model-parameters.ts";

const fields: ParameterField[] = [
  { name: "guidance_scale", type: "number", label: "Guidance", minimum: 1, maximum: 20, default: 3.5 },
  { name: "num_inference_steps", type: "integer", label: "Steps", minimum: 1, maximum: 50, default: 28 },
  { name: "enable_safety_checker", type: "boolean", label: "Safety checker", default: true },
  { name: "quality", type: "string", label: "Quality", choices: ["low", "medium", "high"], default: "medium" },
];

describe("checkParameters", () => {
  it("reads form strings as the field's type and adds the defaults of fields left out", () => {
    expect(checkParameters(fields, { guidance_scale: "7", enable_safety_checker: "false" })).toEqual({
      ok: true,
      values: { guidance_scale: 7, enable_safety_checker: false, num_inference_steps: 28, quality: "medium" },
    });
  });
  it("refuses a setting the model does not declare, a wrong type, a value out of range or not a choice", () => {
    expect(checkParameters(fields, { cfg: 3 })).toMatchObject({ ok: false, field: "cfg", reason: "unknown" });
    expect(checkParameters(fields, { num_inference_steps: 2.5 })).toMatchObject({ ok: false, reason: "type" });
    expect(checkParameters(fields, { guidance_scale: 21 })).toMatchObject({ ok: false, reason: "range" });
    expect(checkParameters(fields, { guidance_scale: 0.5 })).toMatchObject({ ok: false, reason: "range" });
    expect(checkParameters(fields, { quality: "ultra" })).toMatchObject({ ok: false, reason: "choice" });
    expect(checkParameters(fields, { enable_safety_checker: "maybe" })).toMatchObject({ ok: false, reason: "type" });
  });
  it("takes nothing for a model without fields", () => {
    expect(checkParameters(undefined, undefined)).toEqual({ ok: true, values: {} });
    expect(checkParameters(undefined, { steps: 1 })).toMatchObject({ ok: false, reason: "unknown" });
  });
});

describe("priceOf", () => {
  it("charges per image times the count, per video, or per second", () => {
    expect(priceOf({ unit: "image", credits: 3 }, { count: 4 })).toBe(12);
    expect(priceOf({ unit: "video", credits: 40 }, { count: 1, duration: 10 })).toBe(40);
    expect(priceOf({ unit: "videoSecond", credits: 6 }, { count: 1, duration: 10 })).toBe(60);
  });
  it("multiplies by the values a formula names, common or advanced, and leaves other values alone", () => {
    const price = {
      unit: "videoSecond" as const,
      credits: 5,
      multipliers: { resolution: { "1080p": 2 }, audio: { true: 1.5 }, quality: { high: 3 } },
    };
    expect(priceOf(price, { count: 1, duration: 5, resolution: "720p" })).toBe(25);
    expect(priceOf(price, { count: 1, duration: 5, resolution: "1080p" })).toBe(50);
    expect(priceOf(price, { count: 1, duration: 10, resolution: "1080p", audio: true })).toBe(150);
    expect(priceOf(price, { count: 1, duration: 5, options: { quality: "high" } })).toBe(75);
    expect(
      priceOf({ unit: "video", credits: 10, multipliers: { duration: { "10": 2 } } }, { count: 1, duration: 10 }),
    ).toBe(20);
    expect(priceOf({ unit: "image", credits: 2, multipliers: { count: { "4": 0.75 } } }, { count: 4 })).toBe(6);
  });
  it("multiplies an upscale by its factor where the formula names the scale", () => {
    const price = { unit: "image" as const, credits: 12, multipliers: { scale: { "4": 4 } } };
    expect(priceOf(price, { count: 1, scale: 2 })).toBe(12);
    expect(priceOf(price, { count: 1, scale: 4 })).toBe(48);
    expect(priceOf(price, { count: 1 })).toBe(12);
  });
  it("rounds up to whole credits past floating-point noise, and keeps the minimum", () => {
    expect(
      priceOf(
        { unit: "videoSecond", credits: 0.1, multipliers: { duration: { "10": 3 } } },
        { count: 1, duration: 10 },
      ),
    ).toBe(3);
    expect(priceOf({ unit: "image", credits: 1.2 }, { count: 3 })).toBe(4);
    expect(priceOf({ unit: "image", credits: 1, minimum: 5 }, { count: 2 })).toBe(5);
    expect(priceOf({ unit: "image", credits: 0 }, { count: 2 })).toBe(0);
  });
});
