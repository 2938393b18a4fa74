import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkParameters } from "#common/model-parameters.ts";
import { mappedInputs } from "#server/providers/map-inputs.ts";
import { mapSchema, type SchemaObject } from "./map-schema.ts";

type Doc = { components: { schemas: Record<string, SchemaObject> } };
const fixture = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../../tests/fakes/schemas/${path}`, import.meta.url), "utf8")) as {
    openapi: Doc;
    latest_version: { openapi_schema: Doc };
  };

const falFlux = fixture("fal/fal-ai__flux__dev.json").openapi.components.schemas;
const falKling = fixture("fal/fal-ai__kling-video__v2.5-turbo__pro__text-to-video.json").openapi.components.schemas;
const replicateFlux = fixture("replicate/black-forest-labs__flux-dev.json").latest_version.openapi_schema.components
  .schemas;

describe("fal's FLUX.1 [dev] schema", () => {
  const mapped = mapSchema({ $ref: "#/components/schemas/FluxDevInput" }, falFlux, "image");

  it("maps prompt, seed, count and the named image sizes onto the common parameters", () => {
    expect(mapped.tools).toEqual(["text-to-image"]);
    expect(mapped.unmet).toEqual([]);
    expect(mapped.mapping).toEqual({
      prompt: "prompt",
      seed: "seed",
      count: "num_images",
      aspectRatio: {
        field: "image_size",
        values: {
          "1:1": "square_hd",
          "4:3": "landscape_4_3",
          "3:4": "portrait_4_3",
          "16:9": "landscape_16_9",
          "9:16": "portrait_16_9",
        },
      },
    });
    expect(mapped.options).toEqual({
      aspectRatios: ["1:1", "4:3", "3:4", "16:9", "9:16"],
      maxCount: 4,
      negativePrompt: false,
      seed: true,
      strength: false,
    });
  });

  it("offers the rest as advanced settings in fal's order, without sync_mode", () => {
    expect(mapped.parameters.map((p) => p.name)).toEqual([
      "num_inference_steps",
      "guidance_scale",
      "enable_safety_checker",
      "output_format",
      "acceleration",
    ]);
    expect(mapped.parameters[0]).toEqual({
      name: "num_inference_steps",
      type: "integer",
      label: "Num Inference Steps",
      description: "The number of inference steps to perform.",
      default: 28,
      minimum: 1,
      maximum: 50,
    });
    expect(mapped.parameters[1]).toMatchObject({
      name: "guidance_scale",
      type: "number",
      label: "Guidance scale (CFG)",
      default: 3.5,
      minimum: 1,
      maximum: 20,
    });
    expect(mapped.parameters[2]).toMatchObject({ type: "boolean", default: true, label: "Enable Safety Checker" });
    expect(mapped.parameters[4]).toMatchObject({
      type: "string",
      choices: ["none", "regular", "high"],
      default: "none",
    });
  });

  it("gives fields the checker and the input mapping take as they are", () => {
    const checked = checkParameters(mapped.parameters, { guidance_scale: "5", acceleration: "high" });
    expect(checked).toEqual({
      ok: true,
      values: {
        guidance_scale: 5,
        acceleration: "high",
        num_inference_steps: 28,
        enable_safety_checker: true,
        output_format: "jpeg",
      },
    });
    expect(checkParameters(mapped.parameters, { num_inference_steps: 80 }).ok).toBe(false);
    const sent = mappedInputs(
      mapped.mapping,
      { prompt: "a fox", aspectRatio: "16:9", count: 2, seed: 7 },
      checked.ok ? checked.values : {},
    );
    expect(sent).toMatchObject({ prompt: "a fox", image_size: "landscape_16_9", num_images: 2, seed: 7 });
  });
});

describe("fal's Kling 2.5 Turbo Pro schema", () => {
  const mapped = mapSchema(falKling.KlingVideoV25TurboProTextToVideoInput!, falKling, "video");

  it("maps the duration enum as strings, the ratios and the negative prompt", () => {
    expect(mapped.tools).toEqual(["text-to-video"]);
    expect(mapped.unmet).toEqual([]);
    expect(mapped.mapping).toEqual({
      prompt: "prompt",
      negativePrompt: "negative_prompt",
      aspectRatio: { field: "aspect_ratio" },
      duration: { field: "duration", as: "string" },
    });
    expect(mapped.options).toMatchObject({
      aspectRatios: ["16:9", "9:16", "1:1"],
      durations: [5, 10],
      negativePrompt: true,
      maxCount: 1,
    });
    expect(mapped.parameters).toEqual([
      {
        name: "cfg_scale",
        type: "number",
        label: "Cfg Scale",
        description:
          "The CFG (Classifier Free Guidance) scale is a measure of how close you want the model to stick to your prompt.",
        default: 0.5,
        minimum: 0,
        maximum: 1,
      },
    ]);
    expect(mappedInputs(mapped.mapping, { prompt: "waves", aspectRatio: "9:16", duration: 10 }, {})).toEqual({
      prompt: "waves",
      aspect_ratio: "9:16",
      duration: "10",
    });
  });
});

describe("Replicate's black-forest-labs/flux-dev schema", () => {
  const mapped = mapSchema(replicateFlux.Input!, replicateFlux, "image");

  it("reads allOf enums, x-order, the input image and its strength", () => {
    expect(mapped.tools).toEqual(["text-to-image", "image-to-image"]);
    expect(mapped.unmet).toEqual([]);
    expect(mapped.mapping).toEqual({
      prompt: "prompt",
      aspectRatio: { field: "aspect_ratio" },
      inputImage: { field: "image" },
      strength: "prompt_strength",
      count: "num_outputs",
      seed: "seed",
    });
    expect(mapped.options).toEqual({
      aspectRatios: ["1:1", "4:3", "3:4", "16:9", "9:16"],
      maxCount: 4,
      negativePrompt: false,
      seed: true,
      strength: true,
    });
    expect(mapped.parameters.map((p) => p.name)).toEqual([
      "num_inference_steps",
      "guidance",
      "output_format",
      "output_quality",
      "disable_safety_checker",
      "go_fast",
      "megapixels",
    ]);
    expect(mapped.parameters.find((p) => p.name === "output_format")).toEqual({
      name: "output_format",
      type: "string",
      label: "Output format",
      description: "Format of the output images",
      choices: ["webp", "jpg", "png"],
      default: "webp",
    });
    expect(mapped.parameters.find((p) => p.name === "megapixels")).toMatchObject({
      choices: ["1", "0.25"],
      default: "1",
    });
  });
});

describe("other shapes providers use", () => {
  it("takes a nullable anyOf seed, a list of input images and a required image as image-to-image only", () => {
    // fal's nano-banana/edit, trimmed.
    const mapped = mapSchema(
      {
        type: "object",
        required: ["prompt", "image_urls"],
        "x-fal-order-properties": ["prompt", "image_urls", "num_images", "seed", "output_format"],
        properties: {
          prompt: { type: "string", title: "Prompt" },
          image_urls: { type: "array", items: { type: "string" }, title: "Image URLs" },
          num_images: { type: "integer", minimum: 1, maximum: 4, default: 1 },
          seed: { anyOf: [{ type: "integer" }, { type: "null" }], title: "Seed" },
          output_format: { enum: ["jpeg", "png", "webp"], type: "string", default: "png" },
        },
      },
      {},
      "image",
    );
    expect(mapped.tools).toEqual(["image-to-image"]);
    expect(mapped.mapping.inputImage).toEqual({ field: "image_urls", list: true });
    expect(mapped.mapping.seed).toBe("seed");
    expect(mapped.options.aspectRatios).toEqual(["1:1"]);
  });

  it("maps a required mask and a start image onto the tools they serve, and refuses a required end image", () => {
    const fill = mapSchema(
      {
        type: "object",
        required: ["prompt", "image", "mask"],
        properties: {
          prompt: { type: "string", "x-order": 0 },
          image: { type: "string", format: "uri", "x-order": 1 },
          mask: { type: "string", format: "uri", "x-order": 2 },
        },
      },
      {},
      "image",
    );
    expect(fill.unmet).toEqual([]);
    expect(fill.tools).toEqual(["inpaint", "outpaint"]);
    expect(fill.mapping).toEqual({ prompt: "prompt", inputImage: { field: "image" }, mask: "mask" });
    const i2v = mapSchema(
      {
        type: "object",
        required: ["prompt", "image_url"],
        properties: {
          prompt: { type: "string" },
          image_url: { type: "string", title: "Image Url" },
          duration: { enum: ["5", "10"], type: "string", default: "5" },
        },
      },
      {},
      "video",
    );
    expect(i2v.tools).toEqual(["image-to-video"]);
    expect(i2v.unmet).toEqual([]);
    expect(i2v.mapping.inputImage).toEqual({ field: "image_url" });
    expect(i2v.parameters).toEqual([]);
    const bothFrames = mapSchema(
      {
        type: "object",
        required: ["prompt", "first_frame_image", "last_frame_image"],
        properties: {
          prompt: { type: "string" },
          first_frame_image: { type: "string", format: "uri" },
          last_frame_image: { type: "string", format: "uri" },
        },
      },
      {},
      "video",
    );
    expect(bothFrames.mapping.inputImage).toEqual({ field: "first_frame_image" });
    expect(bothFrames.unmet).toEqual(["It requires an end image (last_frame_image), which a request may leave out."]);
  });

  it("takes a scale that holds 2 or 4 as an upscaler's factor, and no other", () => {
    const upscaler = (scale: SchemaObject) =>
      mapSchema(
        { type: "object", required: ["image"], properties: { image: { type: "string", format: "uri" }, scale } },
        {},
        "image",
      );
    expect(upscaler({ type: "number", minimum: 1, maximum: 4 }).mapping.scale).toBe("scale");
    expect(upscaler({ type: "integer", enum: [2, 4, 8] }).tools).toEqual(["upscale"]);
    const fixed = upscaler({ type: "integer", minimum: 8, maximum: 16 });
    expect(fixed.mapping.scale).toBeUndefined();
    expect(fixed.tools).toEqual(["remove-background"]);
    const text = mapSchema(
      { type: "object", properties: { prompt: { type: "string" }, scale: { type: "number" } } },
      {},
      "image",
    );
    expect(text.mapping.scale).toBeUndefined();
    expect(text.tools).toEqual(["text-to-image"]);
  });

  it("reads durations with a suffix or as integers, resolutions, audio and an optional end image", () => {
    // fal's luma-dream-machine: "5s" | "9s".
    const luma = mapSchema(
      {
        type: "object",
        properties: {
          prompt: { type: "string" },
          aspect_ratio: { enum: ["16:9", "9:16", "4:3", "3:4", "21:9", "9:21"], type: "string" },
          duration: { enum: ["5s", "9s"], type: "string", default: "5s" },
          resolution: { enum: ["540p", "720p", "1080p"], type: "string", default: "540p" },
        },
      },
      {},
      "video",
    );
    expect(luma.mapping.duration).toEqual({ field: "duration", as: "string", suffix: "s" });
    expect(luma.options.durations).toEqual([5]);
    expect(luma.options.aspectRatios).toEqual(["16:9", "9:16"]);
    expect(luma.options.resolutions).toEqual(["540p", "720p", "1080p"]);
    const many = mapSchema(
      {
        type: "object",
        properties: {
          prompt: { type: "string" },
          resolution: { enum: [...Array.from({ length: 30 }, (_, i) => `${i + 1}p`), "x".repeat(41)], default: "1p" },
        },
      },
      {},
      "video",
    );
    expect(many.options.resolutions).toHaveLength(20);
    expect(
      mappedInputs(luma.mapping, { prompt: "x", aspectRatio: "16:9", duration: 5, resolution: "720p" }, {}),
    ).toEqual({
      prompt: "x",
      aspect_ratio: "16:9",
      duration: "5s",
      resolution: "720p",
    });
    // Replicate's google/veo-3.1, trimmed: integer durations, a resolution defaulting to 1080p, audio, a last frame.
    const veo = mapSchema(
      {
        type: "object",
        required: ["prompt"],
        properties: {
          prompt: { type: "string", "x-order": 0 },
          aspect_ratio: { allOf: [{ $ref: "#/components/schemas/aspect_ratio" }], default: "16:9", "x-order": 1 },
          duration: { allOf: [{ $ref: "#/components/schemas/duration" }], default: 8, "x-order": 2 },
          image: { type: "string", format: "uri", "x-order": 3 },
          last_frame: { type: "string", format: "uri", "x-order": 4 },
          negative_prompt: { type: "string", "x-order": 5 },
          resolution: { allOf: [{ $ref: "#/components/schemas/resolution" }], default: "1080p", "x-order": 6 },
          generate_audio: { type: "boolean", default: true, "x-order": 7 },
          seed: { type: "integer", "x-order": 8 },
        },
      },
      {
        aspect_ratio: { enum: ["16:9", "9:16"], type: "string", title: "aspect_ratio" },
        duration: { enum: [4, 6, 8], type: "integer", title: "duration" },
        resolution: { enum: ["720p", "1080p"], type: "string", title: "resolution" },
      },
      "video",
    );
    expect(veo.unmet).toEqual([]);
    expect(veo.mapping).toMatchObject({
      endImage: "last_frame",
      resolution: "resolution",
      audio: "generate_audio",
      negativePrompt: "negative_prompt",
    });
    expect(veo.mapping.duration).toBeUndefined();
    expect(veo.options.durations).toBeUndefined();
    expect(veo.options).toMatchObject({ resolutions: ["1080p", "720p"], audio: true, aspectRatios: ["16:9", "9:16"] });
    expect(veo.parameters.map((p) => p.name)).toEqual(["duration"]);
    expect(veo.parameters[0]).toMatchObject({ type: "integer", choices: [4, 6, 8], default: 8 });
    const kling = mapSchema(
      {
        type: "object",
        properties: { prompt: { type: "string" }, duration: { type: "integer", minimum: 5, maximum: 10 } },
      },
      {},
      "video",
    );
    expect(kling.mapping.duration).toEqual({ field: "duration", as: "integer" });
    expect(kling.options.durations).toEqual([5, 10]);
  });

  it("sends width and height for models that take them, and fal's {width, height} object when no sizes are named", () => {
    // stability-ai/sdxl, trimmed.
    const sdxl = mapSchema(
      {
        type: "object",
        properties: {
          prompt: { type: "string", "x-order": 0 },
          negative_prompt: { type: "string", default: "", "x-order": 1 },
          image: { type: "string", format: "uri", "x-order": 2 },
          mask: { type: "string", format: "uri", "x-order": 3 },
          width: { type: "integer", default: 1024, "x-order": 4 },
          height: { type: "integer", default: 1024, "x-order": 5 },
          prompt_strength: { type: "number", default: 0.8, minimum: 0, maximum: 1, "x-order": 6 },
          scheduler: { allOf: [{ $ref: "#/components/schemas/scheduler" }], default: "K_EULER", "x-order": 7 },
          refine: { allOf: [{ $ref: "#/components/schemas/refine" }], default: "no_refiner", "x-order": 8 },
        },
      },
      {
        scheduler: { enum: ["DDIM", "K_EULER"], type: "string", title: "scheduler" },
        refine: { enum: ["no_refiner", "expert_ensemble_refiner"], type: "string", title: "refine" },
      },
      "image",
    );
    expect(sdxl.mapping).toEqual({
      prompt: "prompt",
      negativePrompt: "negative_prompt",
      width: "width",
      height: "height",
      inputImage: { field: "image" },
      mask: "mask",
      strength: "prompt_strength",
    });
    expect(sdxl.parameters.map((p) => [p.name, p.label])).toEqual([
      ["scheduler", "Scheduler"],
      ["refine", "Refine"],
    ]);
    const custom = mapSchema(
      {
        type: "object",
        properties: {
          prompt: { type: "string" },
          image_size: {
            anyOf: [{ $ref: "#/components/schemas/ImageSize" }, { enum: ["auto_2K", "auto_4K"], type: "string" }],
          },
        },
      },
      { ImageSize: { type: "object", properties: { width: { type: "integer" }, height: { type: "integer" } } } },
      "image",
    );
    expect(custom.mapping.aspectRatio).toEqual({ field: "image_size", sizeObject: true });
    expect(mappedInputs(custom.mapping, { prompt: "x", aspectRatio: "4:3" }, {}).image_size).toEqual({
      width: 1152,
      height: 896,
    });
  });

  it("refuses what it cannot fill and offers no file, list or object as a setting", () => {
    const mapped = mapSchema(
      {
        type: "object",
        required: ["text", "voice", "style"],
        properties: {
          text: { type: "string" },
          voice: { type: "object", properties: { id: { type: "string" } } },
          style: { type: "string" },
          loras: { type: "array", items: { type: "object" } },
          reference_url: { type: "string" },
          webhook_url: { type: "string" },
          width: { type: "integer", exclusiveMinimum: 0, maximum: 14142 },
        },
      },
      {},
      "image",
    );
    expect(mapped.unmet).toEqual([
      "It takes neither a text prompt nor an input image.",
      "It requires text and declares no default.",
      "It requires voice, which Atelier cannot fill.",
      "It requires style and declares no default.",
    ]);
    expect(mapped.parameters).toEqual([{ name: "width", type: "integer", label: "Width", minimum: 1, maximum: 14142 }]);
  });
});

/** A fal fixture's request body, or a Replicate fixture's Input, with the schemas it refers to. */
function inputOf(path: string): { input: SchemaObject; schemas: Record<string, SchemaObject> } {
  const doc = fixture(path);
  if (path.startsWith("replicate/")) {
    const schemas = doc.latest_version.openapi_schema.components.schemas;
    return { input: schemas.Input!, schemas };
  }
  const schemas = doc.openapi.components.schemas;
  const name = Object.keys(schemas).find((n) => n !== "QueueStatus")!;
  return { input: { $ref: `#/components/schemas/${name}` }, schemas };
}

