import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, relative, resolve, sep } from "node:path";
import sharp from "sharp";
import { type WebSocket, WebSocketServer } from "ws";
import type { ApiGraph, ApiInput, InputSpec, NodeInfo, ObjectInfo } from "../../server/providers/comfyui/types";
import { FAKE_MP4, fakePng, readBody, sendJson } from "./replicate";

// A ComfyUI server as its REST routes and websocket speak: one worker runs the queued prompts in order, sending the
// real events to the socket of the prompt's client; results land in /history and are served by /view.

export interface ComfyKnobs {
  /** Time per sampler step, in milliseconds. */
  stepMs: number;
  /** Sampler steps actually simulated: the least of the sampler's steps and this. */
  maxSteps: number;
  /** The run fails with `execution_error` at this sampler step. */
  failAtStep: number | null;
  /** The failure's `exception_message`. */
  failMessage: string;
  /** The server dies at this sampler step, as `kill()` does. */
  dieAtStep: number | null;
  /** Node types the server does not have: absent from `/object_info`, refused by `/prompt`. */
  lacks: string[];
  /** Combo values (model files) the server does not have: absent from the choices, refused by `/prompt`. */
  lacksFiles: string[];
  /** A header every request (and the websocket's upgrade) must carry, else 401. */
  requireHeader: { name: string; value: string } | null;
}

export interface ComfyPrompt {
  promptId: string;
  clientId: string | undefined;
  graph: ApiGraph;
  at: number;
  extraData?: unknown;
}

export interface ComfyUpload {
  route: "image" | "mask";
  name: string;
  subfolder: string;
  type: string;
  bytes: Uint8Array;
}

export interface ComfyFake {
  /** The server's origin: `http://127.0.0.1:<port>`. */
  url: string;
  /** Mutable while the server runs. */
  knobs: ComfyKnobs;
  /** Every prompt accepted, in order. */
  prompts: ComfyPrompt[];
  uploads: ComfyUpload[];
  interrupts: Array<{ promptId: string | null }>;
  /** Prompt ids deleted from the queue before they ran. */
  deleted: string[];
  /** Prompt ids that finished successfully. */
  executed: string[];
  /** Abrupt death: every socket and websocket destroyed (no close frame), no longer listening. */
  kill(): void;
  close(): Promise<void>;
}

const DEFAULT_KNOBS: ComfyKnobs = {
  stepMs: 5,
  maxSteps: 4,
  failAtStep: null,
  failMessage: "CUDA out of memory. Tried to allocate 2.00 GiB",
  dieAtStep: null,
  lacks: [],
  lacksFiles: [],
  requireHeader: null,
};

/** The input files every server starts with (the fixture's LoadImage choices). */
const FIXTURE_INPUTS = ["example.png", "mask.png"];

const SAMPLERS = new Set(["KSampler", "KSamplerAdvanced", "SamplerCustom", "SamplerCustomAdvanced"]);
const OUTPUT_TYPES: Record<string, "output" | "temp"> = {
  SaveImage: "output",
  PreviewImage: "temp",
  SaveAnimatedWEBP: "output",
  SaveAnimatedPNG: "output",
  SaveWEBM: "output",
  SaveVideo: "output",
};
const MIME: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".json": "application/json",
};
/** Frames an animated output has at most (the fake's videos stay small). */
const MAX_FRAMES = 4;

type Item = {
  number: number;
  promptId: string;
  graph: ApiGraph;
  extraData: Record<string, unknown>;
  outputs: string[];
  clientId: string | undefined;
  interrupted: boolean;
};
type Entry = {
  prompt: [number, string, ApiGraph, Record<string, unknown>, string[]];
  outputs: Record<string, Record<string, unknown>>;
  status: { status_str: "success" | "error"; completed: boolean; messages: Array<[string, unknown]> };
  meta: Record<string, { node_id: string; display_node: string; parent_node: null; real_node_id: string }>;
};
type NodeError = { type: string; message: string; details: string; extra_info: Record<string, unknown> };

const isLink = (v: ApiInput | undefined): v is readonly [string, number] =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "number";
const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A Python list's `str()`, as ComfyUI's `value_not_in_list` details print the choices. */
const pyList = (values: unknown[]) =>
  `[${values.map((v) => (typeof v === "string" ? `'${v}'` : String(v))).join(", ")}]`;

