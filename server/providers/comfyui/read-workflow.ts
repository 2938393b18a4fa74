/**
 * Reading an API-format workflow: which node inputs are the prompt, the negative prompt, the seed, the size, the
 * images and the rest, and which nodes save its results. Pure: the graph and, when known, the server's node list.
 */
import {
  WorkflowRefusal,
  comboChoices,
  graphSha256,
  inputOrder,
  inputSpec,
  isLink,
  isLiteral,
  nodeInfo,
  nodeName,
  numberOption,
  own,
  sortedIds,
  specKind,
  type Literal,
} from "./graph.ts";
import type { ApiGraph, ObjectInfo, SlotRole, Target, Workflow, WorkflowOutput, WorkflowSlot } from "./types.ts";
import { COMMON_ROLES } from "./types.ts";

/** The nodes that save results, by what they make. PreviewImage counts only when nothing else saves. */
const IMAGE_SAVERS = new Set(["SaveImage", "PreviewImage"]);
const VIDEO_SAVERS = new Set(["SaveAnimatedWEBP", "SaveAnimatedPNG", "SaveWEBM", "SaveVideo", "VHS_VideoCombine"]);

/** Inputs that carry a prompt's text on the nodes that encode it (CLIPTextEncode and its cousins). */
const TEXT_INPUTS = new Set(["text", "text_g", "text_l", "clip_l", "clip_g", "t5xxl", "prompt", "bert", "mt5xl"]);
/** Where conditioning ends: a sampler's or a guider's input, or a node that hands on a positive and a negative. */
const POSITIVE_INPUTS = new Set(["positive", "cond1", "cond2"]);
const NEGATIVE_INPUTS = new Set(["negative"]);
/** Guiders whose one conditioning input is the positive prompt. */
const SINGLE_GUIDERS = new Set(["BasicGuider"]);

/** Inputs that take the image a job starts from: a VAE encoder's pixels, a video's first frame. */
const IMAGE_INTO_LATENT = ["pixels", "start_image", "init_image"];

const SEED_INPUTS = new Set(["seed", "noise_seed"]);
/** Frame rates on the nodes that write videos. */
const FPS_INPUTS: Record<string, string> = {
  SaveAnimatedWEBP: "fps",
  SaveAnimatedPNG: "fps",
  SaveWEBM: "fps",
  CreateVideo: "fps",
  VHS_VideoCombine: "frame_rate",
};
/** Nodes that take the image's size besides the latent that makes it (Flux's shift is computed from it). */
const SIZE_FOLLOWERS = new Set(["ModelSamplingFlux"]);
/** Nodes where `denoise` is image-to-image's strength. */
const DENOISERS = new Set(["KSampler", "BasicScheduler"]);

const SLOT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;

/** One input edge: `from` node's output `slot` feeds `to` node's `input`. */
interface Edge {
  to: string;
  input: string;
  slot: number;
}

/**
 * What a workflow's inputs and outputs are. `version` is 1: the caller numbers the uploads of one model. Refuses a
 * link to a node that is not there and a workflow that saves nothing.
 */