const mapFixture = (path: string, kind: "image" | "video") => {
  const { input, schemas } = inputOf(path);
  return mapSchema(input, schemas, kind);
};

describe("the real schemas of a model of each tool", () => {
  it("reads fal's and Replicate's Kling image-to-video: the start frame and the end frame", () => {
    const turbo = mapFixture("fal/fal-ai__kling-video__v2.5-turbo__pro__image-to-video.json", "video");
    expect(turbo.tools).toEqual(["image-to-video"]);
    expect(turbo.unmet).toEqual([]);
    expect(turbo.mapping).toEqual({
      prompt: "prompt",
      negativePrompt: "negative_prompt",
      inputImage: { field: "image_url" },
      endImage: "tail_image_url",
      duration: { field: "duration", as: "string" },
    });
    expect(turbo.parameters.map((p) => p.name)).toEqual(["cfg_scale"]);
    const v26 = mapFixture("fal/fal-ai__kling-video__v2.6__pro__image-to-video.json", "video");
    expect(v26.tools).toEqual(["image-to-video"]);
    expect(v26.mapping).toMatchObject({
      inputImage: { field: "start_image_url" },
      endImage: "end_image_url",
      audio: "generate_audio",
    });
    expect(v26.parameters).toEqual([]);
    const replicate = mapFixture("replicate/kwaivgi__kling-v2.5-turbo-pro.json", "video");
    expect(replicate.tools).toEqual(["text-to-video", "image-to-video"]);
    expect(replicate.mapping).toMatchObject({ inputImage: { field: "start_image" }, endImage: "end_image" });
    expect(replicate.unmet).toEqual([]);
  });

  it("reads FLUX.1 Fill [pro] on fal and on Replicate as inpainting and outpainting with the image and its mask", () => {
    const fal = mapFixture("fal/fal-ai__flux-pro__v1__fill.json", "image");
    expect(fal.tools).toEqual(["inpaint", "outpaint"]);
    expect(fal.unmet).toEqual([]);
    expect(fal.mapping).toMatchObject({ prompt: "prompt", inputImage: { field: "image_url" }, mask: "mask_url" });
    const replicate = mapFixture("replicate/black-forest-labs__flux-fill-pro.json", "image");
    expect(replicate.tools).toEqual(["inpaint", "outpaint"]);
    expect(replicate.unmet).toEqual([]);
    expect(replicate.mapping).toMatchObject({ prompt: "prompt", inputImage: { field: "image" }, mask: "mask" });
    expect(replicate.parameters.find((p) => p.name === "outpaint")).toMatchObject({ default: "None" });
  });

  it("reads fal's Clarity Upscaler and Replicate's Real-ESRGAN as upscalers with their factor", () => {
    const clarity = mapFixture("fal/fal-ai__clarity-upscaler.json", "image");
    expect(clarity.tools).toEqual(["upscale"]);
    expect(clarity.unmet).toEqual([]);
    expect(clarity.mapping).toEqual({
      prompt: "prompt",
      negativePrompt: "negative_prompt",
      seed: "seed",
      inputImage: { field: "image_url" },
      scale: "upscale_factor",
    });
    const esrgan = mapFixture("replicate/nightmareai__real-esrgan.json", "image");
    expect(esrgan.tools).toEqual(["upscale"]);
    expect(esrgan.unmet).toEqual([]);
    expect(esrgan.mapping).toEqual({ inputImage: { field: "image" }, scale: "scale" });
    expect(esrgan.parameters.map((p) => p.name)).toEqual(["face_enhance"]);
  });

  it("reads fal's BiRefNet and Replicate's remove-bg as background removers", () => {
    const birefnet = mapFixture("fal/fal-ai__birefnet__v2.json", "image");
    expect(birefnet.tools).toEqual(["remove-background"]);
    expect(birefnet.unmet).toEqual([]);
    expect(birefnet.mapping).toEqual({ inputImage: { field: "image_url" } });
    expect(birefnet.parameters.map((p) => p.name)).toContain("operating_resolution");
    const removeBg = mapFixture("replicate/lucataco__remove-bg.json", "image");
    expect(removeBg).toMatchObject({ tools: ["remove-background"], unmet: [], parameters: [] });
  });
});
