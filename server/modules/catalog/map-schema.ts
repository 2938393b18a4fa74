import {
  IMAGE_ASPECT_RATIOS,
  MAX_IMAGE_COUNT,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DURATIONS,
  type AspectRatio,
  type ModelOptions,
  type VideoDuration,
} from "#common/generation.ts";
import type { InputMapping } from "#common/input-mapping.ts";
import { inferTools, UPSCALE_FACTORS } from "#common/tools.ts";
import { PARAMETER_NAME, type ParameterField, type ParameterValue } from "#common/model-parameters.ts";
import type { ModelDescription } from "#server/modules/catalog/model-description.ts";

/** A JSON Schema object as OpenAPI 3 documents hold them (fal's, Replicate's): read loosely, never trusted. */
export type SchemaObject = Record<string, unknown>;

/** What reading an input schema gives: the parts of a `ModelDescription` that come from the schema alone. */
export type MappedSchema = Pick<ModelDescription, "tools" | "mapping" | "options" | "parameters" | "unmet">;

/**
 * Inputs that decide how the answer is delivered, not what is made: fal's `sync_mode` (the media inline as data
 * URIs instead of files), callbacks (`webhook…`), where outputs are written (`output_file_prefix`, `output_path`) and
 * base64 answers. The adapters read the provider's answer in one form; a person switching these would break the run,
 * so they are never offered.
 */
const PLUMBING = new Set([
  "sync_mode",
  "enable_sync_mode",
  "webhook",
  "webhook_url",
  "webhook_events_filter",
  "callback_url",
  "output_file_prefix",
  "output_path",
  "return_base64",
  "enable_base64_output",
]);

const PROMPT = ["prompt"];
const NEGATIVE_PROMPT = ["negative_prompt"];
const SEED = ["seed"];
const COUNT = ["num_images", "num_outputs", "number_of_images"];
const ASPECT_RATIO = ["aspect_ratio"];
const NAMED_SIZE = ["image_size"];
/** An image to start from on an image model: what image-to-image, editing, upscaling and the like work on. */
const INPUT_IMAGE = ["image_url", "image", "input_image", "init_image", "image_urls"];
/**
 * A video's first frame: the names that say so first, then the plain image ones (Replicate's Kling keeps a deprecated
 * `image` beside `start_image`).
 */
const START_IMAGE = [
  "start_image_url",
  "start_image",
  "first_frame_image",
  "first_frame_url",
  "first_frame",
  "image_url",
  "image",
  "input_image",
];
const MASK = ["mask_url", "mask", "mask_image", "mask_image_url"];
const END_IMAGE = [
  "end_image_url",
  "end_image",
  "tail_image_url",
  "tail_image",
  "last_frame",
  "last_frame_url",
  "last_frame_image",
];
/** An upscaler's factor, as a number. */
const SCALE = ["scale", "upscale_factor", "scale_factor", "upscale"];
const STRENGTH = ["strength", "prompt_strength"];
const DURATION = ["duration"];
const RESOLUTION = ["resolution"];
const AUDIO = ["generate_audio"];

/** fal's named sizes, by the ratio each has (the HD square before the small one). */
const NAMED_SIZES: [AspectRatio, string[]][] = [
  ["1:1", ["square_hd", "square"]],
  ["4:3", ["landscape_4_3"]],
  ["3:4", ["portrait_4_3"]],
  ["16:9", ["landscape_16_9"]],
  ["9:16", ["portrait_16_9"]],
];

const LABEL_MAX = 100;
const DESCRIPTION_MAX = 1000;
const CHOICES_MAX = 100;
const PARAMETERS_MAX = 60;

/** One input field, its schema resolved ($ref, allOf, a nullable anyOf). */
interface Field {
  name: string;
  schema: SchemaObject;
  required: boolean;
  /** The alternatives of an anyOf/oneOf that is not a mere nullable (fal's image_size). */
  alternatives?: SchemaObject[];
}

/**
 * Reads a model's OpenAPI input schema (fal's request body, Replicate's `Input`) into what Atelier offers: where its
 * common parameters go (`mapping`), their limits (`options`), its other settings as advanced controls (`parameters`),
 * the tools its inputs serve and the required inputs Atelier cannot fill (`unmet`). The common parameters are
 * recognised by the names fal and Replicate give them; everything is a proposal for the operator to correct.
 */
