/**
 * ComfyUI's UI ("workflow") format, as its Save writes it, turned into the API format its own "Export (API)" gives:
 * widget values onto the widget inputs in the node type's order, links followed through Reroute and PrimitiveNode,
 * notes left out, muted nodes dropped and bypassed ones passed through.
 */
import {
  WorkflowRefusal,
  isWidgetSpec,
  comboChoices,
  inputOrder,
  nodeName,
  nodeInfo,
  own,
  MAX_NODES,
  type Link,
} from "./graph.ts";
import type { ApiGraph, ApiInput, InputSpec, NodeInfo, ObjectInfo } from "./types.ts";

interface UiInput {
  name: string;
  type?: string;
  link?: number | null;
  widget?: { name: string };
}
interface UiOutput {
  name?: string;
  type?: string;
  links?: number[] | null;
}
interface UiNode {
  id: number | string;
  type: string;
  mode?: number;
  title?: string;
  inputs?: UiInput[];
  outputs?: UiOutput[];
  widgets_values?: unknown[] | Record<string, unknown>;
}
interface UiLink {
  id: number;
  originId: string;
  originSlot: number;
  targetId: string;
  type?: string;
}
export interface UiWorkflow {
  nodes: unknown[];
  links?: unknown[];
  extra?: { groupNodes?: Record<string, unknown> };
  definitions?: { subgraphs?: Array<{ id?: string; name?: string }> };
}

/** LiteGraph's node modes: 0 always, 2 never (muted), 4 bypass. */
const MUTED = 2;
const BYPASSED = 4;

/** Nodes that live only in the UI: they are never sent to the server. */
const NOTES = new Set(["Note", "MarkdownNote"]);
const PRIMITIVE = "PrimitiveNode";
const REROUTE = "Reroute";

/** The values of the widget that picks what a number does after each run (saved after the number's own value). */
const CONTROL_VALUES = new Set(["fixed", "increment", "decrement", "randomize", "increment-wrap"]);
const UPLOAD_FLAGS = ["image_upload", "video_upload", "animated_image_upload", "audio_upload", "file_upload"];
const SEED_NAMES = new Set(["seed", "noise_seed"]);

export function isUiWorkflow(value: unknown): value is UiWorkflow {
  return !!value && typeof value === "object" && Array.isArray((value as { nodes?: unknown }).nodes);
}

export function uiToApi(workflow: UiWorkflow, objectInfo: ObjectInfo): ApiGraph {
  if (workflow.nodes.length > MAX_NODES) {
    throw new WorkflowRefusal("too_large", `The workflow has more than ${MAX_NODES} nodes.`);
  }
  const nodes = new Map<string, UiNode>();
  for (const raw of workflow.nodes) {
    if (!raw || typeof raw !== "object")
      throw new WorkflowRefusal("not_workflow", "A node of the workflow is not an object.");
    const node = raw as UiNode;
    if ((typeof node.id !== "number" && typeof node.id !== "string") || typeof node.type !== "string") {
      throw new WorkflowRefusal("not_workflow", "A node of the workflow has no id or no type.");
    }
    nodes.set(String(node.id), node);
  }
  const links = readLinks(workflow.links ?? []);
  const subgraphs = new Map((workflow.definitions?.subgraphs ?? []).map((s) => [s.id, s.name]));
  const groupNodes = workflow.extra?.groupNodes ?? {};

  const output: ApiGraph = {};
  for (const [id, node] of nodes) {
    if (subgraphs.has(node.type)) {
      const name = subgraphs.get(node.type);
      throw new WorkflowRefusal(
        "unsupported_subgraph",
        `Node ${id} is a subgraph${name ? ` ("${name}")` : ""}: subgraphs are not supported; unpack it in ComfyUI (or export the workflow in the API format) and upload it again.`,
        { nodeId: id, classType: node.type },
      );
    }
    if (
      node.type.startsWith("workflow>") ||
      node.type.startsWith("workflow/") ||
      Object.hasOwn(groupNodes, node.type)
    ) {
      throw new WorkflowRefusal(
        "unsupported_subgraph",
        `${nodeName(id, node.type)} is a group node: group nodes are not supported; convert it back to nodes in ComfyUI (or export the workflow in the API format) and upload it again.`,
        { nodeId: id, classType: node.type },
      );
    }
    if (NOTES.has(node.type) || node.type === PRIMITIVE || node.type === REROUTE) continue;
    if (node.mode === MUTED || node.mode === BYPASSED) continue;
    const info = nodeInfo(objectInfo, node.type);
    if (!info) {
      throw new WorkflowRefusal(
        "unknown_node",
        `${nodeName(id, node.type)} is not among the server's nodes, so its values cannot be read: install it on the server, or upload the workflow in the API format.`,
        { nodeId: id, classType: node.type },
      );
    }
    const inputs: Record<string, ApiInput> = widgetInputs(node, info);
    for (const input of node.inputs ?? []) {
      if (input.link === null || input.link === undefined) continue;
      const resolved = resolveLink(input.link, { nodes, links, target: [id, node.type] }, new Set());
      if (resolved === "muted") delete inputs[input.name];
      else if (resolved && "link" in resolved) inputs[input.name] = resolved.link;
      else if (resolved) inputs[input.name] = wrap(resolved.value);
    }
    output[id] = { inputs, class_type: node.type, _meta: { title: node.title ?? info.display_name ?? node.type } };
  }
  return output;
}

