import { z } from "zod";

/**
 * A model's own settings beyond Atelier's common ones (guidance, steps, a safety switch, a camera motion…), declared
 * once from the provider's input schema: the studio draws its advanced controls from them, the server and both APIs
 * check requests against them, and the OpenAPI document and `/api/v1/models` describe them.
 */
export interface ParameterField {
  /** The provider's input name, sent as is. */
  name: string;
  type: "string" | "integer" | "number" | "boolean";
  /** What the studio calls it (the provider's title, or the name made readable). */
  label: string;
  description?: string;
  default?: ParameterValue;
  minimum?: number;
  maximum?: number;
  /** The only values it takes. */
  choices?: (string | number)[];
  maxLength?: number;
}
export type ParameterValue = string | number | boolean;
export type ParameterValues = Record<string, ParameterValue>;

export const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;
const value = z.union([z.string().max(2000), z.number(), z.boolean()]);

export const parameterFieldSchema = z
  .strictObject({
    name: z.string().regex(PARAMETER_NAME, "a provider input name"),
    type: z.enum(["string", "integer", "number", "boolean"]),
    label: z.string().trim().min(1).max(100),
    description: z.string().trim().max(1000).optional(),
    default: value.optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    choices: z
      .array(z.union([z.string().max(200), z.number()]))
      .min(1)
      .max(100)
      .optional(),
    maxLength: z.number().int().min(1).max(100_000).optional(),
  })
  .refine((f) => f.minimum === undefined || f.maximum === undefined || f.minimum <= f.maximum, {
    message: "minimum above maximum",
  });

/** The request's advanced values as sent: JSON from the pages and `/api/v1`, strings from a form. */
export const parameterValuesSchema = z.record(z.string().regex(PARAMETER_NAME), value);

export type ParameterCheck =
  | { ok: true; values: ParameterValues }
  | { ok: false; field: string; reason: "unknown" | "type" | "range" | "choice" | "length"; detail: string };

/**
 * Checks advanced values against a model's fields: a name it does not declare, a wrong type, a value out of range or
 * not among the choices is refused; strings a form sends are read as the field's type; fields left out take their
 * default (so the price and the provider see the same values the studio showed).
 */
export function checkParameters(
  fields: readonly ParameterField[] | undefined,
  values: Record<string, unknown> | undefined,
): ParameterCheck {
  const declared = new Map((fields ?? []).map((f) => [f.name, f]));
  const out: ParameterValues = {};
  for (const [name, raw] of Object.entries(values ?? {})) {
    const field = declared.get(name);
    if (!field)
      return { ok: false, field: name, reason: "unknown", detail: `${name}: this model takes no such setting` };
    if (raw === undefined || raw === null || raw === "") continue;
    const read = readAs(field, raw);
    if (read === undefined) {
      return { ok: false, field: name, reason: "type", detail: `${name}: expected ${article(field.type)}` };
    }
    const problem = limitsProblem(field, read);
    if (problem) return { ok: false, field: name, ...problem };
    out[name] = read;
  }
  for (const f of fields ?? []) if (!(f.name in out) && f.default !== undefined) out[f.name] = f.default;
  return { ok: true, values: out };
}

const article = (type: ParameterField["type"]) => (type === "integer" ? "an integer" : `a ${type}`);

function readAs(field: ParameterField, raw: unknown): ParameterValue | undefined {
  switch (field.type) {
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (raw === "true" || raw === "on" || raw === "1") return true;
      if (raw === "false" || raw === "off" || raw === "0") return false;
      return undefined;
    case "integer":
    case "number": {
      const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
      if (!Number.isFinite(n)) return undefined;
      if (field.type === "integer" && !Number.isInteger(n)) return undefined;
      return n;
    }
    case "string":
      if (typeof raw === "string") return raw;
      if (typeof raw === "number" && field.choices?.includes(String(raw))) return String(raw);
      return undefined;
  }
}

function limitsProblem(
  field: ParameterField,
  v: ParameterValue,
): { reason: "range" | "choice" | "length"; detail: string } | undefined {
  if (field.choices && !field.choices.some((c) => c === v || String(c) === String(v))) {
    return { reason: "choice", detail: `${field.name}: one of ${field.choices.join(", ")}` };
  }
  if (typeof v === "number") {
    if (field.minimum !== undefined && v < field.minimum) {
      return { reason: "range", detail: `${field.name}: at least ${field.minimum}` };
    }
    if (field.maximum !== undefined && v > field.maximum) {
      return { reason: "range", detail: `${field.name}: at most ${field.maximum}` };
    }
  }
  if (typeof v === "string" && field.maxLength !== undefined && v.length > field.maxLength) {
    return { reason: "length", detail: `${field.name}: at most ${field.maxLength} characters` };
  }
  return undefined;
}

