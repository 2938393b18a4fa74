import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { modelCatalog, type Binding, type CatalogModel } from "#config/models.ts";
import { RATIO_SIZES } from "#common/input-mapping.ts";
import { checkParameters, type ParameterField, type ParameterValue } from "#common/model-parameters.ts";
import type { AspectRatio, GenerationParams } from "#common/generation.ts";
import { toolSpec, type GenerationTool } from "#common/tools.ts";
import { runBinding, type ConnectionSource } from "#server/providers/index.ts";
import { providerDefinition } from "#server/providers/registry.ts";
import { providerModelFor } from "#server/providers/tool-model.ts";
import sharp from "sharp";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeGoogle, type FakeGoogle } from "#tests/fakes/google.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { fakePng, startFakeReplicate, type FakeReplicate, type RecordedRequest } from "#tests/fakes/replicate.ts";

// Every built-in model is run, binding by binding and tool by tool, through its provider's real adapter against the
// provider's fake, with common settings other than the defaults and one advanced setting changed; what the fake
// received is then held against the model's real input schema: fal's and Replicate's as fixtures under
// tests/fakes/schemas, OpenAI's and Google's documented request shapes here.

const SCHEMAS = new URL("../../tests/fakes/schemas/", import.meta.url);

/**
 * Fields the AI SDK puts in every request of a kind whatever the model, which the provider ignores when the model's
 * schema does not name them (fal and Replicate drop unknown input fields): fal's image model always sends the
 * `prompt`, `image_size` (the ratio as one of fal's named sizes) and `num_images` (one: counts are parallel calls);
 * its video model always sends `aspect_ratio`. Replicate's image model always sends the `prompt`, `aspect_ratio` and
 * `num_outputs`, its video model `aspect_ratio` and `duration`.
 */
const SDK_FIELDS: Record<"fal" | "replicate", Record<"image" | "video", string[]>> = {
  fal: { image: ["prompt", "image_size", "num_images"], video: ["aspect_ratio"] },
  replicate: { image: ["prompt", "aspect_ratio", "num_outputs"], video: ["aspect_ratio", "duration"] },
};

/** The tools `runBinding` runs itself; the others are run here as it will, each on its provider model and mapping. */

/** The OpenAI Images API's create fields (platform.openai.com/docs/api-reference/images/create). */
const OPENAI_FIELDS = {
  common: ["model", "prompt", "n", "size", "response_format", "user"],
  gpt: ["quality", "background", "moderation", "output_format", "output_compression", "image"],
  "dall-e-3": ["quality", "style"],
};
const OPENAI_VALUES: Record<string, Record<string, string[]>> = {
  gpt: {
    size: ["auto", "1024x1024", "1536x1024", "1024x1536"],
    quality: ["auto", "low", "medium", "high"],
    background: ["auto", "transparent", "opaque"],
    moderation: ["auto", "low"],
  },
  "dall-e-3": {
    size: ["1024x1024", "1792x1024", "1024x1792"],
    quality: ["standard", "hd"],
    style: ["vivid", "natural"],
  },
};

/** Gemini API request fields (ai.google.dev/api/generate-content, ai.google.dev/gemini-api/docs/video). */
const GEMINI_REQUEST = ["contents", "generationConfig", "safetySettings", "tools", "toolConfig", "systemInstruction"];
const GEMINI_CONFIG = ["responseModalities", "imageConfig", "seed", "temperature", "topP", "topK", "candidateCount"];
const GEMINI_IMAGE_RATIOS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"];
const VEO_PARAMETERS = [
  "aspectRatio",
  "negativePrompt",
  "durationSeconds",
  "resolution",
  "personGeneration",
  "seed",
  "sampleCount",
];

const KEYS = {
  openai: "sk-built-in",
  replicate: "r8_built_in",
  fal: "built-in:key",
  google: "AIzaBuiltInKey0123456789",
};

let fakes: { openai: FakeOpenAI; replicate: FakeReplicate; fal: FakeFal; google: FakeGoogle };
let connections: ConnectionSource;
let inputPng: Buffer;
let endPng: Buffer;
let maskPng: Buffer;