export function readWorkflow(graph: ApiGraph, objectInfo?: ObjectInfo): Workflow {
  const ids = sortedIds(graph);
  const consumers = new Map<string, Edge[]>();
  for (const id of ids) {
    const node = graph[id]!;
    for (const [input, value] of Object.entries(node.inputs)) {
      if (!isLink(value)) continue;
      const [from, slot] = value;
      if (!Object.hasOwn(graph, from)) {
        throw new WorkflowRefusal(
          "missing_link",
          `${nodeName(id, node.class_type)} takes its input "${input}" from node ${from}, which is not in the workflow.`,
          { nodeId: id, classType: node.class_type },
        );
      }
      const list = consumers.get(from) ?? [];
      list.push({ to: id, input, slot });
      consumers.set(from, list);
    }
  }

  const outputs = findOutputs(graph, ids);
  if (outputs.length === 0) {
    throw new WorkflowRefusal(
      "no_output",
      "The workflow saves nothing: it needs a SaveImage, PreviewImage, SaveAnimatedWEBP, SaveAnimatedPNG, SaveWEBM, SaveVideo or VHS_VideoCombine node.",
    );
  }

  const taken = new Set<string>();
  const key = (t: Target) => `${t[0]}\u0000${t[1]}`;
  const roles = new Map<SlotRole, Target[]>();
  const claim = (role: SlotRole, target: Target) => {
    if (taken.has(key(target))) return;
    taken.add(key(target));
    const list = roles.get(role) ?? [];
    list.push(target);
    roles.set(role, list);
  };

  /** A literal input, or the literal the linked node holds (a primitive, a string node) when it is fed by one. */
  const literalTarget = (id: string, input: string): Target | undefined => {
    const value = graph[id]?.inputs[input];
    if (isLiteral(value)) return [id, input];
    if (!isLink(value)) return undefined;
    const source = graph[value[0]]!;
    const literals = Object.entries(source.inputs).filter(([, v]) => isLiteral(v));
    const linked = Object.values(source.inputs).some((v) => isLink(v));
    return literals.length === 1 && !linked ? [value[0], literals[0]![0]] : undefined;
  };

  // Prompts: text inputs whose conditioning reaches a sampler's or guider's positive or negative input.
  for (const id of ids) {
    const node = graph[id]!;
    const texts = Object.keys(node.inputs).filter((input) => isText(node.class_type, input, objectInfo));
    if (texts.length === 0) continue;
    const polarity = conditioningPolarity(id, graph, consumers);
    if (!polarity) continue;
    for (const input of texts) {
      const target = literalTarget(id, input);
      if (target) claim(polarity === "positive" ? "prompt" : "negativePrompt", target);
    }
  }

  for (const id of ids) {
    const node = graph[id]!;
    const type = node.class_type;
    for (const input of Object.keys(node.inputs)) {
      if (SEED_INPUTS.has(input)) {
        const target = literalTarget(id, input);
        if (target && typeof graph[target[0]]!.inputs[target[1]] === "number") claim("seed", target);
      }
    }
    if (makesLatent(type, objectInfo) && literalTarget(id, "width") && literalTarget(id, "height")) {
      for (const [input, role] of [
        ["width", "width"],
        ["height", "height"],
        ["batch_size", "batch"],
        ["length", "frames"],
        ["video_frames", "frames"],
      ] as const) {
        const target = literalTarget(id, input);
        if (target) claim(role, target);
      }
    }
    if (DENOISERS.has(type) && isLiteral(node.inputs.denoise)) claim("denoise", [id, "denoise"]);
    const fps = own(FPS_INPUTS, type);
    if (fps) {
      const target = literalTarget(id, fps);
      if (target) claim("fps", target);
    }
    if (type === "LoadImageMask" && isLiteral(node.inputs.image)) claim("mask", [id, "image"]);
  }

  // Nodes whose width and height must be the image's own follow the latent's size.
  if (roles.has("width") && roles.has("height")) {
    for (const id of ids) {
      if (!SIZE_FOLLOWERS.has(graph[id]!.class_type)) continue;
      for (const input of ["width", "height"] as const) {
        const target = literalTarget(id, input);
        if (target) claim(input, target);
      }
    }
  }

  // Images: a LoadImage feeding an end-frame input is the end image; of the others, the image is the first one that
  // is encoded into the latent or starts a video (not a ControlNet's guide), else the first one.
  let maskInAlpha = false;
  const loaders = ids.filter((id) => graph[id]!.class_type === "LoadImage" && isLiteral(graph[id]!.inputs.image));
  const starts: string[] = [];
  for (const id of loaders) {
    const reached = reachedInputs(id, 0, consumers);
    if ([...reached].some((input) => input.includes("end_image"))) {
      claim("endImage", [id, "image"]);
      continue;
    }
    starts.push(id);
  }
  const image = starts.find((id) => IMAGE_INTO_LATENT.some((input) => reachedInputs(id, 0, consumers).has(input)));
  const chosen = image ?? starts[0];
  if (chosen) {
    claim("image", [chosen, "image"]);
    if (reachedInputs(chosen, 1, consumers).has("mask")) maskInAlpha = true;
  }

  const slots: WorkflowSlot[] = [];
  const order = COMMON_ROLES;
  for (const role of order) {
    const targets = roles.get(role);
    if (!targets) continue;
    slots.push(roleSlot(role, targets, graph, objectInfo));
  }

  // Everything else literal is a setting, named by its input and made unique.
  const used = new Set(slots.map((s) => s.name));
  for (const id of ids) {
    const node = graph[id]!;
    const info = nodeInfo(objectInfo, node.class_type);
    const names = info
      ? [
          ...inputOrder(info).filter((n) => n in node.inputs),
          ...Object.keys(node.inputs).filter((n) => !inputOrder(info).includes(n)),
        ]
      : Object.keys(node.inputs);
    const isSaver = IMAGE_SAVERS.has(node.class_type) || VIDEO_SAVERS.has(node.class_type) || info?.output_node;
    for (const input of names) {
      const value = node.inputs[input];
      if (!isLiteral(value) || taken.has(key([id, input]))) continue;
      if (isSaver && input === "filename_prefix") continue;
      // An input the server's node does not declare (an old UI's upload button, say) is not one to set.
      if (info && !inputSpec(info, input)) continue;
      const name = uniqueName(input, used);
      slots.push(settingSlot(name, [id, input], value, graph, objectInfo));
    }
  }

  const nodeTypes = [...new Set(ids.map((id) => graph[id]!.class_type))].sort();
  const kind = outputs.some((o) => o.kind === "video") ? "video" : "image";
  return {
    graph,
    slots,
    outputs,
    kind,
    sha256: graphSha256(graph),
    version: 1,
    nodeTypes,
    ...(maskInAlpha ? { maskInAlpha: true } : {}),
  };
}