export function mapSchema(
  input: SchemaObject,
  components: Record<string, unknown> | undefined,
  kind: "image" | "video",
): MappedSchema {
  const root = resolve(input, components);
  const fields = orderedFields(root, components);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const pick = (names: readonly string[]) => names.map((n) => byName.get(n)).find((f) => f !== undefined);
  const taken = new Set<string>();
  const take = (f: Field | undefined) => {
    if (f) taken.add(f.name);
    return f;
  };

  const mapping: InputMapping = {};
  const unmet: string[] = [];
  const ratios: readonly AspectRatio[] = kind === "image" ? IMAGE_ASPECT_RATIOS : VIDEO_ASPECT_RATIOS;
  const options: ModelOptions = {
    aspectRatios: [kind === "image" ? "1:1" : "16:9"],
    maxCount: 1,
    negativePrompt: false,
    seed: false,
    strength: false,
  };

  const prompt = take(pick(PROMPT));
  if (prompt && typeOf(prompt.schema) === "string") mapping.prompt = prompt.name;

  const negative = take(pick(NEGATIVE_PROMPT));
  if (negative) {
    mapping.negativePrompt = negative.name;
    options.negativePrompt = true;
  }

  const seed = pick(SEED);
  if (seed && isNumeric(seed.schema)) {
    take(seed);
    mapping.seed = seed.name;
    options.seed = true;
  }

  const count = kind === "image" ? pick(COUNT) : undefined;
  if (count && typeOf(count.schema) === "integer") {
    take(count);
    mapping.count = count.name;
    const maximum = numberOf(count.schema.maximum);
    options.maxCount = Math.max(1, Math.min(MAX_IMAGE_COUNT, maximum ?? 1));
  }

  mapAspect({ pick, take, mapping, options, ratios, kind });

  const image = take(pick(kind === "image" ? INPUT_IMAGE : START_IMAGE));
  if (image) {
    mapping.inputImage = typeOf(image.schema) === "array" ? { field: image.name, list: true } : { field: image.name };
  }

  const mask = kind === "image" && image ? take(pick(MASK)) : undefined;
  if (mask) mapping.mask = mask.name;

  const end = kind === "video" && image ? take(pick(END_IMAGE)) : undefined;
  if (end) {
    // A last frame is Atelier's to leave out: a model that cannot make a video without one is not offered.
    if (end.required) unmet.push(`It requires an end image (${end.name}), which a request may leave out.`);
    else mapping.endImage = end.name;
  }

  const scale = kind === "image" && image ? pick(SCALE) : undefined;
  if (scale && takesAFactor(scale.schema)) {
    take(scale);
    mapping.scale = scale.name;
  }

  if (!mapping.prompt && !mapping.inputImage) unmet.push("It takes neither a text prompt nor an input image.");

  const strength = pick(STRENGTH);
  if (strength && isNumeric(strength.schema) && kind === "image" && mapping.inputImage) {
    take(strength);
    mapping.strength = strength.name;
    options.strength = true;
  }

  if (kind === "video") mapDuration({ pick, take, mapping, options });

  const resolution = pick(RESOLUTION);
  // As many as a catalog model may list (20, each a short name).
  const resolutions = resolution
    ? stringChoices(resolution.schema)
        ?.filter((r) => r.trim().length > 0 && r.length <= 40)
        .slice(0, 20)
    : undefined;
  if (resolution && resolutions?.length) {
    take(resolution);
    mapping.resolution = resolution.name;
    const fallback = resolution.schema.default;
    options.resolutions =
      typeof fallback === "string" && resolutions.includes(fallback)
        ? [fallback, ...resolutions.filter((r) => r !== fallback)]
        : resolutions;
  }

  const audio = kind === "video" ? pick(AUDIO) : undefined;
  if (audio && typeOf(audio.schema) === "boolean") {
    take(audio);
    mapping.audio = audio.name;
    options.audio = true;
  }

  const parameters: ParameterField[] = [];
  for (const f of fields) {
    if (taken.has(f.name) || PLUMBING.has(f.name)) continue;
    const field = parameterOf(f);
    if (!field) {
      if (f.required) unmet.push(`It requires ${f.name}, which Atelier cannot fill.`);
      continue;
    }
    if (f.required && field.default === undefined) {
      unmet.push(`It requires ${f.name} and declares no default.`);
      continue;
    }
    if (parameters.length < PARAMETERS_MAX) parameters.push(field);
  }

  const tools = inferTools(kind, {
    prompt: mapping.prompt !== undefined,
    image: mapping.inputImage !== undefined,
    imageRequired: image?.required ?? false,
    mask: mapping.mask !== undefined,
    scale: mapping.scale !== undefined,
  });

  return { tools, mapping, options, parameters, unmet };
}

