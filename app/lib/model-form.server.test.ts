import { describe, expect, it } from "vitest";
import type { ParameterField } from "#common/model-parameters.ts";
import {
  EditorRefusal,
  mappingOfForm,
  optionsOfForm,
  parametersOfForm,
  priceOfForm,
  toolsOfForm,
  type MediaDefinition,
} from "./model-form.server.ts";

const formOf = (fields: [string, string][]) => {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  return form;
};
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof EditorRefusal) return { key: error.key, field: error.field };
    throw error;
  }
  return undefined;
};

const steps: ParameterField = {
  name: "num_inference_steps",
  type: "integer",
  label: "Steps",
  default: 28,
  minimum: 1,
  maximum: 50,
};
const safety: ParameterField = { name: "enable_safety_checker", type: "boolean", label: "Safety", default: true };

describe("the model editor's form", () => {
  it("reads a mapping: fields, named sizes per ratio, a list of images and a duration with its suffix", () => {
    const mapping = mappingOfForm(
      formOf([
        ["m.shown", "1"],
        ["m.prompt", "prompt"],
        ["m.seed", ""],
        ["m.aspectRatio", "image_size"],
        ["m.aspectRatio.as", "named"],
        ["m.aspectRatio.value.16:9", "landscape_16_9"],
        ["m.aspectRatio.value.1:1", ""],
        ["m.inputImage", "image_urls"],
        ["m.inputImage.list", "on"],
        ["m.duration", "duration"],
        ["m.duration.as", "string"],
        ["m.duration.suffix", "s"],
      ]),
      "m.",
    );
    expect(mapping).toEqual({
      prompt: "prompt",
      aspectRatio: { field: "image_size", values: { "16:9": "landscape_16_9" } },
      inputImage: { field: "image_urls", list: true },
      duration: { field: "duration", as: "string", suffix: "s" },
    });
    expect(
      mappingOfForm(
        formOf([
          ["m.shown", "1"],
          ["m.inputImage", "image_url"],
          ["m.mask", "mask_url"],
          ["m.scale", "upscale_factor"],
          ["m.endImage", "tail_image_url"],
        ]),
        "m.",
      ),
    ).toEqual({
      inputImage: { field: "image_url" },
      mask: "mask_url",
      scale: "upscale_factor",
      endImage: "tail_image_url",
    });
    expect(mappingOfForm(formOf([["m.shown", "1"]]), "m.")).toBeUndefined();
    expect(mappingOfForm(formOf([["m.prompt", "prompt"]]), "m.")).toBeUndefined();
    expect(
      refusal(() =>
        mappingOfForm(
          formOf([
            ["m.shown", "1"],
            ["m.seed", "a b"],
          ]),
          "m.",
        ),
      ),
    ).toEqual({
      key: "modelEditor.errors.field",
      field: "m.seed",
    });
    expect(
      refusal(() =>
        mappingOfForm(
          formOf([
            ["m.shown", "1"],
            ["m.aspectRatio", "image_size"],
            ["m.aspectRatio.as", "named"],
          ]),
          "m.",
        ),
      ),
    ).toEqual({ key: "modelEditor.errors.namedSizes", field: "m.aspectRatio.as" });
  });

  it("reads a formula: multipliers by setting and value, a minimum, the provider's cost; refuses what it cannot price", () => {
    const read = priceOfForm(
      formOf([
        ["price.unit", "videoSecond"],
        ["price.credits", "1,5"],
        ["price.minimum", "4"],
        ["price.cost", "0.07"],
        ["mult.0.setting", "resolution"],
        ["mult.0.value", "1080p"],
        ["mult.0.factor", "2"],
        ["mult.1.setting", "audio"],
        ["mult.1.value", "true"],
        ["mult.1.factor", "1.5"],
        ["mult.2.setting", ""],
        ["mult.2.value", ""],
        ["mult.2.factor", ""],
        ["mult.3.setting", "num_inference_steps"],
        ["mult.3.value", "50"],
        ["mult.3.factor", "3"],
      ]),
      [steps],
    );
    expect(read).toEqual({
      price: {
        unit: "videoSecond",
        credits: 1.5,
        minimum: 4,
        multipliers: { resolution: { "1080p": 2 }, audio: { true: 1.5 }, num_inference_steps: { "50": 3 } },
      },
      cost: 0.07,
    });
    const base: [string, string][] = [
      ["price.unit", "image"],
      ["price.credits", "2"],
    ];
    expect(priceOfForm(formOf(base), []).price).toEqual({ unit: "image", credits: 2 });
    const refused = (extra: [string, string][], settings: ParameterField[] = []) =>
      refusal(() => priceOfForm(formOf([...base, ...extra]), settings));
    expect(
      refusal(() =>
        priceOfForm(
          formOf([
            ["price.unit", "image"],
            ["price.credits", "-1"],
          ]),
          [],
        ),
      ),
    ).toEqual({
      key: "modelEditor.errors.credits",
      field: "price.credits",
    });
    expect(refused([["price.minimum", "2.5"]])).toEqual({ key: "modelEditor.errors.minimum", field: "price.minimum" });
    expect(
      refused([
        ["mult.0.setting", "guidance"],
        ["mult.0.value", "1"],
        ["mult.0.factor", "2"],
      ]),
    ).toEqual({
      key: "modelEditor.errors.setting",
      field: "mult.0.setting",
    });
    expect(
      refused([
        ["mult.0.setting", "count"],
        ["mult.0.value", ""],
        ["mult.0.factor", "2"],
      ]),
    ).toEqual({
      key: "modelEditor.errors.multiplierValue",
      field: "mult.0.value",
    });
    expect(
      refused([
        ["mult.0.setting", "count"],
        ["mult.0.value", "2"],
        ["mult.0.factor", "lots"],
      ]),
    ).toEqual({
      key: "modelEditor.errors.factor",
      field: "mult.0.factor",
    });
  });

  it("renames a setting, changes its default within its limits, and drops one", () => {
    const form = (fields: [string, string][]) =>
      formOf([
        ["params.shown", "1"],
        ["param.0.name", "num_inference_steps"],
        ["param.1.name", "enable_safety_checker"],
        ...fields,
      ]);
    expect(
      parametersOfForm(
        form([
          ["param.0.label", "Steps (more is slower)"],
          ["param.0.default", "40"],
          ["param.1.label", "Safety"],
          ["param.1.drop", "on"],
        ]),
        [steps, safety],
      ),
    ).toEqual([{ ...steps, label: "Steps (more is slower)", default: 40 }]);
    expect(
      parametersOfForm(
        form([
          ["param.0.label", "Steps"],
          ["param.0.default", ""],
          ["param.1.label", "Safety"],
          ["param.1.default", "false"],
        ]),
        [steps, safety],
      ),
    ).toEqual([
      { name: "num_inference_steps", type: "integer", label: "Steps", minimum: 1, maximum: 50 },
      { ...safety, default: false },
    ]);
    expect(
      refusal(() =>
        parametersOfForm(
          form([
            ["param.0.label", "Steps"],
            ["param.0.default", "99"],
            ["param.1.label", "S"],
          ]),
          [steps, safety],
        ),
      ),
    ).toEqual({ key: "modelEditor.errors.default", field: "param.0.default" });
    // Without the editor in the form, the model's settings stay as they are.
    expect(parametersOfForm(formOf([]), [steps])).toEqual([steps]);
  });

  it("reads the limits, keeping the model's own when the same values come back in another order", () => {
    const base = {
      kind: "video",
      options: {
        aspectRatios: ["9:16", "16:9"],
        maxCount: 1,
        durations: [5],
        negativePrompt: false,
        seed: true,
        strength: false,
      },
    } as unknown as MediaDefinition;
    const same = optionsOfForm(
      formOf([
        ["limits.shown", "1"],
        ["limits.aspectRatios", "16:9"],
        ["limits.aspectRatios", "9:16"],
        ["limits.durations", "5"],
      ]),
      base,
    );
    expect(same).toBe(base.options);
    expect(
      optionsOfForm(
        formOf([
          ["limits.shown", "1"],
          ["limits.aspectRatios", "1:1"],
          ["limits.durations", "5"],
          ["limits.durations", "10"],
          ["limits.resolutions", "720p, 1080p, 720p"],
          ["limits.audio", "on"],
        ]),
        base,
      ),
    ).toMatchObject({ aspectRatios: ["1:1"], durations: [5, 10], resolutions: ["720p", "1080p"], audio: true });
    expect(
      refusal(() =>
        optionsOfForm(
          formOf([
            ["limits.shown", "1"],
            ["limits.durations", "5"],
          ]),
          base,
        ),
      ),
    ).toEqual({
      key: "modelEditor.errors.aspectRatios",
      field: "limits.aspectRatios",
    });
  });

  it("reads the tools a model serves: at least one, each of its kind, unchanged when the editor was not shown", () => {
    const base = { kind: "video", tools: ["text-to-video"] } as unknown as MediaDefinition;
    const shown = (...tools: string[]) =>
      formOf([["limits.shown", "1"], ...tools.map((t): [string, string] => ["limits.tools", t])]);
    expect(toolsOfForm(shown("image-to-video", "text-to-video"), base)).toEqual(["text-to-video", "image-to-video"]);
    expect(toolsOfForm(shown("text-to-video"), base)).toBe(base.tools);
    expect(toolsOfForm(formOf([]), base)).toBe(base.tools);
    expect(refusal(() => toolsOfForm(shown(), base))).toEqual({
      key: "modelEditor.errors.tools",
      field: "limits.tools",
    });
    expect(refusal(() => toolsOfForm(shown("upscale"), base))).toEqual({
      key: "modelEditor.errors.tools",
      field: "limits.tools",
    });
  });
});
