import { describe, expect, it } from "vitest";
import { modelCatalog } from "#config/models.ts";
import { costOf } from "#common/generation.ts";
import { priceOf } from "#common/model-parameters.ts";
import { UPSCALE_FACTORS } from "#common/tools.ts";
import { parseEnv } from "#server/env.ts";
import { builtInDefinitions } from "#server/modules/catalog/catalog.ts";
import { modelDefinitionSchema } from "#server/modules/catalog/model-definition.ts";

describe("the built-in models as definitions", () => {
  const definitions = builtInDefinitions(parseEnv({}));

  it("parses every built-in model, keeping its settings, its mapping and its price formula", () => {
    for (const model of modelCatalog) {
      const definition = definitions.get(model.id);
      expect(definition, model.id).toBeDefined();
      expect(modelDefinitionSchema.safeParse(definition).success, model.id).toBe(true);
      expect(definition).toMatchObject({ kind: model.kind, tools: model.tools, price: model.price });
      if (model.parameters) expect(definition).toMatchObject({ parameters: model.parameters });
      expect(definition!.bindings.map((b) => ("mapping" in b ? b.mapping : undefined))).toEqual(
        model.bindings.map((b) => b.mapping),
      );
      expect(definition!.bindings.map((b) => ("toolModels" in b ? b.toolModels : undefined))).toEqual(
        model.bindings.map((b) => b.toolModels),
      );
    }
  });

  it("prices only what a model offers, with a multiplier for values it takes", () => {
    for (const model of modelCatalog) {
      for (const [setting, table] of Object.entries(model.price.multipliers ?? {})) {
        const values = Object.keys(table);
        if (setting === "resolution")
          expect(model.options.resolutions, model.id).toEqual(expect.arrayContaining(values));
        else if (setting === "audio") expect(model.options.audio, model.id).toBe(true);
        else if (setting === "scale") {
          expect(model.tools, model.id).toContain("upscale");
          expect(UPSCALE_FACTORS.map(String), model.id).toEqual(expect.arrayContaining(values));
        } else {
          const field = model.parameters?.find((f) => f.name === setting);
          expect(field, `${model.id}: ${setting}`).toBeDefined();
          if (field?.choices) expect(field.choices.map(String), model.id).toEqual(expect.arrayContaining(values));
        }
      }
      // The default request costs at least one credit.
      const duration = model.options.durations?.[0];
      expect(costOf(model, { aspectRatio: "1:1", count: 1, duration }), model.id).toBeGreaterThanOrEqual(1);
    }
  });

  it("charges more for what costs the provider more", () => {
    const model = (id: string) => modelCatalog.find((m) => m.id === id)!;
    const wan = model("wan-2-5");
    const at = (resolution: string) => costOf(wan, { aspectRatio: "16:9", count: 1, duration: 5, resolution });
    expect([at("480p"), at("720p"), at("1080p")]).toEqual([33, 65, 98]);
    const ideogram = model("ideogram-3");
    const speed = (rendering_speed: string) =>
      costOf(ideogram, { aspectRatio: "1:1", count: 2, options: { rendering_speed } });
    expect([speed("TURBO"), speed("BALANCED"), speed("QUALITY")]).toEqual([8, 16, 24]);
    const seedance = model("seedance-1-5-pro");
    const sound = (audio: boolean) => costOf(seedance, { aspectRatio: "16:9", count: 1, duration: 10, audio });
    expect(sound(true)).toBe(2 * sound(false));
    // fal bills Clarity per megapixel made: four times the pixels at ×4 as at ×2.
    const clarity = model("clarity-upscaler");
    expect(priceOf(clarity.price, { count: 1, scale: 4 })).toBe(4 * priceOf(clarity.price, { count: 1, scale: 2 }));
  });
});
