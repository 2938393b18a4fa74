import { toolsOfKind } from "#common/tools.ts";
import { checkParameters, PRICED_SETTINGS, type ModelPrice, type ParameterField } from "#common/model-parameters.ts";
import type { InputMapping } from "#common/input-mapping.ts";
import { IMAGE_ASPECT_RATIOS, VIDEO_DURATIONS, type AspectRatio } from "#common/generation.ts";
import { PARAMETER_NAME } from "#common/model-parameters.ts";
import type { ModelDefinition } from "#server/modules/catalog/model-definition.ts";
import type { AdminResult } from "#app/components/admin/user-actions.tsx";

export type MediaDefinition = Exclude<ModelDefinition, { kind: "chat" }>;

/** A value of the model editor that cannot be read: the message's key, the field at fault and the message's values. */
export class EditorRefusal extends Error {
  readonly key: string;
  readonly field: string;
  readonly values: Record<string, string>;
  constructor(key: string, field: string, values: Record<string, string> = {}) {
    super(key);
    this.key = key;
    this.field = field;
    this.values = values;
  }
}

const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();

/** A value as JSON with its objects' keys sorted: two values the same but for their keys' order read the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** `next`, or `kept` when they are the same value (so saving a form unchanged changes nothing, not even an order). */
export function unlessSame<T>(next: T, kept: T): T {
  return canonical(next) === canonical(kept) ? kept : next;
}

const sameSet = (a: readonly unknown[], b: readonly unknown[] | undefined) =>
  b !== undefined && a.length === b.length && a.every((x) => b.includes(x));

/** A decimal number from a form (a comma as the decimal mark too); undefined when blank; NaN when not a number. */
function decimalOf(form: FormData, name: string): number | undefined {
  const v = text(form, name);
  if (v === "") return undefined;
  return /^-?\d{1,9}([.,]\d{1,9})?$/.test(v) ? Number(v.replace(",", ".")) : NaN;
}

const fieldName = (form: FormData, name: string) => {
  const v = text(form, name);
  if (v === "") return undefined;
  if (!PARAMETER_NAME.test(v)) throw new EditorRefusal("modelEditor.errors.field", name);
  return v;
};

/**
 * A binding's mapping as the editor sends it under `prefix` (`binding.0.map.`): each common parameter's provider
 * field, or none. Undefined when the form has no mapping editor there (the binding keeps none) or maps nothing.
 */
export function mappingOfForm(form: FormData, prefix: string): InputMapping | undefined {
  if (!form.has(`${prefix}shown`)) return undefined;
  const f = (key: string) => fieldName(form, `${prefix}${key}`);
  const mapping: InputMapping = {
    prompt: f("prompt"),
    negativePrompt: f("negativePrompt"),
    seed: f("seed"),
    count: f("count"),
    width: f("width"),
    height: f("height"),
    mask: f("mask"),
    endImage: f("endImage"),
    scale: f("scale"),
    strength: f("strength"),
    resolution: f("resolution"),
    audio: f("audio"),
  };
  const ratioField = f("aspectRatio");
  if (ratioField) {
    const how = text(form, `${prefix}aspectRatio.as`);
    const values: Partial<Record<AspectRatio, string>> = {};
    if (how === "named")
      for (const ratio of IMAGE_ASPECT_RATIOS) {
        const v = text(form, `${prefix}aspectRatio.value.${ratio}`);
        if (v.length > 100) throw new EditorRefusal("modelEditor.errors.field", `${prefix}aspectRatio.value.${ratio}`);
        if (v) values[ratio] = v;
      }
    if (how === "named" && Object.keys(values).length === 0)
      throw new EditorRefusal("modelEditor.errors.namedSizes", `${prefix}aspectRatio.as`);
    mapping.aspectRatio = {
      field: ratioField,
      ...(how === "named" ? { values } : {}),
      ...(how === "size" ? { sizeObject: true } : {}),
    };
  }
  const image = f("inputImage");
  if (image) mapping.inputImage = { field: image, ...(form.has(`${prefix}inputImage.list`) ? { list: true } : {}) };
  const duration = f("duration");
  if (duration) {
    const as = text(form, `${prefix}duration.as`) === "string" ? "string" : "integer";
    const suffix = text(form, `${prefix}duration.suffix`);
    if (suffix.length > 10) throw new EditorRefusal("modelEditor.errors.field", `${prefix}duration.suffix`);
    mapping.duration = { field: duration, as, ...(as === "string" && suffix ? { suffix } : {}) };
  }
  for (const key of Object.keys(mapping) as (keyof InputMapping)[]) if (mapping[key] === undefined) delete mapping[key];
  return Object.keys(mapping).length > 0 ? mapping : undefined;
}

