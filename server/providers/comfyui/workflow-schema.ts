import { z } from "zod";
import { PARAMETER_NAME } from "#common/model-parameters.ts";
import { SLOT_ROLES, type Workflow } from "#server/providers/comfyui/types.ts";

/** The most a workflow may weigh as JSON: every job keeps a copy of its model, the workflow included. */
export const MAX_WORKFLOW_BYTES = 512 * 1024;
/** The most nodes a workflow may have. */
export const MAX_WORKFLOW_NODES = 500;

const nodeId = z.string().min(1).max(64);
const target = z.tuple([nodeId, z.string().min(1).max(200)]).readonly();

const nodeSchema = z.object({
  class_type: z.string().min(1).max(200),
  inputs: z.record(z.string().max(200), z.json()),
  _meta: z.object({ title: z.string().max(500).optional() }).optional(),
});

/** A workflow as a binding keeps it (`Workflow`): checked whole when a model is saved or imported. */
export const workflowSchema = z
  .strictObject({
    graph: z
      .record(nodeId, nodeSchema)
      .refine((graph) => Object.keys(graph).length > 0, "a workflow has nodes")
      .refine((graph) => Object.keys(graph).length <= MAX_WORKFLOW_NODES, `at most ${MAX_WORKFLOW_NODES} nodes`),
    slots: z
      .array(
        z.strictObject({
          name: z.string().regex(PARAMETER_NAME),
          role: z.enum(SLOT_ROLES),
          targets: z.array(target).min(1).max(50),
          value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
          type: z.enum(["string", "integer", "number", "boolean", "image"]),
          choices: z.array(z.string()).max(2000).optional(),
          min: z.number().optional(),
          max: z.number().optional(),
          step: z.number().optional(),
          title: z.string().max(500).optional(),
        }),
      )
      .max(400)
      .refine((slots) => new Set(slots.map((s) => s.name)).size === slots.length, "each slot once"),
    outputs: z.array(z.strictObject({ nodeId, classType: z.string().min(1), kind: z.enum(["image", "video"]) })).min(1),
    kind: z.enum(["image", "video"]),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    version: z.number().int().min(1),
    nodeTypes: z.array(z.string().min(1).max(200)),
    maskInAlpha: z.boolean().optional(),
  })
  .refine((w) => JSON.stringify(w.graph).length <= MAX_WORKFLOW_BYTES, `a workflow weighs at most 512 KB`)
  .refine(
    (w) => w.slots.every((s) => s.targets.every(([node]) => node in w.graph)),
    "every slot's node is in the graph",
  ) as unknown as z.ZodType<Workflow>;
