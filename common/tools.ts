/**
 * Atelier's tools as one table of capabilities: what each takes and makes. The routes, the request schemas, the
 * studio's forms, both APIs, the OpenAPI document, the chat's tools and the result pages read it; nothing else
 * names a tool. Adding a tool is one row here, one implementation in the offline demo models, and one form part.
 */

/** What a tool makes. */
export type ToolKind = "image" | "video";

/** Whether a tool reads a prompt: always, when given, or never. */
export type PromptUse = "required" | "optional" | "none";

/** The common parameters a request may set; each tool takes some of them. */
export type ToolParam =
  | "negativePrompt"
  | "aspectRatio"
  | "count"
  | "seed"
  | "strength"
  | "style"
  | "duration"
  | "resolution"
  | "audio"
  | "options";

export interface ToolSpec {
  /** The tool's name in requests, the database and the APIs. */
  id: string;
  /** Its fixed 8-hex id in the dashboard's URLs: `/dashboard/{kind}/{hash}`. */
  hash: string;
  kind: ToolKind;
  prompt: PromptUse;
  /** An input image it starts from (the start frame of a video). */
  image: boolean;
  /** A painted mask of the input image: white is what changes, black what stays. */
  mask: boolean;
  /** An optional last frame (videos). */
  endImage: boolean;
  /** A scale factor (upscaling). */
  scale: boolean;
  /** New canvas around the input image: a new ratio, or pixels on each side. */
  extend: boolean;
  /** The common parameters it takes (besides the model and its inputs). */
  params: readonly ToolParam[];
}

const IMAGE_PARAMS = ["negativePrompt", "aspectRatio", "count", "seed", "resolution", "options"] as const;
const VIDEO_PARAMS = ["style", "duration", "aspectRatio", "seed", "resolution", "audio", "options"] as const;

const none = { image: false, mask: false, endImage: false, scale: false, extend: false } as const;

/** Every tool, in the order menus list them. */
export const TOOLS = [
  { id: "text-to-image", hash: "7595af7e", kind: "image", prompt: "required", ...none, params: IMAGE_PARAMS },
  {
    id: "image-to-image",
    hash: "927fb8ad",
    kind: "image",
    prompt: "required",
    ...none,
    image: true,
    params: [...IMAGE_PARAMS, "strength"],
  },
  {
    id: "inpaint",
    hash: "544b8c7c",
    kind: "image",
    prompt: "required",
    ...none,
    image: true,
    mask: true,
    params: ["negativePrompt", "count", "seed", "resolution", "options"],
  },
  {
    id: "outpaint",
    hash: "190b1649",
    kind: "image",
    prompt: "optional",
    ...none,
    image: true,
    extend: true,
    params: ["negativePrompt", "count", "seed", "resolution", "options"],
  },
  {
    id: "upscale",
    hash: "10979a8b",
    kind: "image",
    prompt: "optional",
    ...none,
    image: true,
    scale: true,
    params: ["seed", "options"],
  },
  {
    id: "remove-background",
    hash: "fa2f6c7d",
    kind: "image",
    prompt: "none",
    ...none,
    image: true,
    params: ["options"],
  },
  { id: "text-to-video", hash: "5afe14a8", kind: "video", prompt: "required", ...none, params: VIDEO_PARAMS },
  {
    id: "image-to-video",
    hash: "fb0e7e3a",
    kind: "video",
    prompt: "required",
    ...none,
    image: true,
    endImage: true,
    params: VIDEO_PARAMS,
  },
] as const satisfies readonly ToolSpec[];

export type GenerationTool = (typeof TOOLS)[number]["id"];

/** The tools' names, in the table's order. */
export const GENERATION_TOOLS = TOOLS.map((t) => t.id) as unknown as readonly [GenerationTool, ...GenerationTool[]];

const BY_ID = new Map<string, ToolSpec>(TOOLS.map((t) => [t.id, t]));
const BY_HASH = new Map<string, ToolSpec>(TOOLS.map((t) => [t.hash, t]));

/** A tool's row. */
export function toolSpec(tool: GenerationTool): ToolSpec {
  return BY_ID.get(tool)!;
}

/** Whether a string names a tool. */
export function isTool(value: unknown): value is GenerationTool {
  return typeof value === "string" && BY_ID.has(value);
}

/** The tool a dashboard URL's hash names, of that kind, if any. */
export function toolOfHash(hash: string | undefined, kind?: ToolKind): GenerationTool | undefined {
  const spec = hash ? BY_HASH.get(hash) : undefined;
  if (!spec || (kind && spec.kind !== kind)) return undefined;
  return spec.id as GenerationTool;
}

/** The dashboard path of a tool's workspace, `/dashboard/{kind}/{hash}`. */
export function toolPath(tool: GenerationTool): string {
  const spec = toolSpec(tool);
  return `/dashboard/${spec.kind}/${spec.hash}`;
}

/** The tools of one kind, in the table's order. */
export function toolsOfKind(kind: ToolKind): GenerationTool[] {
  return TOOLS.filter((t) => t.kind === kind).map((t) => t.id);
}

/** Whether a tool takes a common parameter. */
export function takes(tool: GenerationTool, param: ToolParam): boolean {
  return toolSpec(tool).params.includes(param);
}

/** What a tool makes. */
export function kindOfTool(tool: GenerationTool): ToolKind {
  return toolSpec(tool).kind;
}

/** The tools that start from an image: what a result's "open in" actions offer. */
export function toolsFromImage(): GenerationTool[] {
  return TOOLS.filter((t) => t.image).map((t) => t.id);
}

export const UPSCALE_FACTORS = [2, 4] as const;
export type UpscaleFactor = (typeof UPSCALE_FACTORS)[number];

/** The most pixels extending may add on one side, and the largest side an extended canvas may have. */
export const EXTEND_MAX_SIDE_PIXELS = 2048;
export const EXTEND_MAX_CANVAS = 4096;

/**
 * Which tools a model serves, as its inputs say: a prompt makes the text tools, an input image the image tools, a
 * mask the mask tools (extending is a mask edit of a larger canvas), a scale factor upscaling; an image model with an
 * input image and neither prompt nor scale removes backgrounds. The operator can correct what this infers.
 */
export function inferTools(
  kind: ToolKind,
  inputs: {
    prompt: boolean;
    image: boolean;
    /** The image is required: the model cannot make anything from text alone. */
    imageRequired?: boolean;
    mask: boolean;
    scale: boolean;
  },
): GenerationTool[] {
  const out: GenerationTool[] = [];
  if (kind === "video") {
    if (inputs.prompt && !inputs.imageRequired) out.push("text-to-video");
    if (inputs.image) out.push("image-to-video");
    return out;
  }
  if (inputs.image && inputs.scale) return ["upscale"];
  if (inputs.image && !inputs.prompt) return ["remove-background"];
  if (inputs.image && inputs.mask)
    return inputs.imageRequired ? ["inpaint", "outpaint"] : ["text-to-image", "inpaint", "outpaint"];
  if (inputs.prompt && !inputs.imageRequired) out.push("text-to-image");
  if (inputs.image) out.push("image-to-image");
  return out;
}