beforeAll(async () => {
  const [openai, replicate, fal, google] = await Promise.all([
    startFakeOpenAI({ apiKey: KEYS.openai }),
    startFakeReplicate({ token: KEYS.replicate }),
    startFakeFal({ key: KEYS.fal }),
    startFakeGoogle({ apiKey: KEYS.google }),
  ]);
  fakes = { openai, replicate, fal, google };
  const settings: Record<string, unknown> = {
    openai: { apiKey: KEYS.openai, baseURL: openai.apiUrl },
    replicate: { apiToken: KEYS.replicate, baseURL: replicate.apiUrl },
    fal: { apiKey: KEYS.fal, baseURL: fal.url },
    google: { apiKey: KEYS.google, baseURL: google.apiUrl },
  };
  connections = {
    connection: (id) => (id in settings ? { definition: providerDefinition(id), settings: settings[id] } : undefined),
  };
  inputPng = await fakePng("a picture to start from", 48, 48);
  endPng = await fakePng("a picture to end on", 40, 40);
  // White where the picture changes (its middle), black where it stays.
  maskPng = await sharp({ create: { width: 48, height: 48, channels: 3, background: "#000" } })
    .composite([
      {
        input: await sharp({ create: { width: 24, height: 24, channels: 3, background: "#fff" } })
          .png()
          .toBuffer(),
        left: 12,
        top: 12,
      },
    ])
    .png()
    .toBuffer();
});

afterAll(async () => {
  await Promise.all(Object.values(fakes ?? {}).map((f) => f.close()));
});

beforeEach(() => {
  for (const fake of Object.values(fakes)) fake.requests = [];
  fakes.fal.pollsToFinish = 1;
  fakes.replicate.pollsToFinish = 1;
});

type Run = { model: CatalogModel<Binding>; binding: Binding; tool: GenerationTool };

const EXTERNAL = new Set(["fal", "replicate", "openai", "google"]);
const runs: Run[] = modelCatalog.flatMap((model) =>
  model.bindings
    .filter((binding) => EXTERNAL.has(binding.provider))
    .flatMap((binding) => model.tools.map((tool) => ({ model, binding, tool }))),
);

describe("the built-in catalog", () => {
  it("has at least ten image models and six video models on external providers", () => {
    const external = modelCatalog.filter((m) => m.bindings.some((b) => EXTERNAL.has(b.provider)));
    expect(external.filter((m) => m.kind === "image").length).toBeGreaterThanOrEqual(10);
    expect(external.filter((m) => m.kind === "video").length).toBeGreaterThanOrEqual(6);
    const providers = new Set(external.flatMap((m) => m.bindings.map((b) => b.provider)));
    expect([...providers].sort()).toEqual(["fal", "google", "openai", "replicate"]);
  });

  it("declares advanced settings whose defaults are among their own choices and limits", () => {
    for (const model of modelCatalog) {
      const checked = checkParameters(model.parameters, {});
      expect(checked, model.id).toMatchObject({ ok: true });
      for (const field of model.parameters ?? []) {
        if (field.default === undefined) continue;
        expect(checkParameters(model.parameters, { [field.name]: field.default }), `${model.id} ${field.name}`).toEqual(
          checked,
        );
      }
    }
  });

  it.each(runs.map((r) => [`${r.model.id} on ${r.binding.provider} (${r.tool})`, r] as const))(
    "%s sends what the provider's schema takes",
    async (_name, run) => {
      const request = requestFor(run);
      const outputs = await runTool(run, request);
      expect(outputs.length).toBe(run.model.kind === "image" ? request.params.count : 1);
      if (run.tool === "upscale") expect((await sharp(outputs[0]!.bytes).metadata()).width).toBe(48 * UPSCALE);
      if (run.tool === "remove-background") {
        const cutout = await sharp(outputs[0]!.bytes).metadata();
        expect([cutout.format, cutout.hasAlpha]).toEqual(["png", true]);
      }
      const sent = sentInputs(run);
      expect(sent.length, "requests the fake received").toBeGreaterThan(0);
      for (const body of sent) {
        if (run.binding.provider === "fal" || run.binding.provider === "replicate") checkAgainstFixture(run, body);
        else if (run.binding.provider === "openai") checkOpenAI(run, body);
        else checkGoogle(run, body);
        checkMapped(run, request, body);
      }
    },
  );
});

const PROMPT = "a lighthouse on a cliff at dusk";
const UPSCALE = 4 as const;
const png = (bytes: Buffer) => ({ bytes: new Uint8Array(bytes), mediaType: "image/png" });

/**
 * What a tool is given besides its settings: the start image, the mask and the end image it takes. Extending sends
 * the larger canvas with a mask of its new area, as a mask edit.
 */
function inputsFor(tool: GenerationTool) {
  const spec = toolSpec(tool);
  return {
    inputImage: spec.image ? png(inputPng) : undefined,
    mask: spec.mask || spec.extend ? png(maskPng) : undefined,
    endImage: spec.endImage ? png(endPng) : undefined,
    scale: spec.scale ? UPSCALE : undefined,
  };
}

