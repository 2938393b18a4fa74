import { createMarkdown } from "#server/modules/content/markdown.ts";
import type { Locale } from "#common/locales.ts";

/**
 * The API reference as the page draws it, made from the OpenAPI document the API serves: every operation grouped by
 * tag in the document's order, with its parameters, request body, responses and an example request. Texts are the
 * document's own (in the reader's language when it was translated); descriptions are its Markdown rendered with raw
 * HTML disabled.
 */
export interface ApiReference {
  title: string;
  version: string;
  /** The first server's URL: where every path starts. */
  baseUrl: string;
  description?: string;
  /** The ways of authenticating the document describes. */
  auth: AuthNote[];
  groups: ReferenceGroup[];
  /** The named schemas the operations link to instead of repeating them, each described once. */
  objects: ReferenceObject[];
}

export interface AuthNote {
  /** How a request carries it, e.g. `Authorization: Bearer <token>`. */
  usage: string;
  description?: string;
}

export interface ReferenceGroup {
  id: string;
  name: string;
  description?: string;
  operations: ReferenceOperation[];
}

export interface ReferenceOperation {
  id: string;
  /** A webhook is a request this server sends; its "path" is the event's name. */
  webhook: boolean;
  method: string;
  path: string;
  summary: string;
  description?: string;
  /** Empty when the operation needs no authentication. */
  auth: AuthNote[];
  parameters: { location: ParameterLocation; fields: ReferenceField[] }[];
  body?: { required: boolean; contents: { mediaType: string; shape: ReferenceShape }[] };
  responses: ReferenceResponse[];
  /** A curl command for an operation, the HTTP request it receives for a webhook. */
  example: string;
}

export type ParameterLocation = "path" | "query" | "header" | "cookie";

export interface ReferenceResponse {
  status: string;
  description: string;
  mediaType?: string;
  /** The body's shape: with its fields for the main success answer, its type alone for the others. */
  shape?: ReferenceShape;
}

/** A schema as the page shows it: its type in JSON Schema's words and, for an object, its fields. */
export interface ReferenceShape {
  /** `string`, `integer | null`, `Generation`, `Model[]`… */
  type: string;
  format?: string;
  /** The anchor of the named object the type stands for, described under Objects (absent when its fields are here). */
  link?: string;
  description?: string;
  /** Allowed values, as JSON (strings unquoted). */
  values?: string[];
  default?: string;
  range?: { min?: number; max?: number; of: "value" | "length" };
  fields?: ReferenceField[];
}

export interface ReferenceField extends ReferenceShape {
  name: string;
  required: boolean;
}

export interface ReferenceObject {
  id: string;
  name: string;
  shape: ReferenceShape;
}

// The parts of an OpenAPI 3.1 document read here (the generator's own types are wider than what is needed).
interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}
interface Parameter {
  name: string;
  in: ParameterLocation;
  required?: boolean;
  description?: string;
  schema?: Schema;
  example?: unknown;
}
interface MediaType {
  schema?: Schema;
}
interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}
interface SecurityScheme {
  type: string;
  scheme?: string;
  name?: string;
  in?: string;
  description?: string;
}
interface Document {
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  /** `x-displayName`: the name shown, in the reader's language; `name` stays the English one operations refer to. */
  tags?: { name: string; description?: string; "x-displayName"?: string }[];
  security?: Record<string, string[]>[];
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, SecurityScheme> };
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const LOCATIONS: ParameterLocation[] = ["path", "query", "header", "cookie"];
const REF_PREFIX = "#/components/schemas/";
/** The variable the guides keep the API key in: examples read it from there. */
const API_KEY_VARIABLE = "$ATELIER_API_KEY";

/** An anchor from any text: lower-case letters and digits joined by dashes. */
const anchor = (...parts: string[]) =>
  parts
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");

const refName = (schema: Schema | undefined) =>
  schema?.$ref?.startsWith(REF_PREFIX) ? schema.$ref.slice(REF_PREFIX.length) : undefined;