interface Mapper {
  pick: (names: readonly string[]) => Field | undefined;
  take: (f: Field | undefined) => Field | undefined;
  mapping: InputMapping;
  options: ModelOptions;
}

/** The aspect ratio: a ratio enum, fal's named sizes (or `{width, height}`), or width and height fields. */
function mapAspect({
  pick,
  take,
  mapping,
  options,
  ratios,
  kind,
}: Mapper & { ratios: readonly AspectRatio[]; kind: "image" | "video" }) {
  const ratio = pick(ASPECT_RATIO);
  if (ratio) {
    const declared = stringChoices(ratio.schema);
    const offered = declared ? ratios.filter((r) => declared.includes(r)) : [...ratios];
    if (offered.length > 0) {
      take(ratio);
      mapping.aspectRatio = { field: ratio.name };
      options.aspectRatios = offered;
      return;
    }
  }
  const sized = pick(NAMED_SIZE);
  if (sized) {
    const alternatives = sized.alternatives ?? [sized.schema];
    const named = alternatives.flatMap((a) => stringChoices(a) ?? []);
    const takesObject = alternatives.some((a) => typeOf(a) === "object");
    const values: Partial<Record<AspectRatio, string>> = {};
    for (const [r, names] of NAMED_SIZES) {
      const name = names.find((n) => named.includes(n));
      if (name && ratios.includes(r)) values[r] = name;
    }
    const offered = ratios.filter((r) => values[r] !== undefined);
    if (offered.length > 0) {
      take(sized);
      mapping.aspectRatio = { field: sized.name, values };
      options.aspectRatios = offered;
      return;
    }
    if (takesObject) {
      take(sized);
      mapping.aspectRatio = { field: sized.name, sizeObject: true };
      options.aspectRatios = [...ratios];
      return;
    }
  }
  const width = pick(["width"]);
  const height = pick(["height"]);
  if (
    kind === "image" &&
    width &&
    height &&
    typeOf(width.schema) === "integer" &&
    typeOf(height.schema) === "integer"
  ) {
    take(width);
    take(height);
    mapping.width = width.name;
    mapping.height = height.name;
    options.aspectRatios = [...ratios];
  }
}

/** A video's length: an enum of seconds ("5", "10", "5s") or an integer; offered where it meets Atelier's 5 and 10. */
function mapDuration({ pick, take, mapping, options }: Mapper) {
  const duration = pick(DURATION);
  if (!duration) return;
  const type = typeOf(duration.schema);
  const choices = enumOf(duration.schema);
  let seconds: number[];
  let as: "integer" | "string";
  let suffix: string | undefined;
  if (choices && choices.length > 0) {
    const strings = choices.every((c) => typeof c === "string");
    as = strings || type === "string" ? "string" : "integer";
    if (strings && choices.every((c) => /^\d+s$/.test(c as string))) suffix = "s";
    seconds = choices.map((c) => Number(String(c).replace(/s$/, ""))).filter(Number.isFinite);
  } else if (type === "integer" || type === "number") {
    as = "integer";
    const min = numberOf(duration.schema.minimum) ?? -Infinity;
    const max = numberOf(duration.schema.maximum) ?? Infinity;
    seconds = VIDEO_DURATIONS.filter((d) => d >= min && d <= max);
  } else return;
  const offered = VIDEO_DURATIONS.filter((d) => seconds.includes(d)) as VideoDuration[];
  if (offered.length === 0) return;
  take(duration);
  mapping.duration = suffix ? { field: duration.name, as, suffix } : { field: duration.name, as };
  options.durations = offered;
}

