import { IMAGE_ASPECT_RATIOS, MAX_IMAGE_COUNT, VIDEO_ASPECT_RATIOS } from "#common/generation.ts";
import type { GenerationTool } from "#common/tools.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import type { ComfyPool } from "#server/providers/comfyui/pool.ts";
import { MAX_WORKFLOW_BYTES } from "#server/providers/comfyui/workflow-schema.ts";
import type { ObjectInfo, Workflow } from "#server/providers/comfyui/types.ts";
import {
  missingFiles,
  missingNodes,
  parseWorkflowFile,
  readWorkflow,
  WorkflowRefusal,
} from "#server/providers/comfyui/workflow.ts";

/** What each server of a pool has: its node types, or why it could not say. */
export interface PoolNodes {
  url: string;
  info?: ObjectInfo;
  problem?: string;
}

/** Reads `/object_info` from every server of the pool, together. */
export async function poolNodes(pool: ComfyPool, signal: AbortSignal): Promise<PoolNodes[]> {
  return Promise.all(
    pool.clients().map(async ({ server, client }) => {
      try {
        return { url: server.url, info: await client.objectInfo(signal) };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        return { url: server.url, problem: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

/**
 * What each server that answered lacks of a workflow: node types, then model files (a checkpoint, a LoRA) its
 * lists do not have, one line per server; empty when every one has everything.
 */
export function lacking(workflow: Workflow, servers: PoolNodes[]): string[] {
  const lines: string[] = [];
  for (const server of servers) {
    if (!server.info) continue;
    const nodes = missingNodes(workflow, server.info);
    if (nodes.length > 0) {
      lines.push(`${server.url} lacks the node type${nodes.length > 1 ? "s" : ""} ${nodes.join(", ")}`);
      continue;
    }
    const files = missingFiles(workflow, server.info);
    if (files.length > 0)
      lines.push(
        `${server.url} lacks ${files.map((f) => `${f.value} (${f.classType} ${f.input}, node ${f.nodeId})`).join(", ")}`,
      );
  }
  return lines;
}

/**
 * Reads an uploaded workflow (API format, or the UI format converted with a server's node list) into the model it
 * proposes: what it makes, the tools its inputs serve, the common parameters it has a place for, and the workflow
 * itself for the binding to keep. Refused when a server of the pool lacks one of its node types or model files,
 * naming the server and what it lacks, or when no server answers.
 */
export async function describeWorkflow(
  pool: ComfyPool,
  name: string,
  document: string | undefined,
  signal: AbortSignal,
): Promise<ModelDescription> {
  if (document === undefined)
    throw new DescribeRefusal("unsupported", "a ComfyUI model is a workflow: upload its JSON file");
  const servers = await poolNodes(pool, signal);
  const answering = servers.filter((s) => s.info);
  if (answering.length === 0)
    throw new DescribeRefusal(
      "unreachable",
      `no ComfyUI server of the pool answers: ${servers.map((s) => `${s.url} (${s.problem})`).join("; ")}`,
    );
  let workflow: Workflow;
  try {
    const graph = parseWorkflowFile(document, answering[0]!.info);
    workflow = readWorkflow(graph, answering[0]!.info);
  } catch (error) {
    if (error instanceof WorkflowRefusal) throw new DescribeRefusal("unsupported", error.message);
    throw error;
  }
  if (JSON.stringify(workflow.graph).length > MAX_WORKFLOW_BYTES)
    throw new DescribeRefusal("unsupported", "the workflow weighs more than 512 KB in API format");
  const lacks = lacking(workflow, servers);
  if (lacks.length > 0) throw new DescribeRefusal("unsupported", lacks.join("; "));
  const silent = servers.filter((s) => !s.info);
  return {
    provider: "comfyui",
    providerModel: name,
    kind: workflow.kind,
    name: readable(name),
    tools: toolsOf(workflow),
    mapping: {},
    options: optionsOf(workflow),
    parameters: [],
    unmet: [],
    fromSchema: true,
    workflow,
    ...(silent.length > 0 && {
      notes: silent.map((s) => `${s.url} did not answer (${s.problem}); its nodes were not checked`),
    }),
  };
}

/** The tools a workflow's inputs serve: an image and a mask edit, an image alone varies it; a video's image starts it. */
export function toolsOf(workflow: Workflow): GenerationTool[] {
  const has = (role: string) => workflow.slots.some((s) => s.role === role);
  if (workflow.kind === "video") return has("image") ? ["image-to-video"] : ["text-to-video"];
  if (!has("image")) return ["text-to-image"];
  if (has("mask") || workflow.maskInAlpha) return ["inpaint", "outpaint"];
  return ["image-to-image"];
}

function optionsOf(workflow: Workflow): ModelDescription["options"] {
  const has = (role: string) => workflow.slots.some((s) => s.role === role);
  const sized = has("width") && has("height");
  const common = {
    negativePrompt: has("negativePrompt"),
    seed: has("seed"),
    strength: has("denoise") && has("image"),
  };
  if (workflow.kind === "video")
    return {
      ...common,
      aspectRatios: sized ? [...VIDEO_ASPECT_RATIOS] : ["16:9"],
      maxCount: 1,
      durations: has("frames") ? [5, 10] : [5],
    };
  return { ...common, aspectRatios: sized ? [...IMAGE_ASPECT_RATIOS] : ["1:1"], maxCount: MAX_IMAGE_COUNT };
}

/** A file's name as a product name: "text-to-image.json" → "Text to image". */
function readable(name: string): string {
  const base = name
    .replace(/^.*[\\/]/, "")
    .replace(/\.json$/i, "")
    .replace(/[-_]+/g, " ")
    .trim();
  return base ? base[0]!.toUpperCase() + base.slice(1) : "ComfyUI workflow";
}