function readLinks(raw: unknown[]): Map<number, UiLink> {
  const out = new Map<number, UiLink>();
  for (const l of raw) {
    if (Array.isArray(l) && l.length >= 5) {
      const [id, originId, originSlot, targetId, , type] = l as [number, number, number, number, number, string?];
      out.set(Number(id), {
        id: Number(id),
        originId: String(originId),
        originSlot: Number(originSlot),
        targetId: String(targetId),
        ...(typeof type === "string" ? { type } : {}),
      });
    } else if (l && typeof l === "object" && "origin_id" in l) {
      const o = l as { id: number; origin_id: number; origin_slot: number; target_id: number; type?: string };
      out.set(Number(o.id), {
        id: Number(o.id),
        originId: String(o.origin_id),
        originSlot: Number(o.origin_slot),
        targetId: String(o.target_id),
        ...(typeof o.type === "string" ? { type: o.type } : {}),
      });
    }
  }
  return out;
}

type Resolved = { link: Link } | { value: unknown } | "muted" | undefined;
interface Context {
  nodes: Map<string, UiNode>;
  links: Map<number, UiLink>;
  /** The node whose input is being resolved, for the refusal's words. */
  target: [string, string];
}

/** Where a link really comes from once Reroutes, PrimitiveNodes and bypassed nodes are seen through. */
function resolveLink(linkId: number, ctx: Context, seen: Set<number>): Resolved {
  if (seen.has(linkId)) return undefined;
  seen.add(linkId);
  const [targetId, targetType] = ctx.target;
  const link = ctx.links.get(linkId);
  const origin = link ? ctx.nodes.get(link.originId) : undefined;
  if (!link || !origin) {
    throw new WorkflowRefusal(
      "missing_link",
      `${nodeName(targetId, targetType)} is linked to ${link ? `node ${link.originId}, which is not in the workflow` : `link ${linkId}, which is not in the workflow`}.`,
      { nodeId: targetId, classType: targetType },
    );
  }
  if (origin.type === PRIMITIVE) {
    const values = origin.widgets_values;
    return { value: Array.isArray(values) ? values[0] : undefined };
  }
  if (origin.type === REROUTE) {
    const upstream = origin.inputs?.[0]?.link;
    return upstream === null || upstream === undefined ? undefined : resolveLink(upstream, ctx, seen);
  }
  if (origin.mode === MUTED) return "muted";
  if (origin.mode === BYPASSED) {
    // A bypassed node hands on the input of the same type as the output asked for, the same slot first.
    const type = origin.outputs?.[link.originSlot]?.type ?? link.type;
    const ins = origin.inputs ?? [];
    const index = ins[link.originSlot]?.type === type ? link.originSlot : ins.findIndex((i) => i.type === type);
    const upstream = index >= 0 ? ins[index]?.link : undefined;
    return upstream === null || upstream === undefined ? undefined : resolveLink(upstream, ctx, seen);
  }
  return { link: [link.originId, link.originSlot] };
}

interface WidgetSlot {
  name?: string;
  spec?: InputSpec;
  extra?: "control" | "upload";
}

/** The node's widgets in the order the UI creates them, with the unnamed ones the UI saves a value for. */
function widgetSlots(info: NodeInfo): WidgetSlot[] {
  const out: WidgetSlot[] = [];
  const add = (names: string[], specs: Record<string, InputSpec> | undefined, group: "required" | "optional") => {
    let upload = false;
    for (const name of names) {
      const spec = own(specs, name);
      if (!spec || !isWidgetSpec(spec)) continue;
      out.push({ name, spec });
      const options = spec[1] ?? {};
      const control =
        typeof options.control_after_generate === "boolean" || typeof options.control_after_generate === "string"
          ? options.control_after_generate !== false
          : spec[0] === "INT" && SEED_NAMES.has(name);
      if (control) out.push({ extra: "control" });
      if (UPLOAD_FLAGS.some((flag) => options[flag] === true)) upload = true;
    }
    if (upload && group === "required") out.push({ extra: "upload" });
  };
  const order = inputOrder(info);
  const required = Object.keys(info.input.required ?? {});
  add(
    order.filter((n) => required.includes(n)),
    info.input.required,
    "required",
  );
  add(
    order.filter((n) => !required.includes(n)),
    info.input.optional,
    "optional",
  );
  return out;
}

function widgetInputs(node: UiNode, info: NodeInfo): Record<string, ApiInput> {
  const slots = widgetSlots(info);
  const inputs: Record<string, ApiInput> = {};
  const values = node.widgets_values;
  if (values && !Array.isArray(values)) {
    for (const slot of slots) {
      if (slot.name && Object.hasOwn(values, slot.name)) inputs[slot.name] = wrap(values[slot.name]);
    }
    return inputs;
  }
  const list = values ?? [];
  let at = 0;
  slots.forEach((slot, i) => {
    const namedLeft = slots.slice(i + 1).filter((s) => s.name).length;
    if (slot.extra) {
      const spare = list.length - at > namedLeft;
      const looksRight = slot.extra === "upload" || CONTROL_VALUES.has(String(list[at]));
      if (spare && looksRight) at += 1;
      return;
    }
    const name = slot.name as string;
    let value = at < list.length ? list[at] : undefined;
    at += 1;
    if (value === undefined) value = defaultOf(slot.spec);
    if (value !== undefined) inputs[name] = wrap(value);
  });
  return inputs;
}

function defaultOf(spec: InputSpec | undefined): unknown {
  const d = spec?.[1]?.default;
  if (d !== undefined) return d;
  return comboChoices(spec)?.[0];
}

/** A list value is sent wrapped, or the server would read it as a link. */
function wrap(value: unknown): ApiInput {
  if (Array.isArray(value)) return { __value__: value as ApiInput[] };
  return value as ApiInput;
}