/** Runs one tool of a binding through `runBinding`, with the input image, mask, end image and scale its row takes. */
async function runTool(run: Run, asked: Asked) {
  const { model, binding, tool } = run;
  const { params, negativePrompt } = asked;
  const prompt = toolSpec(tool).prompt === "none" ? "" : PROMPT;
  const inputs = inputsFor(tool);
  return runBinding({
    connections,
    model,
    binding: { ...binding, connection: binding.provider },
    tool,
    prompt,
    negativePrompt,
    params: { ...params, ...(inputs.scale ? { scale: inputs.scale } : {}) },
    inputImage: inputs.inputImage,
    mask: inputs.mask,
    endImage: inputs.endImage,
    abortSignal: AbortSignal.timeout(30_000),
    pollIntervalMs: 10,
  });
}

interface Asked {
  params: GenerationParams & { options: Record<string, ParameterValue> };
  negativePrompt?: string;
  /** The advanced setting changed from its default. */
  changed?: { name: string; value: ParameterValue };
}

/** Common settings other than the defaults, and the first advanced setting changed, as the studio would submit them. */
function requestFor({ model, tool }: Run): Asked {
  const o = model.options;
  const ratio = ([...o.aspectRatios].reverse().find((r) => r !== "1:1") ?? o.aspectRatios[0]) as AspectRatio;
  const field = model.parameters?.[0];
  const changed = field ? { name: field.name, value: otherValue(field) } : undefined;
  const checked = checkParameters(model.parameters, changed ? { [changed.name]: changed.value } : {});
  if (!checked.ok) throw new Error(`${model.id}: ${checked.detail}`);
  const params: Asked["params"] = {
    aspectRatio: ratio,
    count: model.kind === "image" ? Math.min(2, o.maxCount) : 1,
    ...(o.seed ? { seed: 1234 } : {}),
    ...(tool === "image-to-image" && o.strength ? { strength: 0.6 } : {}),
    ...(o.durations ? { duration: o.durations[o.durations.length - 1] } : {}),
    ...(o.styles ? { style: "documentary" as const } : {}),
    ...(o.resolutions ? { resolution: o.resolutions[o.resolutions.length - 1] } : {}),
    ...(o.audio ? { audio: true } : {}),
    options: checked.values,
  };
  return { params, negativePrompt: o.negativePrompt ? "blurry, text" : undefined, changed };
}

function otherValue(field: ParameterField): ParameterValue {
  if (field.choices) return field.choices.find((c) => c !== field.default) ?? field.choices[0]!;
  if (field.type === "boolean") return !(field.default ?? false);
  if (field.type === "string") return "something else";
  const min = field.minimum ?? 0;
  const max = field.maximum ?? min + 10;
  const candidate = field.type === "integer" ? Math.floor((min + max) / 2) : (min + max) / 2;
  return candidate === field.default ? min : candidate;
}

/** The model inputs the fake received for this run. */
function sentInputs({ model, binding, tool }: Run): Record<string, unknown>[] {
  const id = providerModelFor(binding, tool).model;
  const posts = (requests: RecordedRequest[]) => requests.filter((r) => r.method === "POST");
  // A Replicate community model runs by its version (`owner/name:version`), an official one by its name.
  const [name, version] = id.split(":");
  switch (binding.provider) {
    case "fal":
      return posts(fakes.fal.requests)
        .filter((r) => r.path === (model.kind === "video" ? `/queue/${id}` : `/${id}`))
        .map((r) => r.body as Record<string, unknown>);
    case "replicate":
      return posts(fakes.replicate.requests)
        .filter((r) =>
          version
            ? r.path === "/v1/predictions" && (r.body as { version?: string }).version === version
            : r.path === `/v1/models/${name}/predictions`,
        )
        .map((r) => (r.body as { input: Record<string, unknown> }).input);
    case "openai":
      return posts(fakes.openai.requests).map((r) => r.body as Record<string, unknown>);
    default:
      return posts(fakes.google.requests)
        .filter((r) => r.path.startsWith(`/v1beta/models/${id}:`))
        .map((r) => r.body as Record<string, unknown>);
  }
}

// -----------------------------------------------------------------------------------------------------------------
// fal and Replicate: the fixture's Input schema

type Schema = {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  anyOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
};

