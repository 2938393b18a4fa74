import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import type { ApiGraph, ObjectInfo, SystemStats } from "#server/providers/comfyui/types.ts";

/** How long one REST call to a server may take; uploads and downloads of results may take longer. */
const CALL_TIMEOUT_MS = 10_000;
const FILE_TIMEOUT_MS = 120_000;
/** A run whose socket says nothing this long asks the server over REST whether it still has the prompt. */
const SILENCE_MS = 30_000;
/** Times a dropped socket is opened again while the server still answers. */
const RECONNECTS = 3;
/** How long a finished prompt's history may take to appear. */
const HISTORY_WAIT_MS = 10_000;

/** The server could not be reached, stopped answering, or died under a prompt: the pool runs the job elsewhere. */
export class ComfyServerLost extends Error {
  override readonly name = "ComfyServerLost";
}

/**
 * The server refused the prompt (`POST /prompt` 400): its message and each node's errors in one line. `lacking` when
 * the cause is what this server lacks (a node type, a model file in a list) rather than the workflow itself.
 */
export class ComfyPromptRefused extends Error {
  override readonly name = "ComfyPromptRefused";
  readonly lacking: boolean;
  constructor(message: string, lacking: boolean) {
    super(message);
    this.lacking = lacking;
  }
}

/** The prompt ran and failed (`execution_error`), or was interrupted by someone else. */
export class ComfyExecutionFailed extends Error {
  override readonly name = "ComfyExecutionFailed";
}

/** One file a run saved. */
export interface ComfyOutput {
  nodeId: string;
  filename: string;
  bytes: Uint8Array;
  mediaType: string;
}

export interface RunProgress {
  /** The run's share done, 0 to 1. */
  fraction: number;
  node?: string;
  value?: number;
  max?: number;
}

export interface RunOptions {
  signal: AbortSignal;
  /** The prompt's id on the server (a new one by default). */
  promptId?: string;
  /** Kept with the prompt in the server's queue (`extra_data`). */
  extraData?: Record<string, unknown>;
  onProgress?: (progress: RunProgress) => void;
  /** The prompt started running. */
  onStarted?: () => void;
}

const MEDIA_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
};

/** The keys under which ComfyUI's nodes list their saved files in a history entry. */
const FILE_KEYS = ["images", "gifs", "videos", "animated"] as const;

const SAMPLER = /sampler/i;

interface SavedFile {
  filename: string;
  subfolder?: string;
  type?: string;
}

/**
 * One ComfyUI server, over its REST API and websocket: its health, its queue, its node types, uploads, and runs of a
 * prompt followed to their files. Every failure to reach it is a `ComfyServerLost`.
 */
export class ComfyServerClient {
  readonly url: string;
  private readonly headers: Record<string, string>;

  constructor(server: { url: string; headers?: Record<string, string> }) {
    this.url = server.url.replace(/\/+$/, "");
    this.headers = server.headers ?? {};
  }

  /** `GET /system_stats`. */
  async systemStats(signal?: AbortSignal): Promise<SystemStats> {
    return (await this.json("GET", "/system_stats", undefined, signal)) as SystemStats;
  }

  /** The prompts in its queue: running and waiting. */
  async queueState(signal?: AbortSignal): Promise<{ running: number; pending: number; ids: string[] }> {
    const queue = (await this.json("GET", "/queue", undefined, signal)) as {
      queue_running?: unknown[][];
      queue_pending?: unknown[][];
    };
    const running = queue.queue_running ?? [];
    const pending = queue.queue_pending ?? [];
    return {
      running: running.length,
      pending: pending.length,
      ids: [...running, ...pending].map((item) => String(item[1])),
    };
  }

  /** `GET /object_info`: the node types it has, with their inputs and the files its lists offer. */
  async objectInfo(signal?: AbortSignal): Promise<ObjectInfo> {
    return (await this.json("GET", "/object_info", undefined, signal, FILE_TIMEOUT_MS)) as ObjectInfo;
  }