function findOutputs(graph: ApiGraph, ids: string[]): WorkflowOutput[] {
  const out: WorkflowOutput[] = [];
  for (const id of ids) {
    const type = graph[id]!.class_type;
    if (VIDEO_SAVERS.has(type)) out.push({ nodeId: id, classType: type, kind: "video" });
    else if (IMAGE_SAVERS.has(type)) out.push({ nodeId: id, classType: type, kind: "image" });
  }
  const saving = out.filter((o) => o.classType !== "PreviewImage");
  return saving.length > 0 ? saving : out;
}

function isText(classType: string, input: string, objectInfo: ObjectInfo | undefined): boolean {
  const info = nodeInfo(objectInfo, classType);
  if (info) {
    const spec = inputSpec(info, input);
    if (!spec || spec[0] !== "STRING") return false;
    return TEXT_INPUTS.has(input) || spec[1]?.multiline === true;
  }
  return TEXT_INPUTS.has(input);
}

/**
 * Whether a node's conditioning ends as a positive or a negative prompt: its outputs are followed downstream, through
 * any node, to the first input named positive or negative (a sampler's, a guider's, or one of the nodes that hand on
 * both, like InpaintModelConditioning, ControlNetApplyAdvanced or WanImageToVideo), or a BasicGuider's conditioning.
 */
function conditioningPolarity(
  start: string,
  graph: ApiGraph,
  consumers: Map<string, Edge[]>,
): "positive" | "negative" | undefined {
  const seen = new Set<string>([start]);
  let frontier = [start];
  while (frontier.length > 0) {
    const next: string[] = [];
    let positive = false;
    let negative = false;
    for (const id of frontier) {
      for (const edge of consumers.get(id) ?? []) {
        const type = graph[edge.to]!.class_type;
        if (POSITIVE_INPUTS.has(edge.input) || (SINGLE_GUIDERS.has(type) && edge.input === "conditioning")) {
          positive = true;
        } else if (NEGATIVE_INPUTS.has(edge.input)) negative = true;
        else if (!seen.has(edge.to)) {
          seen.add(edge.to);
          next.push(edge.to);
        }
      }
    }
    if (positive) return "positive";
    if (negative) return "negative";
    frontier = next;
  }
  return undefined;
}