/** A value as the page shows it: strings as they are, anything else as JSON. */
const shown = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

export function buildApiReference(source: object, locale: Locale): ApiReference {
  const doc = source as Document;
  const md = createMarkdown(locale);
  const block = (text: string | undefined) => (text ? md.render(text) : undefined);
  const inline = (text: string | undefined) => (text ? md.renderInline(text) : undefined);
  const schemas = doc.components?.schemas ?? {};
  const resolve = (schema: Schema | undefined): Schema => {
    const name = refName(schema);
    return (name ? schemas[name] : schema) ?? {};
  };

  const operations: (Operation & { method: string; path: string; webhook: boolean; server?: string })[] = [];
  for (const [webhook, items] of [
    [false, doc.paths],
    [true, doc.webhooks],
  ] as const) {
    for (const [path, item] of Object.entries(items ?? {})) {
      const shared = (item.parameters as Parameter[] | undefined) ?? [];
      for (const method of METHODS) {
        const op = item[method] as Operation | undefined;
        if (!op) continue;
        // Parameters of the path item apply to each of its operations unless one redefines them.
        const own = op.parameters ?? [];
        const inherited = shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
        // A path may name its own server (an API beside the document's base URL).
        const server = (item.servers as { url: string }[] | undefined)?.[0]?.url;
        operations.push({ ...op, parameters: [...inherited, ...own], method, path, webhook, server });
      }
    }
  }

  // A named schema used in one place is shown there; one used in several is described once under Objects and linked.
  // The body of a request is always shown in full: it is what a caller writes.
  const uses = new Map<string, number>();
  const count = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(count);
    else if (value && typeof value === "object") {
      const name = refName(value as Schema);
      if (name) uses.set(name, (uses.get(name) ?? 0) + 1);
      Object.values(value).forEach(count);
    }
  };
  for (const op of operations) {
    count(op.parameters);
    count(op.responses);
    // A body's own named schema is not a use; what it refers to is counted with the named schemas below.
    for (const media of Object.values(op.requestBody?.content ?? {})) if (!refName(media.schema)) count(media.schema);
  }
  for (const schema of Object.values(schemas)) count(schema);

  const linked: string[] = [];
  const link = (name: string) => {
    if (!linked.includes(name)) linked.push(name);
    return name;
  };

  /** The page's view of a schema; `expanding` holds the named schemas being drawn around it (no endless cycle). */
  const shape = (schema: Schema, o: { expand: boolean; expanding: string[] }): ReferenceShape => {
    const name = refName(schema);
    if (name) {
      if (!o.expand && ((uses.get(name) ?? 0) > 1 || o.expanding.includes(name) || !schemas[name])) {
        return clean({ type: name, link: anchor("object", link(name)), description: inline(schema.description) });
      }
      const inner = shape(schemas[name]!, { expand: false, expanding: [...o.expanding, name] });
      return clean({
        ...inner,
        type: inner.fields ? name : inner.type,
        description: inline(schema.description) ?? inner.description,
      });
    }
    if (schema.allOf) return merge(schema, schema.allOf, o);
    const variants = schema.anyOf ?? schema.oneOf;
    if (variants) {
      const shapes = variants.map((v) => shape(v, { ...o, expand: false }));
      // `X | null`: the one real variant, nullable
      const real = shapes.filter((s) => s.type !== "null");
      if (real.length === 1 && shapes.length === 2) {
        return clean({
          ...real[0]!,
          type: `${real[0]!.type} | null`,
          description: inline(schema.description) ?? real[0]!.description,
        });
      }
      const types = [...new Set(shapes.map((s) => s.type))];
      const values = shapes.every((s) => s.values) ? shapes.flatMap((s) => s.values!) : undefined;
      return clean({
        type: types.join(" | "),
        description: inline(schema.description),
        values,
        default: schema.default === undefined ? undefined : shown(schema.default),
      });
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    const values =
      schema.const !== undefined ? [schema.const] : schema.enum?.filter((v) => v !== null && v !== undefined);
    const result: ReferenceShape = {
      type: types.join(" | ") || (schema.properties ? "object" : "any"),
      format: schema.format,
      description: inline(schema.description),
      values: values && values.length > 0 ? values.map(shown) : undefined,
      default: schema.default === undefined ? undefined : shown(schema.default),
    };
    const text = types.includes("string");
    const [min, max] = text ? [schema.minLength, schema.maxLength] : [schema.minimum, schema.maximum];
    const of: "length" | "value" = text ? "length" : "value";
    if (min !== undefined || max !== undefined) result.range = clean({ min, max, of });
    if (types.includes("array") && schema.items) {
      const item = shape(schema.items, { ...o, expand: false });
      result.type = result.type.replace("array", `${item.type.includes(" ") ? `(${item.type})` : item.type}[]`);
      result.link = item.link;
      result.fields = item.fields;
      result.values ??= item.values;
      result.format ??= item.format;
    }
    if (schema.properties) {
      const required = new Set(schema.required ?? []);
      result.fields = Object.entries(schema.properties).map(([field, s]) => ({
        name: field,
        required: required.has(field),
        ...shape(s, { ...o, expand: false }),
      }));
    }
    return clean(result);
  };
  const merge = (schema: Schema, parts: Schema[], o: { expand: boolean; expanding: string[] }): ReferenceShape => {
    const fields: ReferenceField[] = [];
    for (const part of parts) {
      const name = refName(part);
      const drawn = shape(part, { expand: true, expanding: name ? [...o.expanding, name] : o.expanding });
      for (const field of drawn.fields ?? []) {
        const at = fields.findIndex((f) => f.name === field.name);
        if (at === -1) fields.push(field);
        else fields[at] = field;
      }
    }
    return clean({ type: "object", description: inline(schema.description), fields });
  };

  const authOf = (requirements: Record<string, string[]>[] | undefined): AuthNote[] =>
    (requirements ?? []).flatMap((requirement) =>
      Object.keys(requirement).map((key) => {
        const scheme = doc.components?.securitySchemes?.[key];
        return clean({ usage: usageOf(key, scheme), description: inline(scheme?.description) });
      }),
    );

  const baseUrl = doc.servers?.[0]?.url ?? "";
  // A group's anchor is made from the tag's English name: the same in every language.
  const groups: ReferenceGroup[] = (doc.tags ?? []).map((t) =>
    clean({
      id: anchor("tag", t.name),
      name: t["x-displayName"] ?? t.name,
      description: block(t.description),
      operations: [],
    }),
  );
  for (const op of operations) {
    const tag = op.tags?.[0] ?? doc.info.title;
    let group = groups.find((g) => g.id === anchor("tag", tag));
    if (!group) groups.push((group = { id: anchor("tag", tag), name: tag, operations: [] }));
    const parameters = LOCATIONS.map((location) => ({
      location,
      fields: (op.parameters ?? [])
        .filter((p) => p.in === location)
        .map((p) => {
          const drawn = shape(p.schema ?? {}, { expand: false, expanding: [] });
          return clean({
            ...drawn,
            name: p.name,
            required: Boolean(p.required),
            description: inline(p.description) ?? drawn.description,
          });
        }),
    })).filter((p) => p.fields.length > 0);
    const body = op.requestBody?.content
      ? {
          required: Boolean(op.requestBody.required),
          contents: Object.entries(op.requestBody.content).map(([mediaType, media]) => ({
            mediaType,
            shape: shape(media.schema ?? {}, { expand: true, expanding: [] }),
          })),
        }
      : undefined;
    const statuses = Object.keys(op.responses ?? {}).sort();
    const main = statuses.find((s) => s.startsWith("2") && op.responses![s]!.content);
    const responses = statuses.map((status): ReferenceResponse => {
      const response = op.responses![status]!;
      const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
      const drawn = media?.schema ? shape(media.schema, { expand: false, expanding: [] }) : undefined;
      return clean({
        status,
        description: inline(response.description) ?? "",
        mediaType,
        // Other answers name their body's type; its fields are under Objects or obvious from the description.
        shape: drawn && status !== main ? { type: drawn.type, link: drawn.link } : drawn,
      });
    });
    const auth = op.webhook ? [] : authOf(op.security ?? doc.security);
    group.operations.push(
      clean({
        id: op.webhook ? anchor("webhook", op.path) : anchor(op.method, op.path),
        webhook: op.webhook,
        method: op.method.toUpperCase(),
        path: op.path,
        summary: op.summary ?? `${op.method.toUpperCase()} ${op.path}`,
        description: block(op.description),
        auth,
        parameters,
        body,
        responses,
        example: op.webhook
          ? webhookExample(op, resolve)
          : curlExample(op, op.server ?? baseUrl, auth.length > 0 ? authHeader(op, doc) : undefined, resolve),
      }),
    );
  }

  // Objects linked from other objects are described too; `linked` grows while this runs.
  const objects: ReferenceObject[] = [];
  for (let i = 0; i < linked.length; i++) {
    const name = linked[i]!;
    objects.push({
      id: anchor("object", name),
      name,
      shape: shape({ $ref: `${REF_PREFIX}${name}` }, { expand: true, expanding: [] }),
    });
  }

  return clean({
    title: doc.info.title,
    version: doc.info.version,
    baseUrl,
    description: block(doc.info.description),
    auth: Object.entries(doc.components?.securitySchemes ?? {}).map(([key, scheme]) =>
      clean({ usage: usageOf(key, scheme), description: inline(scheme.description) }),
    ),
    groups: groups.filter((g) => g.operations.length > 0),
    objects,
  });
}