  /**
   * Uploads an image (or a mask, read by `LoadImageMask` from its channels) into the server's input folder; the name
   * to put in a `LoadImage` input. Masks go through `/upload/image` too: `/upload/mask` merges a mask into the alpha
   * of an image already uploaded, which a mask node does not read.
   */
  async upload(bytes: Uint8Array, options: { filename: string; signal?: AbortSignal }): Promise<string> {
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(bytes)]), options.filename);
    form.append("type", "input");
    form.append("overwrite", "true");
    const answer = (await this.json("POST", "/upload/image", form, options.signal, FILE_TIMEOUT_MS)) as {
      name: string;
      subfolder?: string;
    };
    return answer.subfolder ? `${answer.subfolder}/${answer.name}` : answer.name;
  }

  /**
   * Queues a prompt and follows it to its saved files: progress from the websocket, the files from its history. A
   * socket that drops while the server answers is opened again; a server that stops answering is `ComfyServerLost`.
   * On abort the prompt is taken off the queue, or interrupted when it runs.
   */
  async run(graph: ApiGraph, options: RunOptions): Promise<ComfyOutput[]> {
    const { signal } = options;
    signal.throwIfAborted();
    const clientId = randomUUID();
    const samplers = Math.max(1, Object.values(graph).filter((n) => SAMPLER.test(n.class_type)).length);
    const follower = new Follower(this, clientId, samplers, options);
    try {
      await follower.connect();
      const promptId = await this.queuePrompt(graph, clientId, options);
      await follower.follow(promptId);
      return await this.outputsOf(promptId, graph, signal);
    } finally {
      follower.close();
    }
  }

  /** `POST /prompt` with the socket's client id; the prompt's id. */
  private async queuePrompt(graph: ApiGraph, clientId: string, options: RunOptions): Promise<string> {
    const body = {
      prompt: graph,
      client_id: clientId,
      prompt_id: options.promptId ?? randomUUID(),
      ...(options.extraData && { extra_data: options.extraData }),
    };
    const response = await this.call("POST", "/prompt", JSON.stringify(body), options.signal);
    const text = await response.text();
    if (response.status === 400) throw refusal(text);
    if (!response.ok) throw this.lost(`answered HTTP ${response.status} to the prompt`);
    const answer = parse(text) as { prompt_id?: string } | undefined;
    if (!answer?.prompt_id) throw this.lost("gave no prompt id");
    return answer.prompt_id;
  }

  /** Takes a waiting prompt off the queue and interrupts it if it runs (both harmless otherwise). */
  async cancel(promptId: string): Promise<void> {
    const signal = AbortSignal.timeout(5_000);
    await Promise.allSettled([
      this.call("POST", "/queue", JSON.stringify({ delete: [promptId] }), signal).then((r) => r.body?.cancel()),
      this.call("POST", "/interrupt", JSON.stringify({ prompt_id: promptId }), signal).then((r) => r.body?.cancel()),
    ]);
  }

  /** The prompt's history entry, or undefined while it is not finished. */
  async history(promptId: string, signal?: AbortSignal): Promise<HistoryEntry | undefined> {
    const all = (await this.json("GET", `/history/${encodeURIComponent(promptId)}`, undefined, signal)) as Record<
      string,
      HistoryEntry
    >;
    return all[promptId];
  }

  /** The files the prompt's output nodes saved, in the graph's order of output nodes. */
  private async outputsOf(promptId: string, graph: ApiGraph, signal: AbortSignal): Promise<ComfyOutput[]> {
    let entry: HistoryEntry | undefined;
    const until = Date.now() + HISTORY_WAIT_MS;
    while (!(entry = await this.history(promptId, signal)) && Date.now() < until) await pause(200, signal);
    if (!entry) throw this.lost("finished a prompt it has no history of");
    const failed = failureOf(entry);
    if (failed) throw failed;
    const files: Array<{ nodeId: string; file: SavedFile }> = [];
    for (const nodeId of Object.keys(graph)) {
      const output = entry.outputs?.[nodeId];
      if (!output) continue;
      for (const key of FILE_KEYS) {
        const list = output[key];
        if (!Array.isArray(list)) continue;
        for (const file of list)
          if (file && typeof file === "object" && typeof (file as SavedFile).filename === "string")
            files.push({ nodeId, file: file as SavedFile });
      }
    }
    return Promise.all(
      files.map(async ({ nodeId, file }) => {
        const query = new URLSearchParams({
          filename: file.filename,
          subfolder: file.subfolder ?? "",
          type: file.type ?? "output",
        });
        const response = await this.call("GET", `/view?${query}`, undefined, signal, FILE_TIMEOUT_MS);
        if (!response.ok) {
          await response.body?.cancel();
          throw this.lost(`answered HTTP ${response.status} for the file ${file.filename}`);
        }
        const bytes = new Uint8Array(await response.arrayBuffer());
        const ext = file.filename.split(".").pop()?.toLowerCase() ?? "";
        const header = response.headers.get("content-type")?.split(";")[0]?.trim();
        const mediaType = MEDIA_TYPES[ext] ?? header ?? "application/octet-stream";
        return { nodeId, filename: file.filename, bytes, mediaType };
      }),
    );
  }

  /** The websocket's address for a client id. */
  socketUrl(clientId: string): string {
    return `${this.url.replace(/^http/, "ws")}/ws?clientId=${encodeURIComponent(clientId)}`;
  }

  socketHeaders(): Record<string, string> {
    return this.headers;
  }

  lost(what: string): ComfyServerLost {
    return new ComfyServerLost(`${this.url} ${what}`);
  }

  private async json(
    method: string,
    path: string,
    body: string | FormData | undefined,
    signal?: AbortSignal,
    timeoutMs = CALL_TIMEOUT_MS,
  ): Promise<unknown> {
    const response = await this.call(method, path, body, signal, timeoutMs);
    const text = await response.text().catch((error: unknown) => {
      throw this.lost(`broke off its answer (${reason(error)})`);
    });
    if (!response.ok) throw this.lost(`answered HTTP ${response.status} to ${method} ${path.split("?")[0]}`);
    const value = parse(text);
    if (value === undefined) throw this.lost(`answered ${method} ${path.split("?")[0]} with something not JSON`);
    return value;
  }

  /** One request to the server, with its headers and a time limit; a network failure is `ComfyServerLost`. */
  async call(
    method: string,
    path: string,
    body?: string | FormData,
    signal?: AbortSignal,
    timeoutMs = CALL_TIMEOUT_MS,
  ): Promise<Response> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await fetch(`${this.url}${path}`, {
        method,
        headers: {
          ...this.headers,
          ...(typeof body === "string" ? { "content-type": "application/json" } : {}),
        },
        body,
        redirect: "manual",
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw this.lost(
        timeout.aborted ? `did not answer within ${timeoutMs / 1000} s` : `could not be reached (${reason(error)})`,
      );
    }
  }
}

