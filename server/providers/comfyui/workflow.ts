/**
 * A ComfyUI workflow as a model: the uploaded file read into an API-format graph, its inputs found
 * ({@link readWorkflow}), a request's values written into a copy of it, and what a server lacks to run it. Pure
 * functions: the server's `/object_info` is passed in by the caller.
 */
import type { ParameterField } from "#common/model-parameters.ts";
import {
  MAX_BYTES,
  MAX_NODES,
  WorkflowRefusal,
  comboChoices,
  inputSpec,
  isLink,
  nodeInfo,
  nodeName,
  own,
  sortedIds,
} from "./graph.ts";
import type { ApiGraph, ApiInput, ApiNode, ObjectInfo, Workflow, WorkflowSlot } from "./types.ts";
import { COMMON_ROLES } from "./types.ts";
import { isUiWorkflow, uiToApi } from "./ui-format.ts";

export { WorkflowRefusal, MAX_BYTES, MAX_NODES } from "./graph.ts";
export type { WorkflowRefusalCode } from "./graph.ts";
export { readWorkflow } from "./read-workflow.ts";

/**
 * A workflow file's text as an API-format graph. Takes ComfyUI's API format (nodes by id with `class_type` and
 * `inputs`, or a `/prompt` body holding it as `prompt`) and its UI format (`nodes` and `links`, as Save writes it),
 * which needs the server's `/object_info` to place the widget values.
 */
