import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type ComfyFake, startComfyFake } from "../../../tests/fakes/comfyui";
import type { ApiGraph } from "./types";

// The ComfyUI fake itself: its REST answers and websocket events follow ComfyUI's server, so the client's tests
// against it mean something.

type Message = { type: string; data: Record<string, unknown> };

const fakes: ComfyFake[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});
async function start(options: Parameters<typeof startComfyFake>[0] = {}) {
  const fake = await startComfyFake(options);
  fakes.push(fake);
  return fake;
}

const textToImage = async (): Promise<ApiGraph> =>
  JSON.parse(await readFile(new URL("../../../docs/comfyui/text-to-image.json", import.meta.url), "utf8")) as ApiGraph;
const inpaint = async (): Promise<ApiGraph> =>
  JSON.parse(await readFile(new URL("../../../docs/comfyui/inpaint.json", import.meta.url), "utf8")) as ApiGraph;

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never: ${what}`);
}

function connect(fake: ComfyFake, clientId: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(`${fake.url.replace("http", "ws")}/ws?clientId=${clientId}`, { headers });
  const messages: Message[] = [];
  const state = { closed: null as number | null, failure: null as Error | null };
  ws.on("message", (data, binary) => {
    if (!binary) messages.push(JSON.parse(String(data)) as Message);
  });
  ws.on("close", (code) => (state.closed = code));
  ws.on("error", (error) => (state.failure = error));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, messages, state, opened };
}

const post = (fake: ComfyFake, path: string, body: unknown) =>
  fetch(`${fake.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ComfyUI's answers, read loosely
const json = (response: Response) => response.json() as Promise<any>;
const getJson = async (fake: ComfyFake, path: string) => json(await fetch(`${fake.url}${path}`));

function uploadForm(name: string, bytes: Uint8Array, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.set("image", new Blob([new Uint8Array(bytes)], { type: "image/png" }), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

describe("the ComfyUI fake", () => {
  it("runs a prompt with ComfyUI's events in order, answers {} from history until done, then the entry and its image", async () => {
    const fake = await start({ stepMs: 100 });
    const socket = connect(fake, "client-1");
    await socket.opened;
    await until(() => socket.messages.find((m) => m.type === "status"), "the status on connect");
    expect(socket.messages[0]).toEqual({
      type: "status",
      data: { status: { exec_info: { queue_remaining: 0 } }, sid: "client-1" },
    });

    const graph = await textToImage();
    const answer = await post(fake, "/prompt", { prompt: graph, client_id: "client-1", prompt_id: "p-1" });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ prompt_id: "p-1", number: 0, node_errors: {} });

    await until(() => socket.messages.find((m) => m.type === "progress"), "the first step");
    expect(await getJson(fake, "/history/p-1")).toEqual({});
    const queue = await getJson(fake, "/api/queue");
    expect(queue.queue_running).toEqual([[0, "p-1", graph, expect.objectContaining({ client_id: "client-1" }), ["9"]]]);
    expect(queue.queue_pending).toEqual([]);

    await until(() => socket.messages.find((m) => m.type === "executing" && m.data.node === null), "the end");
    const events = socket.messages
      .filter((m) => m.type !== "status")
      .map((m) =>
        m.type === "executing"
          ? `executing ${String(m.data.node)}`
          : m.type === "progress"
            ? `progress ${String(m.data.node)} ${String(m.data.value)}/${String(m.data.max)}`
            : m.type === "executed"
              ? `executed ${String(m.data.node)}`
              : m.type,
      );
    expect(events).toEqual([
      "execution_start",
      "execution_cached",
      "executing 4",
      "executing 6",
      "executing 7",
      "executing 5",
      "executing 3",
      "progress 3 1/4",
      "progress 3 2/4",
      "progress 3 3/4",
      "progress 3 4/4",
      "executing 8",
      "executing 9",
      "executed 9",
      "execution_success",
      "executing null",
    ]);
    for (const m of socket.messages.filter((m) => m.type !== "status")) expect(m.data.prompt_id).toBe("p-1");

    const entry = (await getJson(fake, "/history/p-1"))["p-1"];
    const image = { filename: "text-to-image_00001_.png", subfolder: "", type: "output" };
    expect(entry.outputs).toEqual({ "9": { images: [image] } });
    expect(entry.prompt.slice(0, 3)).toEqual([0, "p-1", graph]);
    expect(entry.status.status_str).toBe("success");
    expect(entry.status.completed).toBe(true);
    expect(entry.status.messages.map((m: [string, unknown]) => m[0])).toEqual([
      "execution_start",
      "execution_cached",
      "execution_success",
    ]);
    expect(fake.executed).toEqual(["p-1"]);
    expect(fake.prompts.map((p) => [p.promptId, p.clientId])).toEqual([["p-1", "client-1"]]);

    const view = await fetch(`${fake.url}/view?filename=${image.filename}&subfolder=&type=output`);
    expect(view.status).toBe(200);
    expect(view.headers.get("content-type")).toBe("image/png");
    const meta = await sharp(Buffer.from(await view.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 512, 512]);

    // Another prompt text makes another picture, under the prefix's next counter.
    graph["6"]!.inputs.text = "a red bicycle";
    const second = (await (await post(fake, "/prompt", { prompt: graph, client_id: "client-1" })).json()) as {
      prompt_id: string;
    };
    const done = await until(
      async () => (await getJson(fake, `/history/${second.prompt_id}`))[second.prompt_id],
      "p-2",
    );
    expect(done.outputs["9"].images[0].filename).toBe("text-to-image_00002_.png");
    const other = await fetch(`${fake.url}/view?filename=text-to-image_00002_.png`);
    expect(
      Buffer.from(await other.arrayBuffer()).equals(Buffer.from(await (await fetch(view.url)).arrayBuffer())),
    ).toBe(false);
    socket.ws.close();
  });

  it("refuses what ComfyUI refuses, in its shapes", async () => {
    const fake = await start({ lacks: ["VAEDecode"], lacksFiles: ["v1-5-pruned-emaonly-fp16.safetensors"] });
    const graph = await textToImage();

    const info = await getJson(fake, "/object_info");
    expect(info.VAEDecode).toBeUndefined();
    expect(info.CheckpointLoaderSimple.input.required.ckpt_name[0]).toEqual(["sd_xl_base_1.0.safetensors"]);
    expect(await getJson(fake, "/object_info/VAEDecode")).toEqual({});
    expect(Object.keys(await getJson(fake, "/api/object_info/KSampler"))).toEqual(["KSampler"]);

    let answer = await post(fake, "/prompt", { prompt: graph });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: {
        type: "invalid_prompt",
        message: "Cannot execute because node VAEDecode does not exist.",
        details: "Node ID '#8'",
        extra_info: {},
      },
      node_errors: {},
    });

    fake.knobs.lacks = [];
    answer = await post(fake, "/prompt", { prompt: graph });
    expect(answer.status).toBe(400);
    const refusal = await json(answer);
    expect(refusal.error.type).toBe("prompt_outputs_failed_validation");
    expect(refusal.error.message).toBe("Prompt outputs failed validation");
    expect(refusal.node_errors).toEqual({
      "4": {
        errors: [
          expect.objectContaining({
            type: "value_not_in_list",
            message: "Value not in list",
            details: "ckpt_name: 'v1-5-pruned-emaonly-fp16.safetensors' not in ['sd_xl_base_1.0.safetensors']",
            extra_info: expect.objectContaining({ input_name: "ckpt_name" }),
          }),
        ],
        dependent_outputs: ["9"],
        class_type: "CheckpointLoaderSimple",
      },
    });

    fake.knobs.lacksFiles = [];
    const missing = structuredClone(graph);
    delete missing["5"]!.inputs.width;
    answer = await post(fake, "/prompt", { prompt: missing });
    expect((await json(answer)).node_errors["5"].errors[0]).toEqual({
      type: "required_input_missing",
      message: "Required input is missing",
      details: "width",
      extra_info: { input_name: "width" },
    });

    const dangling = structuredClone(graph);
    dangling["8"]!.inputs.vae = ["99", 2];
    answer = await post(fake, "/prompt", { prompt: dangling });
    expect(answer.status).toBe(400);
    expect((await json(answer)).node_errors["9"].errors[0].type).toBe("exception_during_validation");

    const noOutput = structuredClone(graph);
    delete noOutput["9"];
    answer = await post(fake, "/prompt", { prompt: noOutput });
    expect(answer.status).toBe(400);
    expect((await json(answer)).error.type).toBe("prompt_no_outputs");

    const unknownImage = await inpaint();
    unknownImage["10"]!.inputs.image = "never-uploaded.png";
    answer = await post(fake, "/prompt", { prompt: unknownImage });
    expect(answer.status).toBe(400);
    expect((await json(answer)).node_errors["10"].errors[0]).toEqual({
      type: "custom_validation_failed",
      message: "Custom validation failed for node",
      details: "image - Invalid image file: never-uploaded.png",
      extra_info: { input_name: "image" },
    });
    expect(fake.prompts).toEqual([]);
  });

  it("names an upload like ComfyUI: the same bytes keep the name, others get a number; the workflow may then load it", async () => {
    const fake = await start();
    const a = await sharp({ create: { width: 40, height: 24, channels: 3, background: "#c00" } })
      .png()
      .toBuffer();
    const b = await sharp({ create: { width: 40, height: 24, channels: 3, background: "#0c0" } })
      .png()
      .toBuffer();
    const send = async (form: FormData, route = "image") =>
      (await (await fetch(`${fake.url}/upload/${route}`, { method: "POST", body: form })).json()) as unknown;
    expect(await send(uploadForm("photo.png", a))).toEqual({ name: "photo.png", subfolder: "", type: "input" });
    expect(await send(uploadForm("photo.png", a))).toEqual({ name: "photo.png", subfolder: "", type: "input" });
    expect(await send(uploadForm("photo.png", b))).toEqual({ name: "photo (1).png", subfolder: "", type: "input" });
    expect(await send(uploadForm("photo.png", b, { overwrite: "true" }))).toEqual({
      name: "photo.png",
      subfolder: "",
      type: "input",
    });
    expect(
      await send(uploadForm("mask.png", b, { original_ref: JSON.stringify({ filename: "photo (1).png" }) }), "mask"),
    ).toEqual({
      name: "mask (1).png",
      subfolder: "",
      type: "input",
    });
    expect(fake.uploads.map((u) => [u.route, u.name])).toEqual([
      ["image", "photo.png"],
      ["image", "photo.png"],
      ["image", "photo (1).png"],
      ["image", "photo.png"],
      ["mask", "mask (1).png"],
    ]);
    expect((await fetch(`${fake.url}/upload/image`, { method: "POST", body: new FormData() })).status).toBe(400);

    const graph = await inpaint();
    graph["10"]!.inputs.image = "photo (1).png";
    const answer = (await (await post(fake, "/prompt", { prompt: graph })).json()) as { prompt_id: string };
    const entry = await until(
      async () => (await getJson(fake, `/history/${answer.prompt_id}`))[answer.prompt_id],
      "the run",
    );
    const saved = await fetch(`${fake.url}/view?filename=${entry.outputs["9"].images[0].filename}`);
    const meta = await sharp(Buffer.from(await saved.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([40, 24]);
  });

  it("answers /view with 400, 403 and 404 as ComfyUI does", async () => {
    const fake = await start();
    const status = async (query: string) => (await fetch(`${fake.url}/view?${query}`)).status;
    expect(await status("filename=")).toBe(400);
    expect(await status("filename=/etc/passwd")).toBe(400);
    expect(await status("filename=../x.png")).toBe(400);
    expect(await status("filename=x.png&subfolder=../../")).toBe(403);
    expect(await status("filename=nothing.png")).toBe(404);
    expect(await status("filename=example.png&type=input")).toBe(200);
  });

  it("asks for its header on every route and on the websocket", async () => {
    const fake = await start({ requireHeader: { name: "X-Api-Key", value: "secret" } });
    expect((await fetch(`${fake.url}/system_stats`)).status).toBe(401);
    const stats = await fetch(`${fake.url}/system_stats`, { headers: { "X-Api-Key": "secret" } });
    expect(stats.status).toBe(200);
    expect((await json(stats)).devices[0].name).toBe("cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync");

    const refused = connect(fake, "c");
    await expect(refused.opened).rejects.toThrow(/401/);
    const allowed = connect(fake, "c", { "X-Api-Key": "secret" });
    await allowed.opened;
    allowed.ws.close();
  });

  it("reports a failure mid-run with ComfyUI's execution_error", async () => {
    const fake = await start({ failAtStep: 2 });
    const socket = connect(fake, "c");
    await socket.opened;
    await post(fake, "/prompt", { prompt: await textToImage(), client_id: "c", prompt_id: "bad" });
    await until(() => socket.messages.find((m) => m.type === "executing" && m.data.node === null), "the end");
    const error = socket.messages.find((m) => m.type === "execution_error")!;
    expect(Object.keys(error.data).sort()).toEqual(
      [
        "prompt_id",
        "node_id",
        "node_type",
        "executed",
        "exception_message",
        "exception_type",
        "traceback",
        "current_inputs",
        "current_outputs",
        "timestamp",
      ].sort(),
    );
    expect(error.data).toMatchObject({
      prompt_id: "bad",
      node_id: "3",
      node_type: "KSampler",
      exception_message: "CUDA out of memory. Tried to allocate 2.00 GiB",
    });
    expect(socket.messages.filter((m) => m.type === "progress")).toHaveLength(1);
    expect(socket.messages.some((m) => m.type === "execution_success")).toBe(false);
    const entry = (await getJson(fake, "/history/bad")).bad;
    expect(entry.status.status_str).toBe("error");
    expect(entry.status.completed).toBe(false);
    expect(entry.status.messages.at(-1)[0]).toBe("execution_error");
    expect(fake.executed).toEqual([]);
  });

  it("interrupts the running prompt and never runs a deleted pending one", async () => {
    const fake = await start({ stepMs: 50, maxSteps: 1000 });
    const socket = connect(fake, "c");
    await socket.opened;
    const graph = await textToImage();
    await post(fake, "/prompt", { prompt: graph, client_id: "c", prompt_id: "first" });
    await post(fake, "/prompt", { prompt: graph, client_id: "c", prompt_id: "second" });
    await until(() => socket.messages.find((m) => m.type === "progress"), "the first step");
    expect((await getJson(fake, "/queue")).queue_pending.map((i: unknown[]) => i[1])).toEqual(["second"]);
    expect((await getJson(fake, "/prompt")).exec_info.queue_remaining).toBe(2);

    await post(fake, "/queue", { delete: ["second"] });
    await post(fake, "/interrupt", { prompt_id: "someone-else" });
    expect((await getJson(fake, "/queue")).queue_running).toHaveLength(1);
    await post(fake, "/interrupt", { prompt_id: "first" });
    await until(() => socket.messages.find((m) => m.type === "executing" && m.data.node === null), "the end");
    expect(socket.messages.find((m) => m.type === "execution_interrupted")?.data).toMatchObject({
      prompt_id: "first",
      node_id: "3",
      node_type: "KSampler",
    });
    expect((await getJson(fake, "/history/first")).first.status.status_str).toBe("error");
    expect(fake.deleted).toEqual(["second"]);
    expect(fake.interrupts).toEqual([{ promptId: "someone-else" }, { promptId: "first" }]);
    expect(await getJson(fake, "/queue")).toEqual({ queue_running: [], queue_pending: [] });
    expect(await getJson(fake, "/history/second")).toEqual({});
    expect(fake.executed).toEqual([]);
  });

  it("saves an animated WebP and a video under 'images' with animated: [true]", async () => {
    const fake = await start();
    const graph = await textToImage();
    graph["5"] = { class_type: "EmptyHunyuanLatentVideo", inputs: { width: 64, height: 48, length: 9, batch_size: 1 } };
    graph["9"] = {
      class_type: "SaveAnimatedWEBP",
      inputs: { images: ["8", 0], filename_prefix: "clip", fps: 8, lossless: false, quality: 80, method: "default" },
    };
    graph["10"] = { class_type: "CreateVideo", inputs: { images: ["8", 0], fps: 8 } };
    graph["11"] = {
      class_type: "SaveVideo",
      inputs: { video: ["10", 0], filename_prefix: "video/clip", format: "auto", codec: "auto" },
    };
    const answer = await post(fake, "/prompt", { prompt: graph, prompt_id: "v" });
    expect(answer.status).toBe(200);
    const entry = await until(async () => (await getJson(fake, "/history/v")).v, "the run");
    expect(entry.outputs["9"]).toEqual({
      images: [{ filename: "clip_00001_.webp", subfolder: "", type: "output" }],
      animated: [true],
    });
    expect(entry.outputs["11"]).toEqual({
      images: [{ filename: "clip_00001_.mp4", subfolder: "video", type: "output" }],
      animated: [true],
    });
    const webp = await fetch(`${fake.url}/view?filename=clip_00001_.webp`);
    const meta = await sharp(Buffer.from(await webp.arrayBuffer()), { animated: true }).metadata();
    expect([meta.format, meta.width, meta.pageHeight, meta.pages]).toEqual(["webp", 64, 48, 4]);
    const video = await fetch(`${fake.url}/view?filename=clip_00001_.mp4&subfolder=video`);
    expect(video.headers.get("content-type")).toBe("video/mp4");
    expect(
      Buffer.from(await video.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe("ftyp");
  });

  it("dies like a killed server: the websocket drops without a close frame and connections are refused", async () => {
    const fake = await start({ stepMs: 20, dieAtStep: 2 });
    const socket = connect(fake, "c");
    await socket.opened;
    await post(fake, "/prompt", { prompt: await textToImage(), client_id: "c", prompt_id: "doomed" });
    const code = await until(() => socket.state.closed ?? undefined, "the drop");
    expect(code).toBe(1006);
    expect(socket.messages.filter((m) => m.type === "progress")).toHaveLength(1);
    const failure = await fetch(`${fake.url}/queue`).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(((failure as Error).cause as { code?: string }).code).toMatch(/ECONNREFUSED|ECONNRESET/);

    const other = await start();
    const open = connect(other, "c");
    await open.opened;
    other.kill();
    expect(await until(() => open.state.closed ?? undefined, "the drop")).toBe(1006);
    expect(fake.executed).toEqual([]);
  });
});
