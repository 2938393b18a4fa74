import { readFileSync } from "node:fs";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { parseEnv, type Env } from "#server/env.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { secretBox } from "#server/modules/catalog/secret-box.ts";
import { addModel } from "#server/modules/catalog/edit-models.ts";
import { addConnection } from "#server/modules/catalog/edit-connections.ts";
import { describableConnections, proposeModel } from "#server/modules/catalog/propose-model.ts";
import { DescribeRefusal } from "#server/modules/catalog/model-description.ts";
import { modelProblems } from "#server/modules/catalog/model-readiness.ts";
import { replaceWorkflow, WorkflowVersionRefusal } from "#server/modules/catalog/replace-workflow.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { withWorkflowParameters } from "#app/lib/workflow-form.server.ts";
import { backends, openEngine } from "#tests/support/backends.ts";
import { startNodeServer } from "#tests/support/comfyui-nodes.ts";

const logger = pino({ level: "silent" });
const AUTH_SECRET = "an-auth-secret-of-at-least-32-characters!";
const WORKFLOW = readFileSync("docs/comfyui/text-to-image.json", "utf8");

describe.each(backends)("a ComfyUI workflow added and versioned as the console does on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let env: Env;
  let a: Awaited<ReturnType<typeof startNodeServer>>;
  let b: Awaited<ReturnType<typeof startNodeServer>>;
  const box = secretBox({ authSecret: AUTH_SECRET });
  const signal = () => AbortSignal.timeout(15_000);
  const registry = async () => {
    const models = new ModelRegistry(env, { db: handle.db, box, logger });
    await models.refresh();
    return models;
  };

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle } = engine);
    [a, b] = await Promise.all([startNodeServer(), startNodeServer()]);
    env = parseEnv({ AUTH_SECRET });
    await addConnection({
      db: handle.db,
      box,
      provider: "comfyui",
      id: "gpus",
      input: { name: "GPUs", settings: { servers: [{ url: a.url }, { url: b.url }] } },
      actor: CLI_ACTOR,
    });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await engine?.close();
  });

  it("offers the pool for a workflow file, and refuses one a server cannot run, naming the server and the node", async () => {
    const models = await registry();
    expect(describableConnections(models).find((c) => c.id === "gpus")).toMatchObject({ documents: true });
    b.state.lacks = ["KSampler"];
    const refused = await proposeModel(
      { models, connection: "gpus", model: "text-to-image", document: WORKFLOW },
      signal(),
    ).catch((error: unknown) => error);
    b.state.lacks = [];
    expect(refused).toBeInstanceOf(DescribeRefusal);
    expect((refused as DescribeRefusal).message).toBe(`${b.url} lacks the node type KSampler`);
    expect(a.url).not.toBe(b.url);
  });

  it("adds the workflow with the settings ticked, then takes a new version, and refuses to switch it on while a server lacks a node", async () => {
    const models = await registry();
    const proposal = await proposeModel(
      { models, connection: "gpus", model: "text-to-image", document: WORKFLOW },
      signal(),
    );
    expect(proposal.definition.bindings[0]).toMatchObject({ connection: "gpus", workflow: { version: 1 } });
    const form = new FormData();
    form.set("slots.shown", "1");
    form.set("slot.0.name", "steps");
    form.set("slot.0.expose", "1");
    form.set("slot.0.label", "Steps");
    form.set("slot.0.max", "50");
    const definition = withWorkflowParameters(form, proposal.definition);
    expect(definition.parameters).toEqual([
      { name: "steps", type: "integer", label: "Steps", default: 20, minimum: 1, maximum: 50 },
    ]);
    await addModel({ db: handle.db, env, id: proposal.id, actor: CLI_ACTOR, definition });
    await models.refresh();
    expect(await modelProblems(models, models.entry(proposal.id)!.definition)).toEqual([]);

    // The same file again is the version it runs; another is the next version, its settings kept where it has them.
    await expect(
      replaceWorkflow(
        {
          db: handle.db,
          env,
          models,
          id: proposal.id,
          actor: CLI_ACTOR,
          fileName: "text-to-image.json",
          document: WORKFLOW,
        },
        signal(),
      ),
    ).rejects.toEqual(new WorkflowVersionRefusal("same", "1"));
    const changed = WORKFLOW.replace('"steps": 20', '"steps": 25');
    expect(changed).not.toBe(WORKFLOW);
    const { version } = await replaceWorkflow(
      {
        db: handle.db,
        env,
        models,
        id: proposal.id,
        actor: CLI_ACTOR,
        fileName: "text-to-image-v2.json",
        document: changed,
      },
      signal(),
    );
    expect(version).toBe(2);
    const after = (await registry()).entry(proposal.id)!.definition;
    if (after.kind === "chat") throw new Error("not a media model");
    expect(after.bindings[0]).toMatchObject({ model: "text-to-image-v2", workflow: { version: 2 } });
    expect(after.parameters?.map((p) => p.name)).toEqual(["steps"]);

    b.state.lacks = ["SaveImage"];
    expect(await modelProblems(models, after)).toEqual([`${b.url} lacks the node type SaveImage`]);
    b.state.lacks = [];
  });
});
