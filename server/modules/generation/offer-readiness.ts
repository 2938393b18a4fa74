import type { Db } from "#server/db/client.ts";
import type { ModelDefinition } from "#server/modules/catalog/model-definition.ts";
import { modelProblems } from "#server/modules/catalog/model-readiness.ts";
import type { ConnectionSource } from "#server/providers/index.ts";
import { untestedWorkflows, type UntestedWorkflow } from "./model-checks.ts";

/** Why a model cannot be switched on yet: what its servers lack, or a workflow version without a passing test. */
export type NotOffered =
  { reason: "problems"; problems: string[] } | { reason: "untested"; untested: UntestedWorkflow[] };

/**
 * What stands in the way of switching a model on, asked before it is: every server of a workflow's pool has its node
 * types and model files (`modelProblems`), and the workflow, as it is now, passed a test run. Null when nothing does.
 */
export async function whyNotOffered({
  db,
  connections,
  definition,
  id,
}: {
  db: Db;
  connections: ConnectionSource;
  definition: ModelDefinition;
  id: string;
}): Promise<NotOffered | null> {
  const problems = await modelProblems(connections, definition);
  if (problems.length > 0) return { reason: "problems", problems };
  if (definition.kind === "chat") return null;
  const untested = await untestedWorkflows({ db, model: { id, kind: definition.kind, bindings: definition.bindings } });
  return untested.length > 0 ? { reason: "untested", untested } : null;
}

/** The refusal in English, for the command line. */
export function notOfferedText(id: string, why: NotOffered): string {
  if (why.reason === "problems") return `${id} cannot be offered: ${why.problems.join("; ")}.`;
  const [first] = why.untested;
  const how =
    first?.state === "running"
      ? "its test is still running"
      : first?.state === "failed"
        ? "its last test failed"
        : "it has not been tested";
  return `${id} cannot be offered until version ${first?.version ?? 1} of its workflow passes a test (${how}): npm run admin -- models test ${id}.`;
}