/** The tools the editor sends (`limits.tools`): at least one, each of the model's kind; unchanged when not shown. */
export function toolsOfForm(form: FormData, base: MediaDefinition): MediaDefinition["tools"] {
  if (!form.has("limits.shown")) return base.tools;
  const sent = form.getAll("limits.tools").map(String);
  const ofKind = toolsOfKind(base.kind) as string[];
  const tools = ofKind.filter((t) => sent.includes(t)) as MediaDefinition["tools"];
  if (tools.length === 0 || tools.length !== sent.length)
    throw new EditorRefusal("modelEditor.errors.tools", "limits.tools");
  return sameSet(tools, base.tools) ? base.tools : tools;
}

/** The common limits as the editor sends them (`limits.`), over the model's own. */
export function optionsOfForm(form: FormData, base: MediaDefinition): MediaDefinition["options"] {
  if (!form.has("limits.shown")) return base.options;
  const next = { ...base.options };
  const ratios = form.getAll("limits.aspectRatios").map(String);
  const known = ratios.filter((r): r is AspectRatio => (IMAGE_ASPECT_RATIOS as readonly string[]).includes(r));
  if (known.length === 0 || known.length !== ratios.length)
    throw new EditorRefusal("modelEditor.errors.aspectRatios", "limits.aspectRatios");
  next.aspectRatios = sameSet(known, base.options.aspectRatios) ? base.options.aspectRatios : known;
  if (base.kind === "image") {
    const count = decimalOf(form, "limits.maxCount");
    if (count === undefined || !Number.isInteger(count) || count < 1 || count > 10)
      throw new EditorRefusal("modelEditor.errors.maxCount", "limits.maxCount");
    next.maxCount = count;
  } else {
    const durations = form.getAll("limits.durations").map(Number);
    const allowed = durations.filter((d): d is (typeof VIDEO_DURATIONS)[number] =>
      (VIDEO_DURATIONS as readonly number[]).includes(d),
    );
    if (allowed.length === 0 || allowed.length !== durations.length)
      throw new EditorRefusal("modelEditor.errors.durations", "limits.durations");
    next.durations = sameSet(allowed, base.options.durations) ? base.options.durations : allowed;
    if (form.has("limits.audio")) next.audio = true;
    else if (base.options.audio === undefined) delete next.audio;
    else next.audio = false;
  }
  const resolutions = text(form, "limits.resolutions")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (resolutions.length > 20 || resolutions.some((r) => r.length > 40))
    throw new EditorRefusal("modelEditor.errors.resolutions", "limits.resolutions");
  if (resolutions.length > 0) next.resolutions = [...new Set(resolutions)];
  else delete next.resolutions;
  return unlessSame(next, base.options);
}

/**
 * The advanced settings as the editor sends them (`param.<n>.`): each of the model's own fields with its label and
 * default changed, or dropped. A field the model does not have is ignored; its type, limits and choices stay.
 */
export function parametersOfForm(form: FormData, base: readonly ParameterField[] | undefined): ParameterField[] {
  if (!form.has("params.shown")) return [...(base ?? [])];
  const out: ParameterField[] = [];
  for (let i = 0; form.has(`param.${i}.name`); i++) {
    const field = base?.find((f) => f.name === text(form, `param.${i}.name`));
    if (!field || form.has(`param.${i}.drop`)) continue;
    const label = text(form, `param.${i}.label`);
    if (!label || label.length > 100)
      throw new EditorRefusal("modelEditor.errors.label", `param.${i}.label`, { name: field.name });
    const raw = text(form, `param.${i}.default`);
    let value: ParameterField["default"];
    if (raw !== "") {
      const checked = checkParameters([{ ...field, default: undefined }], { [field.name]: raw });
      if (!checked.ok)
        throw new EditorRefusal("modelEditor.errors.default", `param.${i}.default`, { name: field.name });
      value = checked.values[field.name];
    }
    const next: ParameterField = { ...field, label, default: value };
    if (value === undefined) delete next.default;
    out.push(unlessSame(next, field));
  }
  return out;
}