interface HistoryEntry {
  outputs?: Record<string, Record<string, unknown>>;
  status?: { status_str?: string; completed?: boolean; messages?: Array<[string, Record<string, unknown>]> };
}

/** A finished entry that says it failed: its error's node and message. */
function failureOf(entry: HistoryEntry): ComfyExecutionFailed | undefined {
  if (entry.status?.status_str !== "error") return undefined;
  const error = entry.status.messages?.find(([event]) => event === "execution_error")?.[1];
  return new ComfyExecutionFailed(
    error ? `${String(error.node_type)}: ${String(error.exception_message).trim()}` : "the prompt failed",
  );
}

/** A 400 from `POST /prompt` as one line: the error's message and each node's errors. */
function refusal(text: string): ComfyPromptRefused {
  const body = parse(text) as
    | {
        error?: { type?: string; message?: string; details?: string } | string;
        node_errors?: Record<
          string,
          { class_type?: string; errors?: Array<{ type?: string; message?: string; details?: string }> }
        >;
      }
    | undefined;
  const error = typeof body?.error === "string" ? { message: body.error } : body?.error;
  const nodes = Object.entries(body?.node_errors ?? {}).map(
    ([id, node]) =>
      `node ${id} (${node.class_type ?? "?"}): ${(node.errors ?? [])
        .map((e) => [e.message, e.details].filter(Boolean).join(": "))
        .join("; ")}`,
  );
  const kinds = Object.values(body?.node_errors ?? {}).flatMap((n) => (n.errors ?? []).map((e) => e.type));
  const missingNode =
    (typeof body?.error === "object" &&
      (body.error.type === "missing_node_type" || /does not exist|not found/i.test(body.error.message ?? ""))) ||
    false;
  const lacking = missingNode || kinds.includes("value_not_in_list");
  const head = [error?.message, typeof body?.error === "object" ? body.error.details : undefined]
    .filter(Boolean)
    .join(": ");
  return new ComfyPromptRefused([head || "the prompt was refused", ...nodes].join(" — "), lacking);
}

/** Follows one prompt's events on the server's websocket. */
class Follower {
  private socket: WebSocket | undefined;
  private promptId: string | undefined;
  private started = false;
  private done = false;
  private samplersDone = 0;
  private currentSampler: string | undefined;
  private reported = 0;
  private settle: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  private early: Array<Record<string, unknown>> = [];
  private lastHeard = Date.now();

  private readonly client: ComfyServerClient;
  private readonly clientId: string;
  private readonly samplers: number;
  private readonly options: RunOptions;

  constructor(client: ComfyServerClient, clientId: string, samplers: number, options: RunOptions) {
    this.client = client;
    this.clientId = clientId;
    this.samplers = samplers;
    this.options = options;
  }