/** A numeric factor that takes at least one of Atelier's upscale factors (a range holding 2 or 4, or a choice of them). */
function takesAFactor(s: SchemaObject): boolean {
  if (!isNumeric(s)) return false;
  const choices = enumOf(s);
  if (choices) return UPSCALE_FACTORS.some((f) => choices.includes(f));
  const min = lowerBound(s, "number") ?? -Infinity;
  const max = upperBound(s, "number") ?? Infinity;
  return UPSCALE_FACTORS.some((f) => f >= min && f <= max);
}

/** An input as an advanced setting, or undefined when it cannot be one (a file, a list, an object). */
function parameterOf(f: Field): ParameterField | undefined {
  if (!PARAMETER_NAME.test(f.name) || f.alternatives) return undefined;
  const s = f.schema;
  const type = typeOf(s);
  if (type !== "string" && type !== "integer" && type !== "number" && type !== "boolean") return undefined;
  if (type === "string" && (s.format === "uri" || s.format === "binary" || /_urls?$/.test(f.name))) return undefined;
  const field: ParameterField = { name: f.name, type, label: labelOf(f.name, s) };
  const description = typeof s.description === "string" ? s.description.replace(/\s+/g, " ").trim() : "";
  if (description) field.description = clip(description, DESCRIPTION_MAX);
  const choices = enumOf(s)?.filter(
    (c): c is string | number => (typeof c === "string" && c.length <= 200) || typeof c === "number",
  );
  if (choices && choices.length > 0 && type !== "boolean") field.choices = choices.slice(0, CHOICES_MAX);
  if (type === "integer" || type === "number") {
    const minimum = lowerBound(s, type);
    const maximum = upperBound(s, type);
    if (minimum !== undefined) field.minimum = minimum;
    if (maximum !== undefined && (minimum === undefined || maximum >= minimum)) field.maximum = maximum;
  }
  if (type === "string") {
    const maxLength = numberOf(s.maxLength);
    if (maxLength !== undefined && maxLength >= 1 && maxLength <= 100_000 && !field.choices)
      field.maxLength = Math.floor(maxLength);
  }
  const fallback = defaultOf(s.default, type);
  if (fallback !== undefined) field.default = fallback;
  else if (f.required && field.choices) field.default = field.choices[0];
  return field;
}

function defaultOf(value: unknown, type: ParameterField["type"]): ParameterValue | undefined {
  if (type === "boolean") return typeof value === "boolean" ? value : undefined;
  if (type === "string") return typeof value === "string" && value.length <= 2000 ? value : undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return type === "integer" && !Number.isInteger(value) ? undefined : value;
}

function lowerBound(s: SchemaObject, type: "integer" | "number"): number | undefined {
  const minimum = numberOf(s.minimum);
  // JSON Schema's numeric exclusiveMinimum (fal's `exclusiveMinimum: 0`): the next integer, or the bound itself.
  const exclusive = numberOf(s.exclusiveMinimum);
  const fromExclusive =
    exclusive === undefined ? undefined : type === "integer" ? Math.floor(exclusive) + 1 : exclusive;
  if (minimum === undefined) return fromExclusive;
  return fromExclusive === undefined ? minimum : Math.max(minimum, fromExclusive);
}

function upperBound(s: SchemaObject, type: "integer" | "number"): number | undefined {
  const maximum = numberOf(s.maximum);
  const exclusive = numberOf(s.exclusiveMaximum);
  const fromExclusive = exclusive === undefined ? undefined : type === "integer" ? Math.ceil(exclusive) - 1 : exclusive;
  if (maximum === undefined) return fromExclusive;
  return fromExclusive === undefined ? maximum : Math.min(maximum, fromExclusive);
}