function choicesOf(spec: InputSpec | undefined): unknown[] | undefined {
  if (!spec) return undefined;
  if (Array.isArray(spec[0])) return spec[0] as unknown[];
  const options = spec[1]?.options;
  return spec[0] === "COMBO" && Array.isArray(options) ? (options as unknown[]) : undefined;
}

export async function startComfyFake(options: Partial<ComfyKnobs> = {}): Promise<ComfyFake> {
  const knobs: ComfyKnobs = { ...DEFAULT_KNOBS, ...options };
  const fixture = JSON.parse(
    await readFile(new URL("./schemas/comfyui-object-info.json", import.meta.url), "utf8"),
  ) as ObjectInfo;
  const root = await mkdtemp(join(tmpdir(), "comfy-fake-"));
  const dirs = { input: join(root, "input"), output: join(root, "output"), temp: join(root, "temp") };
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  for (const name of FIXTURE_INPUTS) await writeFile(join(dirs.input, name), await fakePng(name, 64, 64));

  const prompts: ComfyPrompt[] = [];
  const uploads: ComfyUpload[] = [];
  const interrupts: Array<{ promptId: string | null }> = [];
  const deleted: string[] = [];
  const executed: string[] = [];
  const history = new Map<string, Entry>();
  const pending: Item[] = [];
  let running: Item | null = null;
  let number = 0;
  let dead = false;
  const counters = new Map<string, number>();
  const sockets = new Set<Socket>();
  const clients = new Map<WebSocket, string>();
  let wake: (() => void) | null = null;

  /** `/object_info` as this server has it: the lacking node types and files left out, its own input files listed. */
  async function objectInfo(): Promise<ObjectInfo> {
    const info = structuredClone(fixture);
    for (const name of knobs.lacks) delete info[name];
    const inputs = (await readdir(dirs.input, { recursive: true, withFileTypes: true }))
      .filter((d) => d.isFile())
      .map((d) => relative(dirs.input, join(d.parentPath, d.name)).split(sep).join("/"))
      .sort();
    for (const node of Object.values(info)) {
      for (const group of [node.input.required, node.input.optional]) {
        for (const [name, spec] of Object.entries(group ?? {})) {
          if (Array.isArray(spec[0])) {
            const files =
              (node.name === "LoadImage" || node.name === "LoadImageMask") && name === "image"
                ? inputs
                : (spec[0] as string[]).filter((v) => !knobs.lacksFiles.includes(v));
            group![name] = [files, ...(spec.length > 1 ? [spec[1]] : [])] as unknown as InputSpec;
          } else if (spec[0] === "COMBO" && Array.isArray(spec[1]?.options)) {
            const options = (spec[1].options as unknown[]).filter((v) => !knobs.lacksFiles.includes(String(v)));
            group![name] = [spec[0], { ...spec[1], options }];
          }
        }
      }
    }
    return info;
  }

  // ---- websocket ----

  function send(clientId: string | undefined, type: string, data: unknown) {
    const text = JSON.stringify({ type, data });
    for (const [ws, sid] of clients) if (clientId === undefined || sid === clientId) ws.send(text);
  }
  const queueRemaining = () => pending.length + (running ? 1 : 0);
  function broadcastStatus() {
    send(undefined, "status", { status: { exec_info: { queue_remaining: queueRemaining() } } });
  }

  // ---- validation, as ComfyUI's validate_prompt and validate_inputs answer ----

  function validate(
    graph: ApiGraph,
    info: ObjectInfo,
  ): { error: NodeError | null; outputs: string[]; nodeErrors: Record<string, unknown> } {
    const outputs: string[] = [];
    for (const [id, node] of Object.entries(graph)) {
      if (!node || typeof node !== "object" || typeof node.class_type !== "string") {
        return {
          error: {
            type: "invalid_prompt",
            message: "Cannot execute because a node is missing the class_type property.",
            details: `Node ID '#${id}'`,
            extra_info: {},
          },
          outputs: [],
          nodeErrors: {},
        };
      }
      const nodeInfo = own(info, node.class_type);
      if (!nodeInfo) {
        return {
          error: {
            type: "invalid_prompt",
            message: `Cannot execute because node ${node.class_type} does not exist.`,
            details: `Node ID '#${id}'`,
            extra_info: {},
          },
          outputs: [],
          nodeErrors: {},
        };
      }
      if (nodeInfo.output_node) outputs.push(id);
    }
    if (outputs.length === 0) {
      return {
        error: { type: "prompt_no_outputs", message: "Prompt has no outputs", details: "", extra_info: {} },
        outputs: [],
        nodeErrors: {},
      };
    }
    const validated = new Map<string, NodeError[]>();
    const check = (id: string): boolean => {
      const known = validated.get(id);
      if (known) return known.length === 0;
      const node = graph[id]!;
      const nodeInfo = own(info, node.class_type)!;
      const errors: NodeError[] = [];
      validated.set(id, errors);
      let linkedValid = true;
      const specs: Array<[string, InputSpec, boolean]> = [
        ...Object.entries(nodeInfo.input.required ?? {}).map(([n, s]) => [n, s, true] as [string, InputSpec, boolean]),
        ...Object.entries(nodeInfo.input.optional ?? {}).map(([n, s]) => [n, s, false] as [string, InputSpec, boolean]),
      ];
      for (const [name, spec, required] of specs) {
        const value = own(node.inputs ?? {}, name);
        if (value === undefined) {
          if (required)
            errors.push({
              type: "required_input_missing",
              message: "Required input is missing",
              details: name,
              extra_info: { input_name: name },
            });
          continue;
        }
        if (isLink(value)) {
          if (!own(graph, value[0])) throw new Error(`'${value[0]}'`);
          if (!check(value[0])) linkedValid = false;
          continue;
        }
        if ((node.class_type === "LoadImage" || node.class_type === "LoadImageMask") && name === "image") {
          const files = choicesOf(spec) ?? [];
          if (!files.includes(value))
            errors.push({
              type: "custom_validation_failed",
              message: "Custom validation failed for node",
              details: `${name} - Invalid image file: ${String(value)}`,
              extra_info: { input_name: name },
            });
          continue;
        }
        const choices = choicesOf(spec);
        if (choices && !choices.includes(value)) {
          const big = choices.length > 20;
          errors.push({
            type: "value_not_in_list",
            message: "Value not in list",
            details: `${name}: '${String(value)}' not in ${big ? `(list of length ${choices.length})` : pyList(choices)}`,
            extra_info: { input_name: name, input_config: big ? null : spec, received_value: value },
          });
          continue;
        }
        const limits = spec[1] ?? {};
        if (typeof value === "number" && typeof limits.min === "number" && value < limits.min)
          errors.push({
            type: "value_smaller_than_min",
            message: `Value ${value} smaller than min of ${limits.min}`,
            details: name,
            extra_info: { input_name: name, input_config: spec, received_value: value },
          });
        if (typeof value === "number" && typeof limits.max === "number" && value > limits.max)
          errors.push({
            type: "value_bigger_than_max",
            message: `Value ${value} bigger than max of ${limits.max}`,
            details: name,
            extra_info: { input_name: name, input_config: spec, received_value: value },
          });
      }
      return errors.length === 0 && linkedValid;
    };

    const good: string[] = [];
    const failures: Array<[string, NodeError[]]> = [];
    const nodeErrors: Record<string, { errors: NodeError[]; dependent_outputs: string[]; class_type: string }> = {};
    for (const output of outputs) {
      let valid: boolean;
      let reasons: NodeError[];
      try {
        valid = check(output);
        reasons = validated.get(output) ?? [];
      } catch (error) {
        valid = false;
        reasons = [
          {
            type: "exception_during_validation",
            message: "Exception when validating node",
            details: (error as Error).message,
            extra_info: { exception_type: "KeyError", traceback: [] },
          },
        ];
        validated.set(output, reasons);
      }
      if (valid) {
        good.push(output);
        continue;
      }
      failures.push([output, reasons]);
      for (const [id, errors] of validated) {
        if (errors.length === 0) continue;
        nodeErrors[id] ??= { errors, dependent_outputs: [], class_type: graph[id]!.class_type };
        nodeErrors[id].dependent_outputs.push(output);
      }
    }
    if (good.length === 0) {
      return {
        error: {
          type: "prompt_outputs_failed_validation",
          message: "Prompt outputs failed validation",
          details: failures.flatMap(([, errors]) => errors.map((e) => `${e.message}: ${e.details}`)).join("\n"),
          extra_info: {},
        },
        outputs: [],
        nodeErrors,
      };
    }
    return { error: null, outputs: good, nodeErrors };
  }

  // ---- reading the graph: what a run makes ----

  type Shape = { width: number; height: number; count: number; frames: number };

  /** Follows links from a node back to what sets the size: a latent's width and height, or a loaded image. */
  async function shapeOf(graph: ApiGraph, id: string, seen = new Set<string>()): Promise<Shape | undefined> {
    const node = own(graph, id);
    if (!node || seen.has(id)) return undefined;
    seen.add(id);
    const inputs = node.inputs ?? {};
    if (node.class_type === "LoadImage" || node.class_type === "LoadImageMask") {
      const file = typeof inputs.image === "string" ? inputs.image : "";
      try {
        const meta = await sharp(await readFile(join(dirs.input, file))).metadata();
        return { width: meta.width ?? 64, height: meta.height ?? 64, count: 1, frames: 1 };
      } catch {
        return { width: 64, height: 64, count: 1, frames: 1 };
      }
    }
    if (typeof inputs.width === "number" && typeof inputs.height === "number") {
      const count = typeof inputs.batch_size === "number" ? inputs.batch_size : 1;
      const frames = typeof inputs.length === "number" ? inputs.length : 1;
      return { width: inputs.width, height: inputs.height, count, frames };
    }
    const first = ["samples", "latent_image", "pixels", "images", "image", "video", "latent"];
    const names = [...first.filter((n) => n in inputs), ...Object.keys(inputs).filter((n) => !first.includes(n))];
    for (const name of names) {
      const value = inputs[name];
      if (!isLink(value)) continue;
      const shape = await shapeOf(graph, value[0], seen);
      if (shape) return shape;
    }
    return undefined;
  }

  /** The first node of a type reached by following links back from a node. */
  function upstream(
    graph: ApiGraph,
    id: string,
    match: (type: string) => boolean,
    seen = new Set<string>(),
  ): string | undefined {
    const node = own(graph, id);
    if (!node || seen.has(id)) return undefined;
    seen.add(id);
    for (const value of Object.values(node.inputs ?? {})) {
      if (!isLink(value)) continue;
      if (match(graph[value[0]]?.class_type ?? "")) return value[0];
      const found = upstream(graph, value[0], match, seen);
      if (found) return found;
    }
    return undefined;
  }

  /** A literal input, following links to primitives (`PrimitiveStringMultiline.value`). */
  function literal(graph: ApiGraph, value: ApiInput | undefined, depth = 0): ApiInput | undefined {
    if (!isLink(value) || depth > 8) return value;
    const source = own(graph, value[0]);
    return source ? literal(graph, source.inputs.value, depth + 1) : undefined;
  }

  /** The positive prompt's text and the seed, which make the picture's colours. */
  function promptAndSeed(graph: ApiGraph, samplerId: string | undefined): string {
    if (!samplerId) return "";
    const sampler = graph[samplerId]!;
    let seed = literal(graph, sampler.inputs.seed ?? sampler.inputs.noise_seed);
    if (seed === undefined && isLink(sampler.inputs.noise))
      seed = literal(graph, graph[sampler.inputs.noise[0]]?.inputs.noise_seed);
    const start = isLink(sampler.inputs.positive)
      ? sampler.inputs.positive
      : isLink(sampler.inputs.guider)
        ? sampler.inputs.guider
        : null;
    let text: ApiInput | undefined;
    const seen = new Set<string>();
    const queue = start ? [start[0]] : [];
    while (queue.length > 0 && text === undefined) {
      const id = queue.shift()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const inputs = graph[id]?.inputs ?? {};
      for (const key of ["text", "text_g", "t5xxl", "clip_l", "prompt"]) {
        if (key in inputs) {
          text = literal(graph, inputs[key]);
          break;
        }
      }
      for (const key of ["positive", "conditioning", "conditioning_1", "conditioning_to"]) {
        const v = inputs[key];
        if (isLink(v)) queue.push(v[0]);
      }
    }
    return `${String(text ?? "")}|${String(seed ?? "")}`;
  }

  /** The nodes a prompt runs, each after the nodes it takes from. */
  function executionOrder(graph: ApiGraph, outputs: string[]): string[] {
    const order: string[] = [];
    const seen = new Set<string>();
    const visit = (id: string) => {
      if (seen.has(id) || !own(graph, id)) return;
      seen.add(id);
      for (const value of Object.values(graph[id]!.inputs ?? {})) if (isLink(value)) visit(value[0]);
      order.push(id);
    };
    for (const id of [...outputs].sort()) visit(id);
    return order;
  }

  /** ComfyUI's save path: the prefix's folder, and the next `<name>_NNNNN_` counter for it. */
  function nextFile(prefix: string, ext: string): { filename: string; subfolder: string } {
    const parts = prefix.split("/").filter((p) => p && p !== "." && p !== "..");
    const name = parts.pop() ?? "ComfyUI";
    const subfolder = parts.join("/");
    const key = `${subfolder}/${name}`;
    const counter = (counters.get(key) ?? 0) + 1;
    counters.set(key, counter);
    return { filename: `${name}_${String(counter).padStart(5, "0")}_.${ext}`, subfolder };
  }

  async function save(type: "output" | "temp", file: { filename: string; subfolder: string }, bytes: Buffer) {
    const dir = join(dirs[type], file.subfolder);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, file.filename), bytes);
    return { filename: file.filename, subfolder: file.subfolder, type };
  }

  /** What an output node saves, in the shape its `ui` output has. */
  async function runOutput(graph: ApiGraph, id: string, colours: string): Promise<Record<string, unknown>> {
    const node = graph[id]!;
    const shape = (await shapeOf(graph, id)) ?? { width: 64, height: 64, count: 1, frames: 1 };
    const width = Math.max(8, Math.min(2048, Math.round(shape.width)));
    const height = Math.max(8, Math.min(2048, Math.round(shape.height)));
    const rawPrefix = literal(graph, node.inputs.filename_prefix);
    const prefix = typeof rawPrefix === "string" ? rawPrefix : "ComfyUI";
    const type = OUTPUT_TYPES[node.class_type] ?? "output";
    const frames = Math.max(1, Math.min(MAX_FRAMES, shape.frames));
    switch (node.class_type) {
      case "SaveImage":
      case "PreviewImage": {
        const images = [];
        const base = type === "temp" ? `ComfyUI_temp_${randomBytes(3).toString("hex").slice(0, 5)}` : prefix;
        for (let i = 0; i < Math.max(1, Math.min(8, shape.count * shape.frames)); i++) {
          images.push(await save(type, nextFile(base, "png"), await fakePng(`${colours}|${i}`, width, height)));
        }
        return { images };
      }
      case "SaveAnimatedWEBP":
      case "SaveAnimatedPNG": {
        const pngs = await Promise.all(
          Array.from({ length: frames }, (_, i) => fakePng(`${colours}|${i}`, width, height)),
        );
        const webp = node.class_type === "SaveAnimatedWEBP";
        const animation = sharp(pngs, { join: { animated: true } });
        const bytes = webp
          ? await animation.webp({ loop: 0, delay: 125 }).toBuffer()
          : await animation.png().toBuffer();
        const image = await save(type, nextFile(prefix, webp ? "webp" : "png"), bytes);
        return { images: [image], animated: [frames !== 1] };
      }
      case "SaveVideo":
      case "SaveWEBM": {
        // The MP4 of the other fakes: a real video, whatever the size asked for.
        const ext = node.class_type === "SaveWEBM" ? "webm" : "mp4";
        const image = await save(type, nextFile(prefix, ext), FAKE_MP4);
        return { images: [image], animated: [true] };
      }
      default:
        return {};
    }
  }

  // ---- the worker ----

  async function execute(item: Item) {
    const messages: Array<[string, unknown]> = [];
    const emit = (type: string, data: Record<string, unknown>, record = false) => {
      if (dead) return;
      if (record) messages.push([type, data]);
      send(item.clientId, type, data);
    };
    const pid = item.promptId;
    emit("execution_start", { prompt_id: pid, timestamp: Date.now() }, true);
    emit("execution_cached", { nodes: [], prompt_id: pid, timestamp: Date.now() }, true);
    const order = executionOrder(item.graph, item.outputs);
    const sampler = order.find((id) => SAMPLERS.has(item.graph[id]!.class_type));
    const colours = promptAndSeed(
      item.graph,
      sampler ?? upstream(item.graph, item.outputs[0]!, (t) => SAMPLERS.has(t)),
    );
    const outputs: Record<string, Record<string, unknown>> = {};
    const done: string[] = [];
    let outcome: "success" | "error" | "interrupted" = "success";
    const stop = (id: string) => {
      outcome = "interrupted";
      emit(
        "execution_interrupted",
        {
          prompt_id: pid,
          node_id: id,
          node_type: item.graph[id]!.class_type,
          executed: [...done],
          timestamp: Date.now(),
        },
        true,
      );
    };
    run: for (const id of order) {
      if (dead) return;
      if (item.interrupted) {
        stop(id);
        break;
      }
      const node = item.graph[id]!;
      emit("executing", { node: id, display_node: id, prompt_id: pid });
      if (id === sampler) {
        const samplerSteps = literal(item.graph, node.inputs.steps);
        const sigmas = node.inputs.sigmas;
        const requested =
          typeof samplerSteps === "number"
            ? samplerSteps
            : isLink(sigmas) && typeof item.graph[sigmas[0]]?.inputs.steps === "number"
              ? (item.graph[sigmas[0]]!.inputs.steps as number)
              : 20;
        const max = Math.max(1, Math.min(requested, knobs.maxSteps));
        for (let step = 1; step <= max; step++) {
          await sleep(knobs.stepMs);
          if (dead) return;
          if (item.interrupted) {
            stop(id);
            break run;
          }
          if (knobs.dieAtStep !== null && step >= knobs.dieAtStep) {
            fake.kill();
            return;
          }
          if (knobs.failAtStep !== null && step >= knobs.failAtStep) {
            outcome = "error";
            emit(
              "execution_error",
              {
                prompt_id: pid,
                node_id: id,
                node_type: node.class_type,
                executed: [...done],
                exception_message: knobs.failMessage,
                exception_type: "torch.OutOfMemoryError",
                traceback: [
                  '  File "/ComfyUI/execution.py", line 496, in execute\n',
                  '  File "/ComfyUI/comfy/samplers.py", line 1050, in sample\n',
                ],
                current_inputs: {},
                current_outputs: {},
                timestamp: Date.now(),
              },
              true,
            );
            break run;
          }
          emit("progress", { value: step, max, prompt_id: pid, node: id });
        }
      }
      if (item.outputs.includes(id)) {
        const output = await runOutput(item.graph, id, colours);
        if (dead) return;
        outputs[id] = output;
        emit("executed", { node: id, display_node: id, output, prompt_id: pid });
      }
      done.push(id);
    }
    if (dead) return;
    if (outcome === "success") emit("execution_success", { prompt_id: pid, timestamp: Date.now() }, true);
    history.set(pid, {
      prompt: [item.number, pid, item.graph, item.extraData, item.outputs],
      outputs: outcome === "success" ? outputs : {},
      status: {
        status_str: outcome === "success" ? "success" : "error",
        completed: outcome === "success",
        messages,
      },
      meta: Object.fromEntries(
        Object.keys(outcome === "success" ? outputs : {}).map((id) => [
          id,
          { node_id: id, display_node: id, parent_node: null, real_node_id: id },
        ]),
      ),
    });
    if (outcome === "success") executed.push(pid);
  }

  async function worker() {
    while (!dead) {
      const item = pending.shift();
      if (!item) {
        await new Promise<void>((r) => (wake = r));
        wake = null;
        continue;
      }
      running = item;
      broadcastStatus();
      try {
        await execute(item);
      } catch (error) {
        console.error("comfyui fake: run failed", error);
      }
      if (dead) return;
      running = null;
      send(item.clientId, "executing", { node: null, prompt_id: item.promptId });
      broadcastStatus();
    }
  }

  // ---- HTTP ----

  const queueItem = (i: Item) => [i.number, i.promptId, i.graph, i.extraData, i.outputs];
  const jsonBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const text = (await readBody(req)).toString("utf8");
    if (!text.trim()) return {};
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.replace(/^\/api(?=\/)/, "");
    const method = req.method ?? "GET";
    const header = knobs.requireHeader;
    if (header && req.headers[header.name.toLowerCase()] !== header.value) {
      res.writeHead(401, { "Content-Type": "text/plain" });
      res.end("401: Unauthorized");
      return;
    }

    if (path === "/prompt" && method === "GET") {
      return sendJson(res, 200, { exec_info: { queue_remaining: queueRemaining() } });
    }
    if (path === "/prompt" && method === "POST") {
      let body: Record<string, unknown>;
      try {
        body = await jsonBody(req);
      } catch {
        return sendJson(res, 400, { error: "invalid json", node_errors: {} });
      }
      const graph = body.prompt as ApiGraph | undefined;
      if (!graph || typeof graph !== "object") {
        return sendJson(res, 400, {
          error: { type: "no_prompt", message: "No prompt provided", details: "No prompt provided", extra_info: {} },
          node_errors: {},
        });
      }
      const promptId = typeof body.prompt_id === "string" ? body.prompt_id : randomUUID();
      const result = validate(graph, await objectInfo());
      if (result.error) return sendJson(res, 400, { error: result.error, node_errors: result.nodeErrors });
      const clientId = typeof body.client_id === "string" ? body.client_id : undefined;
      const extraData = {
        ...(body.extra_data && typeof body.extra_data === "object" ? body.extra_data : {}),
        ...(clientId ? { client_id: clientId } : {}),
        create_time: Date.now(),
      };
      const item: Item = {
        number: number++,
        promptId,
        graph,
        extraData,
        outputs: result.outputs,
        clientId,
        interrupted: false,
      };
      prompts.push({ promptId, clientId, graph, at: Date.now(), extraData: body.extra_data });
      pending.push(item);
      broadcastStatus();
      wake?.();
      return sendJson(res, 200, { prompt_id: promptId, number: item.number, node_errors: result.nodeErrors });
    }
    if (path === "/queue" && method === "GET") {
      return sendJson(res, 200, {
        queue_running: running ? [queueItem(running)] : [],
        queue_pending: pending.map(queueItem),
      });
    }
    if (path === "/queue" && method === "POST") {
      const body = await jsonBody(req).catch(() => ({}) as Record<string, unknown>);
      const remove = (keep: (i: Item) => boolean) => {
        for (let i = pending.length - 1; i >= 0; i--) {
          if (!keep(pending[i]!)) deleted.push(...pending.splice(i, 1).map((p) => p.promptId));
        }
      };
      if (body.clear) remove(() => false);
      if (Array.isArray(body.delete)) remove((i) => !(body.delete as unknown[]).includes(i.promptId));
      broadcastStatus();
      res.writeHead(200).end();
      return;
    }
    if (path === "/interrupt" && method === "POST") {
      const body = await jsonBody(req).catch(() => ({}) as Record<string, unknown>);
      const promptId = typeof body.prompt_id === "string" ? body.prompt_id : null;
      interrupts.push({ promptId });
      if (running && (promptId === null || running.promptId === promptId)) running.interrupted = true;
      res.writeHead(200).end();
      return;
    }
    if (path === "/history" && method === "GET") {
      const offset = Number(url.searchParams.get("offset") ?? 0) || 0;
      const max = url.searchParams.has("max_items") ? Number(url.searchParams.get("max_items")) : Infinity;
      return sendJson(res, 200, Object.fromEntries([...history].slice(offset, offset + max)));
    }
    if (path.startsWith("/history/") && method === "GET") {
      const id = decodeURIComponent(path.slice("/history/".length));
      const entry = history.get(id);
      return sendJson(res, 200, entry ? { [id]: entry } : {});
    }
    if (path === "/history" && method === "POST") {
      const body = await jsonBody(req).catch(() => ({}) as Record<string, unknown>);
      if (body.clear) history.clear();
      if (Array.isArray(body.delete)) for (const id of body.delete) history.delete(String(id));
      res.writeHead(200).end();
      return;
    }
    if (path === "/view" && method === "GET") return view(url, res);
    if ((path === "/upload/image" || path === "/upload/mask") && method === "POST") {
      return upload(req, res, path === "/upload/mask" ? "mask" : "image");
    }
    if (path === "/object_info" && method === "GET") return sendJson(res, 200, await objectInfo());
    if (path.startsWith("/object_info/") && method === "GET") {
      const name = decodeURIComponent(path.slice("/object_info/".length));
      const info: NodeInfo | undefined = own(await objectInfo(), name);
      return sendJson(res, 200, info ? { [name]: info } : {});
    }
    if (path === "/system_stats" && method === "GET") {
      const gib = 1024 ** 3;
      return sendJson(res, 200, {
        system: {
          os: "posix",
          python_version: "3.12.9 (main, Feb 12 2025, 14:50:50) [Clang 19.1.6 ]",
          embedded_python: false,
          comfyui_version: "0.3.76",
          pytorch_version: "2.7.1+cu128",
          argv: ["main.py", "--listen", "0.0.0.0"],
          ram_total: 64 * gib,
          ram_free: 48 * gib,
        },
        devices: [
          {
            name: "cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync",
            type: "cuda",
            index: 0,
            vram_total: 24 * gib,
            vram_free: 22 * gib,
            torch_vram_total: 0,
            torch_vram_free: 0,
          },
        ],
      });
    }
    res.writeHead(404, { "Content-Type": "text/plain" });
    res.end("404: Not Found");
  }

  async function view(url: URL, res: ServerResponse) {
    const filename = url.searchParams.get("filename") ?? "";
    const type = url.searchParams.get("type") || "output";
    const subfolder = url.searchParams.get("subfolder") ?? "";
    const base = own(dirs as Record<string, string>, type);
    if (!filename || filename.startsWith("/") || filename.includes("..") || !base) {
      res.writeHead(400).end();
      return;
    }
    const dir = resolve(base, subfolder);
    if (dir !== base && !dir.startsWith(base + sep)) {
      res.writeHead(403).end();
      return;
    }
    const file = join(dir, filename);
    const found = await stat(file).catch(() => null);
    if (!found?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": MIME[extname(filename).toLowerCase()] ?? "application/octet-stream",
      "Content-Disposition": `filename="${filename}"`,
    });
    res.end(await readFile(file));
  }

  async function upload(req: IncomingMessage, res: ServerResponse, route: "image" | "mask") {
    let form: FormData;
    try {
      const body = await readBody(req);
      form = await new Request("http://fake/upload", {
        method: "POST",
        headers: { "content-type": req.headers["content-type"] ?? "" },
        body: new Uint8Array(body),
      }).formData();
    } catch {
      res.writeHead(400).end();
      return;
    }
    const image = form.get("image");
    if (!(image instanceof File) || !image.name) {
      res.writeHead(400).end();
      return;
    }
    const type = String(form.get("type") ?? "input") || "input";
    const subfolder = String(form.get("subfolder") ?? "");
    const overwrite = ["true", "1"].includes(String(form.get("overwrite") ?? ""));
    const base = own(dirs as Record<string, string>, type);
    const name = image.name.split(/[\\/]/).pop() ?? "";
    const dir = base ? resolve(base, subfolder) : "";
    if (!base || !name || name.includes("..") || (dir !== base && !dir.startsWith(base + sep))) {
      res.writeHead(400).end();
      return;
    }
    let bytes: Buffer = Buffer.from(await image.arrayBuffer());
    const received = new Uint8Array(bytes);
    if (route === "mask") {
      // The mask's alpha goes into the original image, saved under the mask's name (ComfyUI's upload/mask).
      try {
        const ref = JSON.parse(String(form.get("original_ref") ?? "{}")) as Record<string, string>;
        const refBase = own(dirs as Record<string, string>, ref.type || "input")!;
        const original = sharp(await readFile(join(refBase, ref.subfolder ?? "", ref.filename ?? "")));
        const { width = 64, height = 64 } = await original.metadata();
        const alpha = await sharp(bytes).ensureAlpha().extractChannel(3).resize(width, height).raw().toBuffer();
        bytes = await original
          .removeAlpha()
          .joinChannel(alpha, { raw: { width, height, channels: 1 } })
          .png()
          .toBuffer();
      } catch {
        res.writeHead(400).end();
        return;
      }
    }
    await mkdir(dir, { recursive: true });
    let chosen = name;
    if (!overwrite) {
      const ext = extname(name);
      const stem = name.slice(0, name.length - ext.length);
      for (let i = 1; ; i++) {
        const existing = await readFile(join(dir, chosen)).catch(() => null);
        if (!existing) break;
        const same =
          createHash("sha256").update(existing).digest("hex") === createHash("sha256").update(bytes).digest("hex");
        if (same) break;
        chosen = `${stem} (${i})${ext}`;
      }
    }
    await writeFile(join(dir, chosen), bytes);
    uploads.push({ route, name: chosen, subfolder, type, bytes: received });
    sendJson(res, 200, { name: chosen, subfolder, type });
  }

  // ---- the server ----

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(`fake failed: ${error.message}`);
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const header = knobs.requireHeader;
    if (url.pathname.replace(/^\/api(?=\/)/, "") !== "/ws") {
      socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (header && req.headers[header.name.toLowerCase()] !== header.value) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const sid = url.searchParams.get("clientId") || randomBytes(16).toString("hex");
      clients.set(ws, sid);
      ws.on("close", () => clients.delete(ws));
      ws.on("error", () => clients.delete(ws));
      ws.send(
        JSON.stringify({ type: "status", data: { status: { exec_info: { queue_remaining: queueRemaining() } }, sid } }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  void worker();

  let closed: Promise<void> | null = null;
  const fake: ComfyFake = {
    url,
    knobs,
    prompts,
    uploads,
    interrupts,
    deleted,
    executed,
    kill() {
      if (dead) return;
      dead = true;
      wake?.();
      for (const ws of clients.keys()) ws.terminate();
      clients.clear();
      for (const socket of sockets) socket.destroy();
      server.close();
      server.closeAllConnections();
    },
    close() {
      closed ??= (async () => {
        fake.kill();
        wss.close();
        await rm(root, { recursive: true, force: true });
      })();
      return closed;
    },
  };
  return fake;
}
