import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import type { AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { describeModel } from "./describe-model.ts";
import { changeModel } from "./edit-models.ts";
import { DescribeRefusal, type ModelDescription } from "./model-description.ts";
import type { ModelRegistry } from "./model-registry.ts";

/** Why a new version of a workflow was not taken: the model runs none, makes the other kind, or runs it already. */
export class WorkflowVersionRefusal extends Error {
  readonly code: "no_model" | "no_workflow" | "kind" | "same";
  /** The version the model runs (`same`), or what the new file makes (`kind`). */
  readonly detail: string;
  constructor(code: WorkflowVersionRefusal["code"], detail = "") {
    super(code);
    this.code = code;
    this.detail = detail;
  }
}

/** A model's name for its file: the file's base name without `.json`. */
export const workflowName = (fileName: string) =>
  fileName
    .replace(/^.*[\\/]/, "")
    .replace(/\.json$/i, "")
    .trim();

/**
 * Makes an uploaded workflow the next version of a workflow model: read on the model's own connection (refused with
 * `DescribeRefusal` as when it was added: a server lacking a node type or file is named), of the same kind, numbered
 * one more than any version the model had; its settings the new version has no place for are no longer offered.
 * Queued and running jobs keep the version they started with (their job holds its binding).
 */
export async function replaceWorkflow(
  {
    db,
    env,
    models,
    id,
    actor,
    fileName,
    document,
  }: {
    db: Db;
    env: Env;
    models: ModelRegistry;
    id: string;
    actor: AdminActor;
    fileName: string;
    document: string;
  },
  signal: AbortSignal,
): Promise<{ version: number; description: ModelDescription }> {
  const entry = models.entry(id);
  if (!entry) throw new WorkflowVersionRefusal("no_model");
  const definition = entry.definition;
  const bound = definition.kind === "chat" ? undefined : definition.bindings.find((b) => b.workflow);
  if (!bound?.workflow) throw new WorkflowVersionRefusal("no_workflow");
  const description = await describeModel(
    {
      connections: models,
      provider: bound.provider,
      connection: bound.connection,
      model: workflowName(fileName) || bound.model,
      document,
    },
    signal,
  );
  const next = description.workflow;
  if (!next) throw new DescribeRefusal("unsupported", `${fileName} is not a workflow`);
  if (next.kind !== definition.kind) throw new WorkflowVersionRefusal("kind", next.kind);
  if (next.sha256 === bound.workflow.sha256) throw new WorkflowVersionRefusal("same", String(bound.workflow.version));
  const version = Math.max(...definition.bindings.map((b) => b.workflow?.version ?? 0)) + 1;
  const slots = new Set(next.slots.map((s) => s.name));
  await changeModel({
    db,
    env,
    id,
    actor,
    change: (current) => {
      if (current.kind === "chat") return current;
      const first = current.bindings.find((c) => c.workflow);
      const was = new Map(first?.workflow?.slots.map((s) => [s.name, s.value]));
      const now = new Map(next.slots.map((s) => [s.name, s.value]));
      return {
        ...current,
        bindings: current.bindings.map((b) =>
          b === first ? { ...b, model: description.providerModel, workflow: { ...next, version } } : b,
        ),
        // Settings the new version has no place for are no longer offered; a setting whose default was the old
        // workflow's value takes the new one's (a default the operator chose stays).
        ...(current.parameters && {
          parameters: current.parameters
            .filter((p) => slots.has(p.name))
            .map((p) =>
              followsWorkflow(p, was.get(p.name), now.get(p.name)) ? { ...p, default: now.get(p.name) } : p,
            ),
        }),
      };
    },
  });
  await models.refresh();
  return { version, description };
}

/**
 * Whether a user setting's default is the old workflow's value, to be moved to the new version's: it was that value,
 * the new one differs and is of the setting's type, within its limits and among its choices.
 */
function followsWorkflow(
  p: { type: string; default?: unknown; minimum?: number; maximum?: number; choices?: readonly unknown[] },
  was: unknown,
  now: unknown,
): boolean {
  if (p.default === undefined || p.default !== was || now === undefined || now === null || now === was) return false;
  if (p.type === "integer" || p.type === "number") {
    if (typeof now !== "number" || (p.type === "integer" && !Number.isInteger(now))) return false;
    return (p.minimum === undefined || now >= p.minimum) && (p.maximum === undefined || now <= p.maximum);
  }
  if (p.choices && !p.choices.includes(now)) return false;
  return typeof now === (p.type === "boolean" ? "boolean" : "string");
}