/** The fields as a JSON Schema object (for `/api/v1/models` and the OpenAPI document). */
export function parametersJsonSchema(fields: readonly ParameterField[] | undefined) {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const f of fields ?? []) {
    properties[f.name] = {
      type: f.type,
      title: f.label,
      ...(f.description ? { description: f.description } : {}),
      ...(f.default !== undefined ? { default: f.default } : {}),
      ...(f.minimum !== undefined ? { minimum: f.minimum } : {}),
      ...(f.maximum !== undefined ? { maximum: f.maximum } : {}),
      ...(f.choices ? { enum: f.choices } : {}),
      ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}),
    };
  }
  return { type: "object", properties, additionalProperties: false };
}

// ---------------------------------------------------------------------------------------------------------------
// Prices

export const PRICE_UNITS = ["image", "video", "videoSecond"] as const;
export type PriceUnit = (typeof PRICE_UNITS)[number];

/**
 * A model's price: credits per image, per video or per second of video, times a multiplier for each setting whose
 * value the formula names (a resolution, a duration, the count, a quality, audio on, or any advanced setting by its
 * name), rounded up to whole credits, and never under the minimum.
 */
export interface ModelPrice {
  unit: PriceUnit;
  credits: number;
  /** By setting, then by its value (`{"resolution": {"1080p": 2}, "audio": {"true": 1.5}}`); other values: ×1. */
  multipliers?: Record<string, Record<string, number>>;
  minimum?: number;
}

/** The settings a formula can name besides the advanced ones. */
export const PRICED_SETTINGS = ["count", "duration", "resolution", "audio", "aspectRatio", "scale"] as const;

export const priceSchema = z.strictObject({
  unit: z.enum(PRICE_UNITS),
  credits: z.number().min(0).max(1_000_000),
  multipliers: z
    .record(
      z.string().regex(PARAMETER_NAME),
      z.record(z.string().min(1).max(200), z.number().min(0).max(10_000)).refine((t) => Object.keys(t).length <= 100),
    )
    .refine((m) => Object.keys(m).length <= 12, "at most 12 settings")
    .optional(),
  minimum: z.number().int().min(0).max(1_000_000).optional(),
});

/** What a request asks for, as far as a price can depend on it. */
export interface PricedRequest {
  count: number;
  duration?: number;
  resolution?: string;
  audio?: boolean;
  aspectRatio?: string;
  /** An upscale's factor: a formula names it as `scale` (`{"scale": {"4": 4}}`). */
  scale?: number;
  /** The advanced settings, defaults included (`checkParameters`). */
  options?: ParameterValues;
}

/**
 * Credits a request costs. The one price function: the studio before submitting, the chat's confirmation,
 * `/api/v1`'s quote, `/v1` and the charge itself all call it, so the price shown is the price charged.
 */
export function priceOf(price: ModelPrice, request: PricedRequest): number {
  const units = price.unit === "image" ? request.count : price.unit === "video" ? 1 : (request.duration ?? 5);
  let total = price.credits * units;
  for (const [setting, table] of Object.entries(price.multipliers ?? {})) {
    const v = settingValue(setting, request);
    if (v === undefined) continue;
    const factor = table[String(v)];
    if (factor !== undefined) total *= factor;
  }
  // Rounded up to whole credits, past floating-point noise (0.1 × 3 × 10 is 3, not 4).
  const credits = Math.ceil(Math.round(total * 1e6) / 1e6);
  return Math.max(price.minimum ?? 0, credits);
}

function settingValue(setting: string, r: PricedRequest): ParameterValue | undefined {
  switch (setting) {
    case "count":
      return r.count;
    case "duration":
      return r.duration;
    case "resolution":
      return r.resolution;
    case "audio":
      return r.audio ?? false;
    case "aspectRatio":
      return r.aspectRatio;
    case "scale":
      return r.scale;
    default:
      return r.options?.[setting];
  }
}

/** A formula as one line for people: "3 per image · resolution 1080p ×2 · minimum 5". */
export function describePrice(price: ModelPrice): string {
  const unit = price.unit === "videoSecond" ? "second" : price.unit;
  const parts = [`${price.credits} per ${unit}`];
  for (const [setting, table] of Object.entries(price.multipliers ?? {})) {
    parts.push(
      `${setting} ${Object.entries(table)
        .map(([v, f]) => `${v} ×${f}`)
        .join(", ")}`,
    );
  }
  if (price.minimum) parts.push(`minimum ${price.minimum}`);
  return parts.join(" · ");
}