/** Drops the keys whose value is undefined, so the page's data carries no empty entries. */
function clean<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

/** How a request carries a credential of this scheme. */
function usageOf(key: string, scheme: SecurityScheme | undefined): string {
  if (scheme?.type === "http" && scheme.scheme?.toLowerCase() === "bearer") return "Authorization: Bearer <token>";
  if (scheme?.type === "http" && scheme.scheme?.toLowerCase() === "basic") return "Authorization: Basic <credentials>";
  if (scheme?.type === "apiKey" && scheme.name) return `${scheme.name} (${scheme.in ?? "header"})`;
  return key;
}

/** The header an example sends to authenticate, when the operation's first scheme is one curl can show. */
function authHeader(op: Operation, doc: Document): string | undefined {
  const key = Object.keys((op.security ?? doc.security)?.[0] ?? {})[0];
  const scheme = key ? doc.components?.securitySchemes?.[key] : undefined;
  if (scheme?.type === "http" && scheme.scheme?.toLowerCase() === "bearer") {
    return `Authorization: Bearer ${API_KEY_VARIABLE}`;
  }
  if (scheme?.type === "apiKey" && scheme.in === "header" && scheme.name) return `${scheme.name}: ${API_KEY_VARIABLE}`;
  return undefined;
}

/**
 * A value of a schema for an example: its example, default or first allowed value, or a stand-in for its type.
 * Objects get their required properties: what a minimal, valid request sends. An allowed value among `prefer` wins
 * (a webhook's event name for its `type`, the end of it for a `status`).
 */