function fixtureOf({ binding, tool }: Run): { input: Schema; schemas: Record<string, Schema> } {
  const [id, version] = providerModelFor(binding, tool).model.split(":") as [string, string | undefined];
  const file = `${binding.provider}/${id.replaceAll("/", "__")}.json`;
  const url = new URL(file, SCHEMAS);
  if (!existsSync(url)) throw new Error(`no input schema fixture tests/fakes/schemas/${file}`);
  const json = JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
  if (binding.provider === "replicate") {
    const latest = (
      json as { latest_version: { id: string; openapi_schema: { components: { schemas: Record<string, Schema> } } } }
    ).latest_version;
    if (version) expect(latest.id, `${file}: the version the catalog runs`).toBe(version);
    const schemas = latest.openapi_schema.components.schemas;
    return { input: schemas.Input!, schemas };
  }
  // fal's Platform API model entry (`GET /v1/models?endpoint_id=…&expand=openapi-3.0`): the input is the body of
  // the POST to the endpoint's own path.
  const entry = json as { endpoint_id: string; openapi: Record<string, unknown> };
  expect(entry.endpoint_id).toBe(id);
  const openapi = entry.openapi as {
    paths: Record<string, { post?: { requestBody: { content: { "application/json": { schema: Schema } } } } }>;
    components: { schemas: Record<string, Schema> };
  };
  const path = openapi.paths[`/${id}`];
  if (!path?.post) throw new Error(`${file} has no POST /${id}`);
  const schemas = openapi.components.schemas;
  return { input: resolve(path.post.requestBody.content["application/json"].schema, schemas), schemas };
}

function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  if (schema.$ref) return resolve(schemas[schema.$ref.split("/").pop()!]!, schemas);
  return schema;
}

/** Why a value does not fit a schema, or undefined when it does. */
function misfit(value: unknown, schema: Schema, schemas: Record<string, Schema>): string | undefined {
  const s = resolve(schema, schemas);
  if (s.anyOf) return s.anyOf.some((b) => !misfit(value, b, schemas)) ? undefined : `fits none of ${s.anyOf.length}`;
  for (const part of s.allOf ?? []) {
    const problem = misfit(value, part, schemas);
    if (problem) return problem;
  }
  if (s.enum && !s.enum.includes(value)) return `${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`;
  const type = s.type;
  if (type === "integer" && !Number.isInteger(value)) return `${JSON.stringify(value)} is not an integer`;
  if (type === "number" && typeof value !== "number") return `${JSON.stringify(value)} is not a number`;
  if (type === "string" && typeof value !== "string") return `${JSON.stringify(value)} is not a string`;
  if (type === "boolean" && typeof value !== "boolean") return `${JSON.stringify(value)} is not a boolean`;
  if (type === "array" && !Array.isArray(value)) return `${JSON.stringify(value)} is not a list`;
  if (type === "object") {
    if (!value || typeof value !== "object") return `${JSON.stringify(value)} is not an object`;
    for (const [k, v] of Object.entries(value)) {
      const sub = s.properties?.[k];
      if (!sub) return `${k} is not a field of it`;
      const problem = misfit(v, sub, schemas);
      if (problem) return `${k}: ${problem}`;
    }
  }
  if (typeof value === "number") {
    if (s.minimum !== undefined && value < s.minimum) return `${value} is under ${s.minimum}`;
    if (s.maximum !== undefined && value > s.maximum) return `${value} is over ${s.maximum}`;
  }
  if (typeof value === "string" && s.maxLength !== undefined && value.length > s.maxLength)
    return `longer than ${s.maxLength}`;
  return undefined;
}

function checkAgainstFixture(run: Run, body: Record<string, unknown>) {
  const { input, schemas } = fixtureOf(run);
  const provider = run.binding.provider as "fal" | "replicate";
  const where = `${run.model.id} on ${provider}`;
  for (const name of input.required ?? []) expect(body, `${where}: required ${name}`).toHaveProperty(name);
  for (const [name, value] of Object.entries(body)) {
    const field = input.properties?.[name];
    if (!field) {
      expect(SDK_FIELDS[provider][run.model.kind], `${where}: ${name} is not in its schema`).toContain(name);
      continue;
    }
    expect(misfit(value, field, schemas), `${where}: ${name}`).toBeUndefined();
  }
}

// -----------------------------------------------------------------------------------------------------------------
// OpenAI and Google: their documented request shapes

function checkOpenAI(run: Run, body: Record<string, unknown>) {
  const family = run.binding.model.startsWith("dall-e-3") ? "dall-e-3" : "gpt";
  const allowed = [...OPENAI_FIELDS.common, ...OPENAI_FIELDS[family]];
  for (const [name, value] of Object.entries(body)) {
    expect(allowed, `${run.model.id}: ${name}`).toContain(name);
    const values = OPENAI_VALUES[family]![name];
    if (values) expect(values, `${run.model.id}: ${name}`).toContain(value);
  }
  expect(body.model).toBe(run.binding.model);
  expect(Number(body.n)).toBe(run.model.kind === "image" ? requestFor(run).params.count : 1);
  if (family === "gpt") expect(body).not.toHaveProperty("response_format");
}

