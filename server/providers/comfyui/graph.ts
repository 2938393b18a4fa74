/**
 * Small readings of ComfyUI's shapes shared by the workflow reader and the UI-format converter: links, an input's
 * spec from `/object_info`, a canonical JSON of a graph, and the refusal a bad workflow gets.
 */
import { canonicalJson } from "#common/canonical-json.ts";
import { createHash } from "node:crypto";
import type { ApiGraph, ApiInput, InputSpec, NodeInfo, ObjectInfo } from "./types.ts";

export type WorkflowRefusalCode =
  | "not_json"
  | "not_workflow"
  | "too_large"
  | "needs_object_info"
  | "unsupported_subgraph"
  | "unknown_node"
  | "bad_node"
  | "missing_link"
  | "no_output"
  | "unknown_setting"
  | "bad_value";

/**
 * Why a workflow (or a value for it) is refused: a code for the caller to translate, the node or slot it concerns,
 * and one readable English line naming them.
 */
export class WorkflowRefusal extends Error {
  readonly code: WorkflowRefusalCode;
  readonly nodeId?: string;
  readonly classType?: string;
  readonly slot?: string;
  constructor(
    code: WorkflowRefusalCode,
    message: string,
    where: { nodeId?: string; classType?: string; slot?: string } = {},
  ) {
    super(message);
    this.name = "WorkflowRefusal";
    this.code = code;
    if (where.nodeId !== undefined) this.nodeId = where.nodeId;
    if (where.classType !== undefined) this.classType = where.classType;
    if (where.slot !== undefined) this.slot = where.slot;
  }
}

/** The most nodes and bytes a workflow may have. */
export const MAX_NODES = 500;
export const MAX_BYTES = 2 * 1024 * 1024;

export type Link = readonly [string, number];

/** A link to another node's output (`["4", 1]`), as opposed to a literal value. */
export function isLink(value: ApiInput | undefined): value is Link {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === "string" &&
    typeof value[1] === "number" &&
    Number.isInteger(value[1])
  );
}

export type Literal = string | number | boolean;
export const isLiteral = (value: ApiInput | undefined): value is Literal =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

/** A record's own entry: never one inherited from Object (a node called "constructor" is no node). */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A node type's definition on the server, when it has one. */
export const nodeInfo = (objectInfo: ObjectInfo | undefined, classType: string): NodeInfo | undefined =>
  own(objectInfo, classType);

/** An input's spec in a node type's definition (required or optional; hidden inputs are no inputs). */
export function inputSpec(info: NodeInfo | undefined, input: string): InputSpec | undefined {
  if (!info) return undefined;
  return own(info.input.required, input) ?? own(info.input.optional, input);
}

/** The inputs of a node type in the order the UI shows them: required, then optional. */
export function inputOrder(info: NodeInfo): string[] {
  const required = info.input_order?.required ?? Object.keys(info.input.required ?? {});
  const optional = info.input_order?.optional ?? Object.keys(info.input.optional ?? {});
  return [...required, ...optional];
}

/** A combo's choices: `[["a", "b"], {…}]` from classic nodes, `["COMBO", {options: […]}]` from newer ones. */
export function comboChoices(spec: InputSpec | undefined): (string | number)[] | undefined {
  if (!spec) return undefined;
  const [type, options] = spec;
  if (Array.isArray(type)) return (type as unknown[]).filter(isChoice);
  if (type === "COMBO" && Array.isArray(options?.options)) return (options.options as unknown[]).filter(isChoice);
  return undefined;
}
const isChoice = (v: unknown): v is string | number => typeof v === "string" || typeof v === "number";

const WIDGET_TYPES = new Set(["INT", "FLOAT", "STRING", "BOOLEAN", "COMBO"]);

/** Whether an input is a widget in ComfyUI's UI (a value typed on the node) rather than a socket only. */
export function isWidgetSpec(spec: InputSpec): boolean {
  const [type, options] = spec;
  if (options?.forceInput === true) return false;
  return Array.isArray(type) || WIDGET_TYPES.has(type as string);
}

/** What kind of value an input takes, from its spec. */
export function specKind(spec: InputSpec | undefined): "integer" | "number" | "string" | "boolean" | undefined {
  if (!spec) return undefined;
  const type = spec[0];
  if (Array.isArray(type) || type === "COMBO") {
    const choices = comboChoices(spec) ?? [];
    if (choices.length > 0 && choices.every((c) => typeof c === "number")) {
      return choices.every((c) => Number.isInteger(c)) ? "integer" : "number";
    }
    return "string";
  }
  if (type === "INT") return "integer";
  if (type === "FLOAT") return "number";
  if (type === "STRING") return "string";
  if (type === "BOOLEAN") return "boolean";
  return undefined;
}

export function numberOption(spec: InputSpec | undefined, key: "min" | "max" | "step"): number | undefined {
  const v = spec?.[1]?.[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function graphSha256(graph: ApiGraph): string {
  return createHash("sha256").update(canonicalJson(graph)).digest("hex");
}

/** Node ids in a stable order: numerically where they are numbers ("3" before "10"), then as text. */
export function sortedIds(graph: ApiGraph): string[] {
  return Object.keys(graph).sort(compareIds);
}
export function compareIds(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb || (a < b ? -1 : a > b ? 1 : 0);
  if (Number.isFinite(na)) return -1;
  if (Number.isFinite(nb)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `Node 3 (KSampler)`: how a refusal names a node. */
export const nodeName = (id: string, classType: string) => `Node ${id} (${classType})`;