function exampleOf(schema: Schema, resolve: (s: Schema) => Schema, prefer: string[] = [], depth = 0): unknown {
  const s = resolve(schema);
  if (depth > 8) return null;
  const preferred = prefer.find((value) => s.enum?.includes(value));
  if (preferred !== undefined) return preferred;
  if (s.example !== undefined) return s.example;
  if (s.examples?.[0] !== undefined) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("null")) return null;
  const allowed = s.enum?.find((v) => v !== null);
  if (allowed !== undefined) return allowed;
  const next = (part: Schema) => exampleOf(part, resolve, prefer, depth + 1);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((part) => next(part) as object));
  const variant = (s.anyOf ?? s.oneOf)?.[0];
  if (variant) return next(variant);
  if (types.includes("object") || s.properties) {
    const required = new Set(s.required ?? []);
    return Object.fromEntries(
      Object.entries(s.properties ?? {})
        .filter(([name]) => required.has(name))
        .map(([name, p]) => [name, next(p)]),
    );
  }
  if (types.includes("array")) return s.items ? [next(s.items)] : [];
  if (types.includes("integer") || types.includes("number")) return s.minimum ?? 0;
  if (types.includes("boolean")) return false;
  if (s.format === "binary") return "@file";
  if (s.format === "date-time") return "2026-01-01T12:00:00Z";
  if (s.format === "uuid") return "00000000-0000-4000-8000-000000000000";
  if (s.format === "uri") return "https://example.com";
  return "string";
}

