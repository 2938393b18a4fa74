/**
 * ComfyUI's own shapes (its server's API format and answers) and Atelier's reading of a workflow: which of its node
 * inputs are the prompt, the seed, the size and the rest, and which nodes make its outputs.
 */

/** A literal input value, or a link to another node's output: `[source node id, output index]`. */
export type ApiInput = string | number | boolean | null | readonly [string, number] | ApiInputObject | ApiInputList;
interface ApiInputObject {
  [key: string]: ApiInput;
}
type ApiInputList = readonly ApiInput[];

/** One node of a workflow in ComfyUI's API format (what `POST /prompt` takes as `prompt`). */
export interface ApiNode {
  class_type: string;
  inputs: Record<string, ApiInput>;
  _meta?: { title?: string };
}

/** A workflow in ComfyUI's API format: nodes by id ("3", "6", …). */
export type ApiGraph = Record<string, ApiNode>;

/** One input of one node: where a value is written. */
export type Target = readonly [nodeId: string, input: string];

/**
 * What a workflow input is to Atelier. The common ones are filled from the request's common parameters (the prompt,
 * the seed, the size from the aspect ratio, the count, the images); `setting` is any other literal input, offered as
 * an advanced setting when the operator exposes it.
 */
export const SLOT_ROLES = [
  "prompt",
  "negativePrompt",
  "seed",
  "width",
  "height",
  "batch",
  "frames",
  "fps",
  "denoise",
  "image",
  "mask",
  "endImage",
  "setting",
] as const;
export type SlotRole = (typeof SLOT_ROLES)[number];
/** The roles the request's common parameters fill, in the order a workflow's slots list them. */
export const COMMON_ROLES = SLOT_ROLES.filter((r): r is Exclude<SlotRole, "setting"> => r !== "setting");

/** A named input of a workflow: its role, the node inputs it is written to, and the workflow's own value. */
export interface WorkflowSlot {
  /** Its name: the key of an advanced setting (`steps`, `cfg`, `sampler_name`), unique in the workflow. */
  name: string;
  role: SlotRole;
  /** Every node input it sets (a seed may feed two samplers). */
  targets: Target[];
  /** The workflow's value (images and masks: the file name the workflow was saved with). */
  value: string | number | boolean | null;
  type: "string" | "integer" | "number" | "boolean" | "image";
  /** From the server's `/object_info`, when it was read: a list's choices and a number's limits. */
  choices?: string[];
  min?: number;
  max?: number;
  step?: number;
  /** The node's title, for the operator's eyes. */
  title?: string;
}

/** Where a workflow's results are saved, and what they are. */
export interface WorkflowOutput {
  nodeId: string;
  classType: string;
  kind: "image" | "video";
}

/** A workflow as a model's binding keeps it: the graph as uploaded (API format), its slots and outputs. */
export interface Workflow {
  graph: ApiGraph;
  slots: WorkflowSlot[];
  outputs: WorkflowOutput[];
  /** What its outputs are. */
  kind: "image" | "video";
  /** The SHA-256 of the graph as uploaded (hex): the same upload is the same version. */
  sha256: string;
  /** 1 for the first upload to a model, one more for each new one. */
  version: number;
  /** The node types it needs on every server. */
  nodeTypes: string[];
  /**
   * The mask travels in the image's alpha: the workflow takes its mask from `LoadImage`'s own MASK output, so the
   * caller composites the mask into the uploaded image instead of uploading it on its own.
   */
  maskInAlpha?: boolean;
}

/** `GET /object_info`: node types by name. */
export type ObjectInfo = Record<string, NodeInfo>;

/** One node type as `/object_info` describes it. */
export interface NodeInfo {
  input: {
    required?: Record<string, InputSpec>;
    optional?: Record<string, InputSpec>;
    hidden?: Record<string, unknown>;
  };
  input_order?: { required?: string[]; optional?: string[] };
  output: string[];
  output_is_list?: boolean[];
  output_name: string[];
  name: string;
  /** Null for a node written with the newer schema that gives none (the UI then shows its name). */
  display_name: string | null;
  description?: string;
  python_module?: string;
  category: string;
  output_node: boolean;
}

/**
 * An input's type and options: `["INT", {default, min, max, step}]`, `["STRING", {multiline}]`, a list of choices
 * as `[["a", "b"], {…}]` (older servers) or `["COMBO", {options: ["a", "b"]}]` (newer), or a linked type (`"MODEL"`).
 */
export type InputSpec = readonly [string | readonly string[], Record<string, unknown>?];

/** `GET /system_stats`. */
export interface SystemStats {
  system: {
    os: string;
    python_version: string;
    embedded_python?: boolean;
    comfyui_version?: string;
    pytorch_version?: string;
    argv?: string[];
    ram_total?: number;
    ram_free?: number;
  };
  devices: Array<{
    name: string;
    type: string;
    index?: number | null;
    vram_total: number;
    vram_free: number;
    torch_vram_total?: number;
    torch_vram_free?: number;
  }>;
}
