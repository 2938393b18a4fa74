import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRole, tempDir } from "#tests/support/server.ts";
import { startNodeServer } from "#tests/support/comfyui-nodes.ts";

const WORKFLOW = "docs/comfyui/text-to-image.json";

describe("a new version of a workflow on the command line", () => {
  const dataDir = tempDir();
  let a: Awaited<ReturnType<typeof startNodeServer>>;
  const admin = async (...args: string[]) => {
    const run = runRole("admin", { DATA_DIR: dataDir }, args);
    const code = await run.exited;
    return { code, output: run.output().trim() };
  };

  beforeAll(async () => {
    a = await startNodeServer();
  });
  afterAll(async () => {
    await a?.close();
  });

  it("numbers each new file one more, keeps the version it runs for the same file, and names what a server lacks", async () => {
    expect((await admin("connections", "add", "comfyui", "--name", "GPUs", "--url", a.url)).code).toBe(0);
    const added = await admin(
      "models",
      "add",
      `comfyui:${WORKFLOW}`,
      "--connection",
      "comfyui-2",
      "--credits",
      "2",
      "--id",
      "t2i",
    );
    expect(added.code, added.output).toBe(0);
    const next = join(tempDir(), "text-to-image-v2.json");
    writeFileSync(next, readFileSync(WORKFLOW, "utf8").replace('"steps": 20', '"steps": 25'));

    const same = await admin("models", "workflow", "t2i", WORKFLOW);
    expect(same).toMatchObject({
      code: 0,
      output: expect.stringContaining("t2i runs this workflow already (version 1)."),
    });
    const v2 = await admin("models", "workflow", "t2i", next);
    expect(v2).toMatchObject({ code: 0, output: expect.stringContaining("t2i runs version 2 of its workflow now") });

    a.state.lacks = ["KSampler"];
    const refused = await admin("models", "workflow", "t2i", WORKFLOW);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`${a.url} lacks the node type KSampler`);
    a.state.lacks = [];
    const v3 = await admin("models", "workflow", "t2i", WORKFLOW);
    expect(v3).toMatchObject({ code: 0, output: expect.stringContaining("t2i runs version 3 of its workflow now") });
  });
});