/** A parameter's value for an example, or a stand-in naming it. */
function parameterExample(p: Parameter, resolve: (s: Schema) => Schema): string {
  const value = p.example ?? exampleOf(p.schema ?? {}, resolve);
  return value === "string" || value === null ? p.name.toUpperCase() : String(value);
}

/** JSON on one line, spaced the way the guides write it. */
const oneLine = (value: unknown) => JSON.stringify(value, null, 1).replace(/\n\s*/g, " ");
/** A shell word: bare when it is plain, single-quoted otherwise. */
const shellWord = (word: string) => (/^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/**
 * A curl command for an operation: path parameters filled in from their examples, required query and header
 * parameters, the key from `$ATELIER_API_KEY`, and a body with the required fields.
 */
function curlExample(
  op: Operation & { method: string; path: string },
  baseUrl: string,
  auth: string | undefined,
  resolve: (s: Schema) => Schema,
): string {
  const params = op.parameters ?? [];
  let url = baseUrl + op.path;
  for (const p of params.filter((p) => p.in === "path")) {
    url = url.replaceAll(`{${p.name}}`, encodeURIComponent(parameterExample(p, resolve)));
  }
  const query = params
    .filter((p) => p.in === "query" && p.required)
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(parameterExample(p, resolve))}`);
  if (query.length > 0) url += `?${query.join("&")}`;
  const lines: string[] = [];
  if (auth) lines.push(`-H "${auth}"`);
  for (const p of params.filter((p) => p.in === "header" && p.required)) {
    lines.push(`-H ${shellWord(`${p.name}: ${parameterExample(p, resolve)}`)}`);
  }
  const content = op.requestBody?.content ?? {};
  const json = Object.keys(content).find((type) => type === "application/json" || type.endsWith("+json"));
  const form = content["multipart/form-data"];
  let body = false;
  if (json) {
    lines.push(
      `-H "Content-Type: ${json}"`,
      `-d ${shellWord(oneLine(exampleOf(content[json]!.schema ?? {}, resolve)))}`,
    );
    body = true;
  } else if (form) {
    const fields = exampleOf(form.schema ?? {}, resolve) as Record<string, unknown>;
    for (const [name, value] of Object.entries(fields)) lines.push(`-F ${shellWord(`${name}=${shown(value)}`)}`);
    body = Object.keys(fields).length > 0;
  }
  const method = op.method.toUpperCase();
  // curl sends GET, or POST with a body, by itself.
  const verb = method === "GET" || (method === "POST" && body) ? "" : `-X ${method} `;
  return [`curl ${verb}${shellWord(url)}`, ...lines].join(" \\\n  ");
}

/** The request a webhook receiver gets: its headers from their examples and a body made from the schema. */
function webhookExample(op: Operation & { path: string }, resolve: (s: Schema) => Schema): string {
  const [mediaType, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  const headers = (op.parameters ?? [])
    .filter((p) => p.in === "header")
    .map((p) => `${p.name}: ${parameterExample(p, resolve)}`);
  const lines = [`POST <webhook_url>`, ...(mediaType ? [`content-type: ${mediaType}`] : []), ...headers];
  const prefer = [op.path, op.path.split(".").pop()!];
  if (media?.schema) lines.push("", JSON.stringify(exampleOf(media.schema, resolve, prefer), null, 2));
  return lines.join("\n");
}