/** Every input name reached downstream of one output of a node. */
function reachedInputs(start: string, slot: number, consumers: Map<string, Edge[]>): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>([start]);
  let frontier = (consumers.get(start) ?? []).filter((e) => e.slot === slot);
  while (frontier.length > 0) {
    const next: Edge[] = [];
    for (const edge of frontier) {
      names.add(edge.input);
      if (seen.has(edge.to)) continue;
      seen.add(edge.to);
      next.push(...(consumers.get(edge.to) ?? []));
    }
    frontier = next;
  }
  return names;
}

/** A node that makes the latent to denoise, with its size: EmptyLatentImage and its image and video cousins. */
function makesLatent(classType: string, objectInfo: ObjectInfo | undefined): boolean {
  const info = nodeInfo(objectInfo, classType);
  if (info) return info.output.includes("LATENT");
  return /Latent|ToVideo/.test(classType);
}

function uniqueName(input: string, used: Set<string>): string {
  let base = input.replace(/[^A-Za-z0-9_.-]/g, "_");
  if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
  base = base.slice(0, 90);
  let name = base;
  for (let n = 2; used.has(name); n += 1) name = `${base}_${n}`;
  used.add(name);
  return SLOT_NAME.test(name) ? name : `input_${used.size}`;
}

const ROLE_TYPES: Record<Exclude<SlotRole, "setting">, WorkflowSlot["type"]> = {
  prompt: "string",
  negativePrompt: "string",
  seed: "integer",
  width: "integer",
  height: "integer",
  batch: "integer",
  frames: "integer",
  fps: "number",
  denoise: "number",
  image: "image",
  mask: "image",
  endImage: "image",
};

function roleSlot(
  role: Exclude<SlotRole, "setting">,
  targets: Target[],
  graph: ApiGraph,
  objectInfo?: ObjectInfo,
): WorkflowSlot {
  const [id, input] = targets[0]!;
  const node = graph[id]!;
  const value = node.inputs[input];
  const type = ROLE_TYPES[role];
  const slot: WorkflowSlot = { name: role, role, targets, value: isLiteral(value) ? value : null, type };
  if (type === "integer" || type === "number") addLimits(slot, targets, graph, objectInfo);
  if (node._meta?.title) slot.title = node._meta.title;
  return slot;
}

function settingSlot(
  name: string,
  target: Target,
  value: Literal,
  graph: ApiGraph,
  objectInfo: ObjectInfo | undefined,
): WorkflowSlot {
  const node = graph[target[0]]!;
  const spec = inputSpec(nodeInfo(objectInfo, node.class_type), target[1]);
  const kind =
    specKind(spec) ??
    (typeof value === "boolean"
      ? "boolean"
      : typeof value === "number"
        ? Number.isInteger(value)
          ? "integer"
          : "number"
        : "string");
  const slot: WorkflowSlot = { name, role: "setting", targets: [target], value, type: kind };
  const choices = comboChoices(spec);
  if (choices) slot.choices = choices.map(String);
  if (kind === "integer" || kind === "number") addLimits(slot, [target], graph, objectInfo);
  if (node._meta?.title) slot.title = node._meta.title;
  return slot;
}

/** The tightest limits every target accepts. */
function addLimits(slot: WorkflowSlot, targets: Target[], graph: ApiGraph, objectInfo: ObjectInfo | undefined) {
  for (const [id, input] of targets) {
    const spec = inputSpec(nodeInfo(objectInfo, graph[id]!.class_type), input);
    if (comboChoices(spec)) continue;
    const min = numberOption(spec, "min");
    const max = numberOption(spec, "max");
    const step = numberOption(spec, "step");
    if (min !== undefined) slot.min = slot.min === undefined ? min : Math.max(slot.min, min);
    if (max !== undefined) slot.max = slot.max === undefined ? max : Math.min(slot.max, max);
    if (step !== undefined) slot.step = slot.step === undefined ? step : Math.max(slot.step, step);
  }
}