export function parseWorkflowFile(text: string, objectInfo?: ObjectInfo): ApiGraph {
  if (Buffer.byteLength(text, "utf8") > MAX_BYTES) {
    throw new WorkflowRefusal("too_large", `The workflow is larger than ${MAX_BYTES / 1024 / 1024} MB.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    throw new WorkflowRefusal("not_json", "The file is not JSON: upload a ComfyUI workflow saved as .json.");
  }
  if (isUiWorkflow(parsed)) {
    if (!objectInfo) {
      throw new WorkflowRefusal(
        "needs_object_info",
        "This workflow is in ComfyUI's UI format: reading it needs the server's node list (/object_info); connect a server first, or export the workflow in the API format.",
      );
    }
    return checkGraph(uiToApi(parsed, objectInfo));
  }
  if (isRecord(parsed) && isRecord(parsed.prompt) && looksLikeApi(parsed.prompt)) return checkGraph(parsed.prompt);
  if (isRecord(parsed) && looksLikeApi(parsed)) return checkGraph(parsed);
  throw new WorkflowRefusal(
    "not_workflow",
    "The file is not a ComfyUI workflow: expected the API format (nodes with class_type and inputs) or the UI format (nodes and links).",
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

function looksLikeApi(value: Record<string, unknown>): boolean {
  const nodes = Object.values(value);
  return nodes.length > 0 && nodes.some((n) => isRecord(n) && typeof n.class_type === "string");
}

/** Every node well formed and every link to a node that is there; a clean copy of the graph. */
function checkGraph(raw: Record<string, unknown>): ApiGraph {
  const ids = Object.keys(raw);
  if (ids.length > MAX_NODES) throw new WorkflowRefusal("too_large", `The workflow has more than ${MAX_NODES} nodes.`);
  const graph: ApiGraph = {};
  for (const id of ids) {
    const node = raw[id];
    if (id === "__proto__") throw new WorkflowRefusal("bad_node", "A node of the workflow has the id __proto__.");
    if (!isRecord(node) || typeof node.class_type !== "string" || node.class_type === "") {
      throw new WorkflowRefusal("bad_node", `Node ${id} has no class_type.`, { nodeId: id });
    }
    if (node.inputs !== undefined && !isRecord(node.inputs)) {
      throw new WorkflowRefusal("bad_node", `${nodeName(id, node.class_type)} has inputs that are not an object.`, {
        nodeId: id,
        classType: node.class_type,
      });
    }
    const inputs = { ...((node.inputs ?? {}) as ApiNode["inputs"]) };
    if (Object.hasOwn(inputs, "__proto__")) {
      throw new WorkflowRefusal("bad_node", `${nodeName(id, node.class_type)} has an input called __proto__.`, {
        nodeId: id,
        classType: node.class_type,
      });
    }
    const clean: ApiNode = { class_type: node.class_type, inputs };
    const meta = node._meta;
    if (isRecord(meta) && typeof meta.title === "string") clean._meta = { title: meta.title };
    graph[id] = clean;
  }
  for (const id of ids) {
    const node = graph[id]!;
    for (const [input, value] of Object.entries(node.inputs)) {
      if (isLink(value) && !Object.hasOwn(graph, value[0])) {
        throw new WorkflowRefusal(
          "missing_link",
          `${nodeName(id, node.class_type)} takes its input "${input}" from node ${value[0]}, which is not in the workflow.`,
          { nodeId: id, classType: node.class_type },
        );
      }
    }
  }
  return graph;
}

/** A request's values for a workflow: the common ones by role, the exposed settings by slot name. */
export interface WorkflowInputs {
  prompt?: string;
  negativePrompt?: string;
  seed?: number;
  width?: number;
  height?: number;
  batch?: number;
  frames?: number;
  fps?: number;
  denoise?: number;
  /** File names as the server's upload answered them. */
  image?: string;
  mask?: string;
  endImage?: string;
  settings?: Record<string, string | number | boolean>;
}

const ROLE_KEYS = COMMON_ROLES;

/**
 * A copy of the workflow's graph with the values written at their slots' targets; the stored graph is left as it
 * was. A common value the workflow has no slot for is left out (a negative prompt for a workflow without one); a
 * setting it does not have, or a value of the wrong type or outside the slot's choices and limits, is refused.
 */
export function applyInputs(workflow: Workflow, values: WorkflowInputs): ApiGraph {
  const graph = structuredClone(workflow.graph) as ApiGraph;
  const write = (slot: WorkflowSlot, value: string | number | boolean) => {
    checkValue(slot, value);
    for (const [id, input] of slot.targets) {
      const node = graph[id];
      if (node) node.inputs[input] = value;
    }
  };
  for (const role of ROLE_KEYS) {
    const value = values[role];
    if (value === undefined) continue;
    const slot = workflow.slots.find((s) => s.role === role);
    if (slot) write(slot, value);
  }
  for (const [name, value] of Object.entries(values.settings ?? {})) {
    const slot = workflow.slots.find((s) => s.role === "setting" && s.name === name);
    if (!slot) {
      throw new WorkflowRefusal("unknown_setting", `The workflow has no setting "${name}".`, { slot: name });
    }
    write(slot, value);
  }
  return graph;
}

function checkValue(slot: WorkflowSlot, value: unknown): void {
  const refuse = (why: string) => {
    throw new WorkflowRefusal("bad_value", `"${slot.name}" ${why}.`, { slot: slot.name });
  };
  switch (slot.type) {
    case "string":
      if (typeof value !== "string") refuse("takes text");
      break;
    case "image":
      if (typeof value !== "string" || value === "") refuse("takes a file name");
      break;
    case "boolean":
      if (typeof value !== "boolean") refuse("takes true or false");
      break;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) refuse("takes a whole number");
      break;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) refuse("takes a number");
      break;
  }
  if (slot.choices && !slot.choices.includes(String(value))) refuse(`takes one of: ${slot.choices.join(", ")}`);
  if (typeof value === "number") {
    if (slot.min !== undefined && value < slot.min) refuse(`is at least ${slot.min}`);
    if (slot.max !== undefined && value > slot.max) refuse(`is at most ${slot.max}`);
  }
}

export type AspectRatio = "1:1" | "4:3" | "3:4" | "16:9" | "9:16";

/**
 * The width and height for an aspect ratio, keeping the workflow's own pixel count (its width × height), in
 * multiples of 8 (16 for video latents and latents that step by 16); none when the workflow has no size.
 */
export function sizeFor(workflow: Workflow, aspectRatio: AspectRatio): { width: number; height: number } | undefined {
  const w = workflow.slots.find((s) => s.role === "width");
  const h = workflow.slots.find((s) => s.role === "height");
  if (!w || !h || typeof w.value !== "number" || typeof h.value !== "number") return undefined;
  const [a, b] = aspectRatio.split(":").map(Number) as [number, number];
  const pixels = w.value * h.value;
  const multiple = Math.max(workflow.kind === "video" ? 16 : 8, stepOf(w), stepOf(h));
  const fit = (exact: number, slot: WorkflowSlot) => {
    let v = Math.max(multiple, Math.round(exact / multiple) * multiple);
    if (slot.max !== undefined && v > slot.max) v = Math.floor(slot.max / multiple) * multiple;
    if (slot.min !== undefined && v < slot.min) v = Math.ceil(slot.min / multiple) * multiple;
    return v;
  };
  return { width: fit(Math.sqrt((pixels * a) / b), w), height: fit(Math.sqrt((pixels * b) / a), h) };
}

/** A size step that is a latent's (8, 16, 32…), not a pixel-exact one. */
const stepOf = (slot: WorkflowSlot) => (slot.step !== undefined && slot.step % 8 === 0 ? slot.step : 0);

/**
 * The frame count for a duration at the workflow's frame rate (or `fallbackFps` when it sets none); a count of the
 * form 4n+1 (Wan, Hunyuan) stays of that form. None when the workflow has no frame count.
 */
export function framesFor(workflow: Workflow, seconds: number, fallbackFps = 16): number | undefined {
  const slot = workflow.slots.find((s) => s.role === "frames");
  if (!slot || typeof slot.value !== "number") return undefined;
  const fpsSlot = workflow.slots.find((s) => s.role === "fps");
  const fps = typeof fpsSlot?.value === "number" && fpsSlot.value > 0 ? fpsSlot.value : fallbackFps;
  let frames = Math.max(1, Math.round(seconds * fps));
  const fourPlusOne = slot.value % 4 === 1;
  if (fourPlusOne) frames = 4 * Math.max(0, Math.round((frames - 1) / 4)) + 1;
  if (slot.max !== undefined && frames > slot.max) {
    frames = fourPlusOne ? 4 * Math.floor((slot.max - 1) / 4) + 1 : slot.max;
  }
  if (slot.min !== undefined && frames < slot.min) frames = slot.min;
  return frames;
}

/** The node types the workflow needs that the server lacks. */
export function missingNodes(workflow: Workflow, objectInfo: ObjectInfo): string[] {
  return workflow.nodeTypes.filter((type) => !Object.hasOwn(objectInfo, type));
}

export interface MissingFile {
  nodeId: string;
  classType: string;
  input: string;
  value: string | number;
}

/**
 * The list values the server does not offer: a checkpoint, a LoRA, a VAE it does not have (images the job uploads are
 * not counted).
 */
export function missingFiles(workflow: Workflow, objectInfo: ObjectInfo): MissingFile[] {
  const uploaded = new Set(
    workflow.slots
      .filter((s) => s.role === "image" || s.role === "mask" || s.role === "endImage")
      .flatMap((s) => s.targets.map(([id, input]) => `${id}\u0000${input}`)),
  );
  const out: MissingFile[] = [];
  for (const id of sortedIds(workflow.graph)) {
    const node = workflow.graph[id]!;
    for (const [input, value] of Object.entries(node.inputs)) {
      if (typeof value !== "string" && typeof value !== "number") continue;
      if (uploaded.has(`${id}\u0000${input}`)) continue;
      const spec = inputSpec(nodeInfo(objectInfo, node.class_type), input);
      const choices = comboChoices(spec);
      if (!choices || spec?.[1]?.image_upload === true) continue;
      if (!choices.some((c) => String(c) === String(value))) {
        out.push({ nodeId: id, classType: node.class_type, input, value });
      }
    }
  }
  return out;
}

/**
 * The declarative parameter a slot the operator exposes becomes: its choices and limits, the workflow's value as the
 * default, and a label made readable from the input's name unless the operator gave one.
 */
export function settingField(slot: WorkflowSlot, label?: string): ParameterField {
  const type = slot.type === "image" ? "string" : slot.type;
  const field: ParameterField = { name: slot.name, type, label: label?.trim() || readableLabel(slot.name) };
  if (slot.value !== null && slot.value !== undefined) field.default = slot.value;
  if (type === "integer" || type === "number") {
    if (slot.min !== undefined) field.minimum = slot.min;
    if (slot.max !== undefined) field.maximum = slot.max;
  }
  const choices = slot.choices;
  if (choices && choices.length > 0 && choices.length <= 100 && choices.every((c) => c.length <= 200)) {
    field.choices = type === "integer" || type === "number" ? choices.map(Number) : [...choices];
  }
  return field;
}

const WORDS: Record<string, string> = {
  cfg: "CFG",
  fps: "FPS",
  vae: "VAE",
  clip: "CLIP",
  lora: "LoRA",
  crf: "CRF",
  ckpt: "checkpoint",
  unet: "UNet",
  id: "ID",
};

/** `sampler_name` → "Sampler name", `cfg_2` → "CFG 2", `ckpt_name` → "Checkpoint name". */
export function readableLabel(name: string): string {
  const words = name
    .split(/[_.\-\s]+/)
    .filter(Boolean)
    .map((w) => own(WORDS, w.toLowerCase()) ?? w.toLowerCase());
  const text = words.join(" ") || name;
  return (text.charAt(0).toUpperCase() + text.slice(1)).slice(0, 100);
}

export type { ApiGraph, ApiInput, Workflow, WorkflowSlot };