  /** Opens the socket and waits for it to be open. */
  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.client.socketUrl(this.clientId), {
        headers: this.client.socketHeaders(),
        handshakeTimeout: CALL_TIMEOUT_MS,
      });
      this.socket = socket;
      let open = false;
      socket.on("open", () => {
        open = true;
        resolve();
      });
      socket.on("error", (error) => {
        if (!open) reject(this.client.lost(`refused its websocket (${reason(error)})`));
      });
      socket.on("unexpected-response", (_request, response) => {
        reject(this.client.lost(`answered HTTP ${response.statusCode} to its websocket`));
        response.resume();
      });
      socket.on("message", (data, binary) => {
        this.lastHeard = Date.now();
        if (binary) return; // previews
        const message = parse(String(data)) as Record<string, unknown> | undefined;
        if (message) this.onMessage(message);
      });
      socket.on("close", () => {
        if (open) void this.onDropped();
      });
    });
  }

  /** Resolves when the prompt has finished, rejects on its failure, the server's loss or an abort. */
  follow(promptId: string): Promise<void> {
    this.promptId = promptId;
    const { signal } = this.options;
    return new Promise<void>((resolve, reject) => {
      const watchdog = setInterval(() => {
        if (Date.now() - this.lastHeard > SILENCE_MS) void this.askServer();
      }, SILENCE_MS / 3);
      watchdog.unref();
      const onAbort = () => {
        void this.client.cancel(promptId);
        this.finish(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.settle = {
        resolve: () => {
          clearInterval(watchdog);
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: (error) => {
          clearInterval(watchdog);
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      for (const message of this.early.splice(0)) this.onMessage(message);
      if (signal.aborted) onAbort();
    });
  }

  close() {
    this.done = true;
    this.socket?.removeAllListeners("close");
    this.socket?.terminate();
  }

  private onMessage(message: Record<string, unknown>) {
    const data = (message.data ?? {}) as Record<string, unknown>;
    if (this.promptId === undefined || !this.settle) {
      // Events may come before POST /prompt has answered: kept until the prompt's id is known.
      if (typeof data.prompt_id === "string") this.early.push(message);
      return;
    }
    if (data.prompt_id !== this.promptId) return;
    switch (message.type) {
      case "execution_start":
        this.start();
        break;
      case "executing":
        this.start();
        if (data.node === null) this.finish();
        break;
      case "progress": {
        this.start();
        const node = String(data.node ?? "");
        if (this.currentSampler !== undefined && node !== this.currentSampler) this.samplersDone += 1;
        this.currentSampler = node;
        const value = Number(data.value);
        const max = Number(data.max);
        if (max > 0) {
          const within = Math.min(1, Math.max(0, value / max));
          const share = Math.min(this.samplers, this.samplersDone + within) / this.samplers;
          this.report({ fraction: 0.02 + 0.95 * share, node, value, max });
        }
        break;
      }
      case "execution_success":
        this.finish();
        break;
      case "execution_error":
        this.finish(
          new ComfyExecutionFailed(`${String(data.node_type)}: ${String(data.exception_message ?? "").trim()}`),
        );
        break;
      case "execution_interrupted":
        this.finish(
          this.options.signal.aborted
            ? this.options.signal.reason
            : new ComfyExecutionFailed(`the prompt was interrupted on ${this.client.url}`),
        );
        break;
    }
  }

  private start() {
    if (this.started) return;
    this.started = true;
    this.options.onStarted?.();
  }

  private report(progress: RunProgress) {
    if (progress.fraction <= this.reported) return;
    this.reported = progress.fraction;
    this.options.onProgress?.(progress);
  }

  private finish(error?: unknown) {
    if (this.done) return;
    this.done = true;
    if (error === undefined) this.settle?.resolve();
    else this.settle?.reject(error);
  }

  /** The socket dropped: the server decides, over REST, whether the prompt ended, still runs, or the server is gone. */
  private async onDropped(attempt = 1): Promise<void> {
    if (this.done) return;
    const gone = await this.askServer();
    if (gone || this.done) return;
    if (attempt > RECONNECTS) return this.finish(this.client.lost("keeps dropping its websocket"));
    try {
      await this.connect();
    } catch {
      await pause(1000, this.options.signal).catch(() => undefined);
      return this.onDropped(attempt + 1);
    }
  }

  /** Reads the prompt's fate over REST; true when that settled it (ended, failed, gone, or the server lost). */
  private async askServer(): Promise<boolean> {
    if (this.done || !this.promptId) return this.done;
    this.lastHeard = Date.now();
    try {
      const entry = await this.client.history(this.promptId);
      if (entry) {
        this.finish(failureOf(entry));
        return true;
      }
      const queue = await this.client.queueState();
      if (!queue.ids.includes(this.promptId)) {
        this.finish(this.client.lost("no longer has the prompt"));
        return true;
      }
      return false;
    } catch (error) {
      this.finish(error instanceof ComfyServerLost ? error : this.client.lost(reason(error)));
      return true;
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