/** The settings a price formula may name: the common ones, then the model's advanced settings. */
export const pricedSettings = (parameters: readonly ParameterField[] | undefined) => [
  ...PRICED_SETTINGS,
  ...(parameters ?? []).map((p) => p.name),
];

/** The price formula and the provider's cost as the editor sends them (`price.`, `mult.<n>.`). */
export function priceOfForm(
  form: FormData,
  parameters: readonly ParameterField[] | undefined,
): { price: ModelPrice; cost: number | undefined } {
  const unit = text(form, "price.unit");
  if (unit !== "image" && unit !== "video" && unit !== "videoSecond")
    throw new EditorRefusal("modelEditor.errors.unit", "price.unit");
  const credits = decimalOf(form, "price.credits");
  if (credits === undefined || !Number.isFinite(credits) || credits < 0 || credits > 1_000_000)
    throw new EditorRefusal("modelEditor.errors.credits", "price.credits");
  const minimum = decimalOf(form, "price.minimum");
  if (minimum !== undefined && (!Number.isInteger(minimum) || minimum < 0 || minimum > 1_000_000))
    throw new EditorRefusal("modelEditor.errors.minimum", "price.minimum");
  const cost = decimalOf(form, "price.cost");
  if (cost !== undefined && (!Number.isFinite(cost) || cost < 0 || cost > 100_000))
    throw new EditorRefusal("models.errors.cost", "price.cost");
  const settings = pricedSettings(parameters);
  const multipliers: Record<string, Record<string, number>> = {};
  for (let i = 0; form.has(`mult.${i}.setting`); i++) {
    const setting = text(form, `mult.${i}.setting`);
    const value = text(form, `mult.${i}.value`);
    const factorText = text(form, `mult.${i}.factor`);
    if (!setting || (!value && !factorText)) continue;
    if (!settings.includes(setting)) throw new EditorRefusal("modelEditor.errors.setting", `mult.${i}.setting`);
    if (!value || value.length > 200) throw new EditorRefusal("modelEditor.errors.multiplierValue", `mult.${i}.value`);
    const factor = decimalOf(form, `mult.${i}.factor`);
    if (factor === undefined || !Number.isFinite(factor) || factor < 0 || factor > 10_000)
      throw new EditorRefusal("modelEditor.errors.factor", `mult.${i}.factor`);
    (multipliers[setting] ??= {})[value] = factor;
  }
  if (Object.keys(multipliers).length > 12) throw new EditorRefusal("modelEditor.errors.setting", "mult.0.setting");
  return {
    price: {
      unit,
      credits,
      ...(Object.keys(multipliers).length > 0 ? { multipliers } : {}),
      ...(minimum ? { minimum } : {}),
    },
    cost,
  };
}

/**
 * The model's mapping, limits, advanced settings and price as the editor sends them, over `base`: the first binding's
 * mapping (the add page has one binding; the model page reads each binding's mapping itself).
 */
export function editedDefinition(form: FormData, base: MediaDefinition): MediaDefinition {
  const parameters = parametersOfForm(form, base.parameters);
  const { price, cost } = priceOfForm(form, parameters);
  const next: MediaDefinition = {
    ...base,
    tools: toolsOfForm(form, base),
    options: optionsOfForm(form, base),
    price: unlessSame(price, base.price),
  };
  if (parameters.length > 0) next.parameters = parameters;
  else delete next.parameters;
  if (cost === undefined) delete next.cost;
  else next.cost = cost;
  return next;
}

/** What the form sent, to fill it again as it was typed when a value is refused. */
export function typedOf(form: FormData): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of form.entries()) if (typeof value === "string") (out[name] ??= []).push(value);
  return out;
}

/** The refusal as the console shows it. */
export function editorRefusalResult(intent: string, error: EditorRefusal): AdminResult {
  return { intent, error: error.key, field: error.field, values: error.values };
}

/** What one credit is worth at least, in minor units of the first pack's currency: its packs' lowest price. */
export function creditValueOf(packs: readonly { currency: string; amount: number; credits: number }[]) {
  const currency = packs[0]!.currency;
  const creditValue = Math.min(...packs.filter((p) => p.currency === currency).map((p) => p.amount / p.credits));
  return { currency, creditValue };
}
