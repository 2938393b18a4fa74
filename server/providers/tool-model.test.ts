import { describe, expect, it } from "vitest";
import { providerModelFor } from "#server/providers/tool-model.ts";
import { bindingSchema } from "#server/modules/catalog/model-definition.ts";

const mapping = { prompt: "prompt", duration: { field: "duration", as: "string" as const } };

describe("providerModelFor", () => {
  it("runs every tool on the binding's model and mapping when it names no other", () => {
    const binding = { model: "fal-ai/flux/dev", mapping };
    expect(providerModelFor(binding, "text-to-image")).toEqual({ model: "fal-ai/flux/dev", mapping });
    expect(providerModelFor(binding, "inpaint")).toEqual({ model: "fal-ai/flux/dev", mapping });
    expect(providerModelFor({ model: "owner/name" }, "upscale")).toEqual({ model: "owner/name" });
  });

  it("runs a tool on its own endpoint and mapping, the others on the binding's", () => {
    const i2v = { prompt: "prompt", inputImage: { field: "image_url" }, endImage: "tail_image_url" };
    const binding = {
      model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      mapping,
      toolModels: { "image-to-video": { model: "fal-ai/kling-video/v2.5-turbo/pro/image-to-video", mapping: i2v } },
    };
    expect(providerModelFor(binding, "image-to-video")).toEqual({
      model: "fal-ai/kling-video/v2.5-turbo/pro/image-to-video",
      mapping: i2v,
    });
    expect(providerModelFor(binding, "text-to-video")).toEqual({
      model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      mapping,
    });
  });

  it("keeps the binding's mapping for a tool's own model that has none", () => {
    const binding = { model: "a/text", mapping, toolModels: { upscale: { model: "a/upscale" } } };
    expect(providerModelFor(binding, "upscale")).toEqual({ model: "a/upscale", mapping });
  });

  it("reads imageToImageModel as the image-to-image tool's model, and toolModels over it", () => {
    const older = { model: "fal-ai/flux/dev", imageToImageModel: "fal-ai/flux/dev/image-to-image" };
    expect(providerModelFor(older, "image-to-image").model).toBe("fal-ai/flux/dev/image-to-image");
    expect(providerModelFor(older, "text-to-image").model).toBe("fal-ai/flux/dev");
    expect(providerModelFor(older, "inpaint").model).toBe("fal-ai/flux/dev");
    const both = { ...older, toolModels: { "image-to-image": { model: "fal-ai/flux/dev/redux" } } };
    expect(providerModelFor(both, "image-to-image").model).toBe("fal-ai/flux/dev/redux");
  });
});

describe("a binding's toolModels", () => {
  const binding = { provider: "fal", model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video" };

  it("takes a model and a mapping per tool", () => {
    const parsed = bindingSchema.parse({
      ...binding,
      toolModels: {
        "image-to-video": {
          model: "fal-ai/kling-video/v2.5-turbo/pro/image-to-video",
          mapping: { inputImage: { field: "image_url" }, endImage: "tail_image_url" },
        },
        upscale: { model: "fal-ai/clarity-upscaler" },
      },
    });
    expect(Object.keys(parsed.toolModels ?? {})).toEqual(["image-to-video", "upscale"]);
  });

  it("refuses a key that is not a tool, a model without an id, and a mapping it cannot read", () => {
    expect(bindingSchema.safeParse({ ...binding, toolModels: { "video-to-video": { model: "x/y" } } }).success).toBe(
      false,
    );
    expect(bindingSchema.safeParse({ ...binding, toolModels: { upscale: { model: " " } } }).success).toBe(false);
    expect(bindingSchema.safeParse({ ...binding, toolModels: { upscale: { model: "x/y", extra: 1 } } }).success).toBe(
      false,
    );
    expect(
      bindingSchema.safeParse({
        ...binding,
        toolModels: { upscale: { model: "x/y", mapping: { scale: "no spaces" } } },
      }).success,
    ).toBe(false);
  });
});