/** The provider's title, or the name made readable (`num_inference_steps` → "Num inference steps"). */
function labelOf(name: string, s: SchemaObject): string {
  const title = typeof s.title === "string" ? s.title.trim() : "";
  // Replicate's enum fields carry the enum's own title (`aspect_ratio`), not a label.
  const readable = name.replace(/[_.-]+/g, " ").trim();
  const label = title && title !== name ? title : readable.charAt(0).toUpperCase() + readable.slice(1);
  return clip(label, LABEL_MAX);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The object's properties in the provider's order: fal's `x-fal-order-properties`, Replicate's `x-order`. */
function orderedFields(root: SchemaObject, components: Record<string, unknown> | undefined): Field[] {
  const properties = isObject(root.properties) ? root.properties : {};
  const required = new Set(Array.isArray(root.required) ? root.required.filter((r) => typeof r === "string") : []);
  const names = Object.keys(properties);
  const falOrder = Array.isArray(root["x-fal-order-properties"])
    ? root["x-fal-order-properties"].filter((n): n is string => typeof n === "string" && n in properties)
    : [];
  const rank = (name: string): number => {
    const i = falOrder.indexOf(name);
    if (i >= 0) return i;
    const property = properties[name];
    const order = isObject(property) ? numberOf(property["x-order"]) : undefined;
    return order !== undefined ? falOrder.length + order : Number.MAX_SAFE_INTEGER;
  };
  const sorted = names
    .map((name, index) => ({ name, index }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.index - b.index)
    .map((e) => e.name);
  const out: Field[] = [];
  for (const name of sorted) {
    const raw = properties[name];
    if (!isObject(raw)) continue;
    const schema = resolve(raw, components);
    const alternatives = alternativesOf(schema, components);
    if (alternatives && alternatives.length === 1) {
      const [only] = alternatives;
      out.push({ name, required: required.has(name), schema: { ...only, ...withoutUnion(schema) } });
    } else if (alternatives && alternatives.length > 1) {
      out.push({ name, required: required.has(name), schema: withoutUnion(schema), alternatives });
    } else {
      out.push({ name, required: required.has(name), schema });
    }
  }
  return out;
}

/** An anyOf/oneOf's alternatives, resolved, without the `null` one (a nullable field is its other alternative). */
function alternativesOf(s: SchemaObject, components: Record<string, unknown> | undefined): SchemaObject[] | undefined {
  const union = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  if (!union) return undefined;
  return union
    .filter(isObject)
    .map((a) => resolve(a, components))
    .filter((a) => a.type !== "null");
}

function withoutUnion(s: SchemaObject): SchemaObject {
  const { anyOf: _a, oneOf: _o, ...rest } = s;
  return rest;
}

/**
 * A schema with its `$ref` followed (to `#/components/schemas/…`) and its `allOf` merged, the referring object's own
 * keys (default, description, x-order) over the referred ones: Replicate wraps each enum in `allOf: [{$ref}]`.
 */
function resolve(s: SchemaObject, components: Record<string, unknown> | undefined, depth = 0): SchemaObject {
  if (depth > 16) return s;
  let out: SchemaObject = s;
  if (typeof s.$ref === "string") {
    const target = refTarget(s.$ref, components);
    const { $ref: _, ...own } = s;
    out = target ? { ...resolve(target, components, depth + 1), ...own } : own;
  }
  if (Array.isArray(out.allOf)) {
    const { allOf, ...own } = out;
    let merged: SchemaObject = {};
    for (const part of allOf.filter(isObject)) merged = { ...merged, ...resolve(part, components, depth + 1) };
    out = { ...merged, ...own };
  }
  return out;
}

function refTarget(ref: string, components: Record<string, unknown> | undefined): SchemaObject | undefined {
  const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
  const target = match ? components?.[decodeURIComponent(match[1]!)] : undefined;
  return isObject(target) ? target : undefined;
}

/** The type a schema declares, or the one its enum implies (Replicate's enums carry `type: string`). */
function typeOf(s: SchemaObject): string | undefined {
  if (typeof s.type === "string") return s.type;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== "null") as string | undefined;
  const choices = enumOf(s);
  if (choices?.every((c) => typeof c === "string")) return "string";
  if (choices?.every((c) => typeof c === "number")) return choices.every(Number.isInteger) ? "integer" : "number";
  if (isObject(s.properties)) return "object";
  return undefined;
}

function isNumeric(s: SchemaObject): boolean {
  const type = typeOf(s);
  return type === "integer" || type === "number";
}

function enumOf(s: SchemaObject): unknown[] | undefined {
  return Array.isArray(s.enum) ? s.enum.filter((v) => v !== null) : undefined;
}

function stringChoices(s: SchemaObject): string[] | undefined {
  const choices = enumOf(s);
  return choices ? choices.map(String) : undefined;
}

function numberOf(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function isObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