function checkGoogle(run: Run, body: Record<string, unknown>) {
  const asked = requestFor(run).params;
  if (run.model.kind === "image") {
    for (const name of Object.keys(body)) expect(GEMINI_REQUEST, `${run.model.id}: ${name}`).toContain(name);
    const config = body.generationConfig as Record<string, unknown>;
    for (const name of Object.keys(config)) expect(GEMINI_CONFIG, `${run.model.id}: ${name}`).toContain(name);
    expect(config.responseModalities).toEqual(["IMAGE"]);
    const image = config.imageConfig as { aspectRatio: string };
    expect(GEMINI_IMAGE_RATIOS).toContain(image.aspectRatio);
    expect(image.aspectRatio).toBe(asked.aspectRatio);
    if (asked.seed !== undefined) expect(config.seed).toBe(asked.seed);
    return;
  }
  const { instances, parameters } = body as {
    instances: { prompt: string }[];
    parameters: Record<string, unknown>;
  };
  expect(instances).toHaveLength(1);
  expect(instances[0]!.prompt).toContain(PROMPT);
  for (const name of Object.keys(parameters)) expect(VEO_PARAMETERS, `${run.model.id}: ${name}`).toContain(name);
  expect(["16:9", "9:16"]).toContain(parameters.aspectRatio);
  expect(parameters.aspectRatio).toBe(asked.aspectRatio);
  expect([4, 6, 8]).toContain(parameters.durationSeconds);
  expect(parameters.durationSeconds).toBeGreaterThanOrEqual(asked.duration ?? 5);
  if (asked.seed !== undefined) expect(parameters.seed).toBe(asked.seed);
}

// -----------------------------------------------------------------------------------------------------------------
// The mapping: each common setting where the binding says, as the provider writes it

function checkMapped(run: Run, asked: Asked, body: Record<string, unknown>) {
  const { params } = asked;
  const m = providerModelFor(run.binding, run.tool).mapping;
  const spec = toolSpec(run.tool);
  const where = `${run.model.id} on ${run.binding.provider}`;
  if (m?.prompt && spec.prompt !== "none") expect(body[m.prompt], `${where}: prompt`).toContain(PROMPT);
  if (m?.seed && params.seed !== undefined) expect(body[m.seed], `${where}: seed`).toBe(params.seed);
  if (m?.negativePrompt && asked.negativePrompt)
    expect(body[m.negativePrompt], `${where}: negative prompt`).toBe(asked.negativePrompt);
  if (m?.aspectRatio) {
    const { field, values, sizeObject } = m.aspectRatio;
    const expected = sizeObject
      ? RATIO_SIZES[params.aspectRatio]
      : (values?.[params.aspectRatio] ?? params.aspectRatio);
    expect(body[field], `${where}: aspect ratio ${params.aspectRatio}`).toEqual(expected);
  }
  if (m?.duration && params.duration !== undefined) {
    const { field, as, suffix } = m.duration;
    const expected = as === "integer" ? params.duration : `${params.duration}${suffix ?? ""}`;
    expect(body[field], `${where}: duration`).toBe(expected);
  }
  if (m?.resolution && params.resolution) expect(body[m.resolution], `${where}: resolution`).toBe(params.resolution);
  if (m?.audio && params.audio !== undefined) expect(body[m.audio], `${where}: audio`).toBe(params.audio);
  // The fakes record an inline image as its type and size: the three differ in size.
  const inline = (image: Buffer) => `data:image/png;base64,<${image.length} bytes>`;
  if (m?.inputImage && spec.image) expect(body[m.inputImage.field], `${where}: input image`).toBe(inline(inputPng));
  if (spec.image && (run.binding.provider === "fal" || run.binding.provider === "replicate"))
    expect(m?.inputImage, `${where}: where the input image goes`).toBeDefined();
  if (spec.mask || spec.extend) expect(body[m!.mask!], `${where}: mask`).toBe(inline(maskPng));
  if (spec.endImage && m?.endImage) expect(body[m.endImage], `${where}: end image`).toBe(inline(endPng));
  if (spec.scale) expect(body[m!.scale!], `${where}: scale`).toBe(UPSCALE);
  if (m?.strength && run.tool === "image-to-image" && params.strength !== undefined)
    expect(body[m.strength], `${where}: strength`).toBe(params.strength);
  if (asked.changed) {
    const sent = body[asked.changed.name];
    expect(String(sent), `${where}: ${asked.changed.name}`).toBe(String(asked.changed.value));
  }
}
