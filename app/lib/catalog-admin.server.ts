import { data } from "react-router";
import type { AdminResult } from "#app/components/admin/user-actions.tsx";
import { CatalogRefusal } from "#server/modules/catalog/edit-models.ts";
import { isProviderId, providerDefinition } from "#server/providers/registry.ts";
import type { Db } from "#server/db/client.ts";
import type { ConnectionSource } from "#server/providers/index.ts";
import type { ModelDefinition } from "#server/modules/catalog/model-definition.ts";
import { whyNotOffered } from "#server/modules/generation/offer-readiness.ts";

/** One property of the objects a list setting holds (a pool's server: its URL, weight and most jobs at once). */
export interface SettingProperty {
  key: string;
  type: "text" | "number";
  required: boolean;
}

/**
 * How the console draws one setting of a provider's connection: a secret (never shown), a map of secrets by key (a
 * header per server), a text, a number, a list of texts, a list of objects (one a line) or a switch.
 */
export interface SettingField {
  key: string;
  type: "secret" | "secretMap" | "text" | "number" | "list" | "objects" | "boolean";
  required: boolean;
  /** A list of objects' properties: the first is written bare, the others as name=value. */
  properties?: SettingProperty[];
}

interface ZodDef {
  type: string;
  innerType?: { _zod: { def: ZodDef } };
  element?: { _zod: { def: ZodDef } };
  shape?: Record<string, { _zod: { def: ZodDef } }>;
}

/** A schema's definition under its optional and default wrappers, and whether it may be left out. */
function unwrap(schema: unknown): { def: ZodDef; required: boolean } {
  let def = (schema as { _zod: { def: ZodDef } })._zod.def;
  const required = def.type !== "optional";
  while ((def.type === "optional" || def.type === "default") && def.innerType) def = def.innerType._zod.def;
  return { def, required };
}

/** A provider's connection settings, read from its schema's shape. */
export function settingFieldsOf(provider: string): SettingField[] {
  if (!isProviderId(provider)) return [];
  const definition = providerDefinition(provider);
  const shape = (definition.connectionSchema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  return Object.entries(shape).map(([key, schema]): SettingField => {
    const { def, required } = unwrap(schema);
    if ((definition.secrets as readonly string[]).includes(key))
      return { key, type: def.type === "record" ? "secretMap" : "secret", required };
    if (def.type === "array" && def.element) {
      const element = unwrap(def.element).def;
      if (element.type === "object" && element.shape)
        return {
          key,
          type: "objects",
          required,
          properties: Object.entries(element.shape).map(([name, property]) => {
            const inner = unwrap(property);
            return { key: name, type: inner.def.type === "number" ? "number" : "text", required: inner.required };
          }),
        };
      return { key, type: "list", required };
    }
    if (def.type === "boolean") return { key, type: "boolean", required };
    if (def.type === "number") return { key, type: "number", required };
    return { key, type: "text", required };
  });
}

/** A number as typed, or the text itself when it is none (for the schema to refuse by name). */
function numberOf(text: string): number | string {
  const n = Number(text);
  return text !== "" && Number.isFinite(n) ? n : text;
}

/**
 * One line of a list of objects read as an object: the first word is the first property, the others are
 * `name=value` where the name may be cut short when no other property starts the same (`max=3` for maxJobs). A name
 * that fits no property is kept as given, for the schema to refuse by name.
 */
export function objectOfLine(properties: SettingProperty[], line: string): Record<string, unknown> {
  const [first, ...rest] = line.trim().split(/\s+/);
  const object: Record<string, unknown> = {};
  const [bare, ...named] = properties;
  if (!bare || !first) return object;
  object[bare.key] = bare.type === "number" ? numberOf(first) : first;
  for (const word of rest) {
    const at = word.indexOf("=");
    const name = at < 0 ? word : word.slice(0, at);
    const value = at < 0 ? "" : word.slice(at + 1);
    const lower = name.toLowerCase();
    const exact = named.find((p) => p.key.toLowerCase() === lower);
    const starting = named.filter((p) => p.key.toLowerCase().startsWith(lower));
    const property = exact ?? (lower && starting.length === 1 ? starting[0] : undefined);
    object[property?.key ?? name] = property?.type === "number" ? numberOf(value) : value;
  }
  return object;
}

/** An object of a list as its line in the console: the first property bare, the others as name=value. */
export function lineOfObject(properties: SettingProperty[], object: Record<string, unknown>): string {
  const [bare, ...named] = properties;
  if (!bare) return "";
  return [
    String(object[bare.key] ?? ""),
    ...named
      .filter((p) => object[p.key] !== undefined && object[p.key] !== null)
      .map((p) => `${p.key}=${String(object[p.key])}`),
  ].join(" ");
}

/**
 * The settings a console form gives (`setting.<key>`), by the provider's fields: a blank secret is left out (the
 * kept one stays), a blank text or number is null (removed), a list is one item a line or a comma, a list of objects
 * one object a line, a map of secrets one `key value` a line (blank keeps them all; a key alone removes its value),
 * a switch is on when ticked.
 */
export function settingsOfForm(provider: string, form: FormData): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const field of settingFieldsOf(provider)) {
    const raw = form.get(`setting.${field.key}`);
    const text = typeof raw === "string" ? raw.trim() : "";
    const lines = text
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
    if (field.type === "boolean") settings[field.key] = text === "on" || text === "true";
    else if (field.type === "list")
      settings[field.key] = text
        .split(/[\n,]/)
        .map((s) => s.trim())
        .filter(Boolean);
    else if (field.type === "objects")
      settings[field.key] = lines.length === 0 ? null : lines.map((line) => objectOfLine(field.properties ?? [], line));
    else if (field.type === "secretMap") {
      if (lines.length > 0)
        settings[field.key] = Object.fromEntries(
          lines.map((line) => {
            const space = line.search(/\s/);
            return space < 0 ? [line, null] : [line.slice(0, space), line.slice(space).trim()];
          }),
        );
    } else if (field.type === "secret") {
      if (text) settings[field.key] = text;
    } else if (field.type === "number") settings[field.key] = text === "" ? null : numberOf(text);
    else settings[field.key] = text === "" ? null : text;
  }
  return settings;
}

/** A refused change of the catalog as the console shows it: a translated message naming the field at fault. */
export function refusalResult(intent: string, error: unknown, values: Record<string, string> = {}) {
  if (!(error instanceof CatalogRefusal)) throw error;
  const field = error.field?.split(".")[0] ?? "";
  return data<AdminResult>(
    {
      intent,
      error: field ? `catalog.refused.${error.reason}Field` : `catalog.refused.${error.reason}`,
      field: error.field,
      values: { ...values, field: error.field ?? "" },
    },
    { status: 400 },
  );
}

/**
 * What stops a model being switched on, as the console shows it: a server lacking a node type or a model file, or a
 * workflow whose version has not passed a test yet (409); none when nothing does.
 */
export async function offerRefusal(
  { db, connections }: { db: Db; connections: ConnectionSource },
  {
    id,
    definition,
    intent,
    values,
  }: { id: string; definition: ModelDefinition; intent: string; values: Record<string, string> },
) {
  const why = await whyNotOffered({ db, connections, definition, id });
  if (!why) return undefined;
  return data<AdminResult>(
    why.reason === "problems"
      ? { intent, error: "workflowInputs.problems", values: { ...values, detail: why.problems.join("; ") } }
      : { intent, error: "workflowInputs.untested", values: { ...values, version: String(why.untested[0]!.version) } },
    { status: 409 },
  );
}
