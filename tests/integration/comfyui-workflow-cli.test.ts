import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRole, tempDir, serverDataDir } from "#tests/support/server.ts";
import { startComfyFake, type ComfyFake } from "#tests/fakes/comfyui.ts";

const WORKFLOW = "docs/comfyui/text-to-image.json";

describe("a workflow model on the command line: tested before it is offered, and new versions", () => {
  const dataDir = serverDataDir();
  let a: ComfyFake;
  const admin = async (...args: string[]) => {
    const run = runRole("admin", { DATA_DIR: dataDir }, args);
    const code = await run.exited;
    return { code, output: run.output().trim() };
  };

  beforeAll(async () => {
    a = await startComfyFake();
  });
  afterAll(async () => {
    await a?.close();
  });

  it("offers a workflow once a test run passed, numbers each new file one more, keeps the version it runs for the same file, and names what a server lacks", async () => {
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
    // Not offered before a run of it has passed a test on the pool.
    const untested = await admin("models", "enable", "t2i");
    expect(untested.code).not.toBe(0);
    expect(untested.output).toContain(
      "t2i cannot be offered until version 1 of its workflow passes a test (it has not been tested)",
    );
    const tested = await admin("models", "test", "t2i");
    expect(tested, tested.output).toMatchObject({ code: 0, output: expect.stringMatching(/^comfyui \(.+\): works/) });
    expect(a.executed).toHaveLength(1);
    expect(await admin("models", "enable", "t2i")).toMatchObject({ code: 0, output: "t2i is now enabled." });
    // --enable tests it first, then offers it.
    const offered = await admin(
      ...["models", "add", `comfyui:${WORKFLOW}`, "--connection", "comfyui-2", "--credits", "2", "--id", "t2i-b"],
      "--enable",
    );
    expect(offered, offered.output).toMatchObject({ code: 0, output: expect.stringContaining("offered now") });
    expect(offered.output).toMatch(/Tested: comfyui \(.+\): works/);
    expect(a.executed).toHaveLength(2);
    // A run that fails leaves the model switched off, and says why.
    a.knobs.failAtStep = 1;
    const failing = await admin(
      ...["models", "add", `comfyui:${WORKFLOW}`, "--connection", "comfyui-2", "--credits", "2", "--id", "t2i-c"],
      "--enable",
    );
    expect(failing.code).not.toBe(0);
    expect(failing.output).toContain("switched off");
    expect(failing.output).toContain("CUDA out of memory");
    expect(failing.output).toContain("(its last test failed)");
    a.knobs.failAtStep = null;
    const next = join(tempDir(), "text-to-image-v2.json");
    writeFileSync(next, readFileSync(WORKFLOW, "utf8").replace('"steps": 20', '"steps": 25'));

    const same = await admin("models", "workflow", "t2i", WORKFLOW);
    expect(same).toMatchObject({
      code: 0,
      output: expect.stringContaining("t2i runs this workflow already (version 1)."),
    });
    const v2 = await admin("models", "workflow", "t2i", next);
    expect(v2).toMatchObject({ code: 0, output: expect.stringContaining("t2i runs version 2 of its workflow now") });

    a.knobs.lacks = ["KSampler"];
    const refused = await admin("models", "workflow", "t2i", WORKFLOW);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`${a.url} lacks the node type KSampler`);
    a.knobs.lacks = [];
    const v3 = await admin("models", "workflow", "t2i", WORKFLOW);
    expect(v3).toMatchObject({ code: 0, output: expect.stringContaining("t2i runs version 3 of its workflow now") });
    // Twelve runs of the command line one after the other, each a process that opens the database.
  }, 300_000);
});
