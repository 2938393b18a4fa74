import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

// Media and HTTP helpers shared by the generation-provider fakes (OpenAI Images, Replicate, fal).

/** A small PNG: a diagonal gradient whose two colours are derived from `text`, so different prompts look different. */
export async function fakePng(text: string, width: number, height: number): Promise<Buffer> {
  const d = createHash("sha256").update(text).digest();
  const raw = Buffer.alloc(width * height * 3);
  const span = Math.max(1, width + height - 2);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const t = (x + y) / span;
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) raw[i + c] = Math.round(d[c]! + (d[c + 3]! - d[c]!) * t);
    }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * A cut-out as background removers return it: a PNG with an alpha channel, the subject (an ellipse filling the middle)
 * opaque and everything around it fully transparent.
 */
export async function fakeCutout(text: string, width: number, height: number): Promise<Buffer> {
  const { data } = await sharp(await fakePng(text, width, height))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const dx = (x + 0.5 - width / 2) / (width * 0.35);
      const dy = (y + 0.5 - height / 2) / (height * 0.4);
      if (dx * dx + dy * dy > 1) data[(y * width + x) * 4 + 3] = 0;
    }
  return sharp(data, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

/** The pixel size of an image sent inline as a data URL, or undefined when the value is not one. */
export async function sizeOfDataUrl(value: unknown): Promise<[number, number] | undefined> {
  const match = typeof value === "string" ? /^data:image\/[\w.+-]+;base64,(.*)$/s.exec(value) : null;
  if (!match) return undefined;
  try {
    const { width, height } = await sharp(Buffer.from(match[1]!, "base64")).metadata();
    return width && height ? [width, height] : undefined;
  } catch {
    return undefined;
  }
}

/** What an image model made from an input image is this size: an upscaler's, the input's times its factor. */
export function scaledSize([width, height]: [number, number], factor: number): [number, number] {
  const f = Number.isFinite(factor) && factor > 0 ? factor : 1;
  return [Math.min(2048, Math.round(width * f)), Math.min(2048, Math.round(height * f))];
}

/** The `required` inputs of a model's input schema (an OpenAPI object, `$ref`s followed), or undefined. */
export function requiredInputs(input: unknown, schemas: Record<string, unknown> | undefined): string[] | undefined {
  let schema = input as { $ref?: string; required?: unknown } | undefined;
  for (let i = 0; i < 4 && typeof schema?.$ref === "string"; i++)
    schema = schemas?.[schema.$ref.split("/").pop()!] as typeof schema;
  return Array.isArray(schema?.required)
    ? schema.required.filter((r): r is string => typeof r === "string")
    : undefined;
}

/** Fake pictures are 1/16 of the size asked for (a 1024x1024 request gets 64x64), at least 8 px a side. */
export function fakeDimensions(width: number, height: number): [number, number] {
  return [Math.max(8, Math.round(width / 16)), Math.max(8, Math.round(height / 16))];
}

/** Dimensions for an aspect ratio like "16:9", about 64x64 in area. */
export function dimensionsForAspect(aspect: unknown): [number, number] {
  const match = typeof aspect === "string" ? /^(\d+):(\d+)$/.exec(aspect) : null;
  const ratio = match ? Number(match[1]) / Number(match[2]) : 1;
  return [Math.round(64 * Math.sqrt(ratio)), Math.round(64 / Math.sqrt(ratio))];
}

/**
 * A real MP4 (H.264, 32x32, 8 frames at 8 fps, 1 s), encoded once with an H.264 encoder and kept here so the fakes
 * need no encoder.
 */
export const FAKE_MP4: Buffer = Buffer.from(
  "AAAAGGZ0eXBtcDQyAAAAAG1wNDJpc29tAAAAiGZyZWUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" +
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" +
    "ATxtZGF0AAAAYWW4EVyfGTk/8UAAnVVVVVVWtVDwAFDI/TTTTL29vb/+X/qqqq1WqqqqMBiAhKaaabe3t7fiXyl/qqqqqqqqqqxINCEBpNNN" +
    "Nvb29v//l+qqqqqrVVqoIAYimmmmm3t7e3wAAAA7YeEVgg/C+KADigDigDigDEaIAEXELEQsQdBMQdBMeevf/C+KAOKADigDigDG4gARcQsR" +
    "CxB0ExB0ExAAAAAQYeIVgg/DWtV+9/+GvWL97wAAABNh4xWCD4gOa1R/73/xAc1qj/3vAAAAFWHkFYIPwvrWtZN+9/8QF9a1rJv3vAAAABNh" +
    "5RWCD4g8u/e/rr4X1rWs373gAAAAGGHmFYIBKvwUhhUcAPBAJX/hAOX1kb/e8AAAABVh5xWCDwyEARa6OHhj8L61rUu/e8AAAAKCbW9vdgAA" +
    "AGxtdmhkAAAAAOcpzL/nKcy/AAFfkAABX5AAAQAAAQAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAABAAAAAAAAA" +
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAABhpb2RzAAAAABCAgIAHAE////9//wAAAfZ0cmFrAAAAXHRraGQAAAAB5ynMv+cpzL8AAAAB" +
    "AAAAAAABX5AAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAABAAAAAACAAAAAgAAAAAAGSbWRpYQAAACBt" +
    "ZGhkAAAAAOcpzL/nKcy/AAFfkAABX5BVxAAAAAAAIWhkbHIAAAAAAAAAAHZpZGUAAAAAAAAAAAAAAAAAAAABSW1pbmYAAAAUdm1oZAAAAAEA" +
    "AAAAAAAAAAAAACRkaW5mAAAAHGRyZWYAAAAAAAAAAQAAAAx1cmwgAAAAAQAAAQlzdGJsAAAAhXN0c2QAAAAAAAAAAQAAAHVhdmMxAAAAAAAA" +
    "AAEAAAAAAAAAAAAAAAAAAAAAACAAIABIAAAASAAAAAAAAAABDkpWVC9BVkMgQ29kaW5nAAAAAAAAAAAAAAAAAAAAAAAAGP//AAAAH2F2Y0MB" +
    "QgAK/+EAB2dCAAqmiWQBAAVozgJcgAAAABhzdHRzAAAAAAAAAAEAAAAIAAAr8gAAADRzdHN6AAAAAAAAAAAAAAAIAAAAZQAAAD8AAAAUAAAA" +
    "FwAAABkAAAAXAAAAHAAAABkAAAAcc3RzYwAAAAAAAAABAAAAAQAAAAgAAAABAAAAFHN0Y28AAAAAAAAAAQAAAKgAAACIZnJlZQAAAAAAAAAA" +
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" +
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  "base64",
);

export interface RecordedRequest {
  method: string;
  path: string;
  /** The parsed body, with data URLs and uploaded files shortened to `data:<type>;base64,<N bytes>`. */
  body?: unknown;
  /** Request headers the contract gives meaning to (Replicate's Prefer, fal's forwarded host). */
  headers?: Record<string, string>;
}

/** Replaces data URLs (input images) with their media type and decoded size, recursively. */
export function summarize(value: unknown): unknown {
  if (typeof value === "string") {
    const match = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(value);
    if (!match) return value;
    const bytes = match[2] ? Buffer.from(match[3]!, "base64").length : decodeURIComponent(match[3]!).length;
    return `data:${match[1]};base64,<${bytes} bytes>`;
  }
  if (Array.isArray(value)) return value.map(summarize);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, summarize(v)]));
  return value;
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Waits, or stops waiting when the client hangs up; true while the client is still there. */
export function hold(ms: number, res: ServerResponse): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(!res.destroyed), ms);
    res.once("close", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Generated files served from the fake's own `/files/...`, as providers serve outputs from their CDNs. */
export class FileStore {
  private readonly files = new Map<string, { body: Buffer; type: string }>();

  put(path: string, body: Buffer, type: string): void {
    this.files.set(path, { body, type });
  }

  get(path: string): { body: Buffer; type: string } | undefined {
    return this.files.get(path);
  }
}

/** Starts a local server on a free port and returns its origin and a close that also drops held connections. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(`fake failed: ${error.message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const VIDEO_MODELS = /video|kling|minimax|hailuo|wan-|veo|seedance|luma|ray-|hunyuan|ltx/i;
/** Upscalers: their output is the input image times the factor they were asked for (`scale`, 4 by default). */
const UPSCALE_MODELS = /upscal|esrgan|swinir/i;
/** Background removers: their output is a PNG with an alpha channel. */
const CUTOUT_MODELS = /remove-bg|rembg|background-remov|birefnet/i;
/** Models whose output is one URI rather than a list (Replicate's `Output` is `{type: string, format: uri}`). */
const SINGLE_OUTPUT_MODELS = /fill|esrgan|upscal|remove-bg|rembg|background-remov/i;

type Status = "starting" | "processing" | "succeeded" | "failed" | "canceled";

interface Prediction {
  id: string;
  model: string;
  version: string;
  input: unknown;
  status: Status;
  /** Where the prediction ends up once it has run. */
  outcome: { status: "succeeded" | "failed"; output: string[] | string | null; error: string | null };
  polls: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface FakeReplicate {
  /** The fake's origin. */
  url: string;
  /** Base URL of the API, for REPLICATE_BASE_URL. */
  apiUrl: string;
  requests: RecordedRequest[];
  predictions: Map<string, Prediction>;
  /** The next N create-prediction requests fail with `failStatus` and Replicate's problem-details body. */
  failNext: number;
  /** The probability (0 to 1) that any create-prediction request fails that way. */
  failRate: number;
  failStatus: number;
  /** How long a create-prediction request takes to answer, in milliseconds. */
  delayMs: number;
  /** Predictions succeed without output. */
  malformed: boolean;
  /** Output file URLs answer 404, as expired replicate.delivery files do. */
  expireOutputs: boolean;
  /** Predictions fail the way Replicate reports a safety-checker refusal. */
  reject: boolean;
  /** Whether `Prefer: wait` gets the finished prediction (as when the model is fast) or a starting one to poll. */
  syncWait: boolean;
  /** Polls (GET /v1/predictions/{id}) a prediction takes to finish: starting → processing → … → succeeded. */
  pollsToFinish: number;
  /** Models whose output is one video URL instead of a list of image URLs. */
  videoModels: RegExp;
  /** Models that make one image from the input image, as one URL rather than a list. */
  singleOutputModels: RegExp;
  close(): Promise<void>;
}

/**
 * A local Replicate: predictions for official models (`/v1/models/{owner}/{name}/predictions`) and versions
 * (`/v1/predictions`), `Prefer: wait`, polling through `urls.get` with the starting → processing → succeeded
 * lifecycle, cancel, output files (PNG images, an MP4 for video models) served from `/files/...`, the
 * authenticated account (`GET /v1/account`), and models (`GET /v1/models/{owner}/{name}`, with their latest version's
 * OpenAPI schema) read from `tests/fakes/schemas/replicate/<owner>__<name>.json`, a 404 for any other. Any `Bearer`
 * (or legacy `Token`) credential is accepted unless `token` names the one to accept.
 */
export async function startFakeReplicate(options: { token?: string } = {}): Promise<FakeReplicate> {
  const files = new FileStore();

  const view = (p: Prediction) => {
    const done = p.status === "succeeded" || p.status === "failed" || p.status === "canceled";
    return {
      id: p.id,
      model: p.model,
      version: p.version,
      input: p.input,
      logs: p.status === "starting" ? "" : "Running prediction...\n",
      output: p.status === "succeeded" ? p.outcome.output : null,
      data_removed: false,
      error: p.status === "failed" ? p.outcome.error : null,
      status: p.status,
      source: "api",
      created_at: p.createdAt,
      started_at: p.startedAt,
      completed_at: p.completedAt,
      urls: {
        cancel: `${fake.apiUrl}/predictions/${p.id}/cancel`,
        get: `${fake.apiUrl}/predictions/${p.id}`,
        web: `https://replicate.com/p/${p.id}`,
      },
      metrics: done ? { predict_time: 0.42, total_time: 0.5 } : {},
    };
  };

  const settle = (p: Prediction, status: Status) => {
    const now = new Date().toISOString();
    p.startedAt ??= now;
    p.status = status;
    if (status !== "processing") p.completedAt = now;
  };

  const run = async (id: string, model: string, input: Record<string, unknown>): Promise<Prediction["outcome"]> => {
    if (fake.reject)
      return {
        status: "failed",
        output: null,
        error: "NSFW content detected. Try running it again, or try a different prompt.",
      };
    if (fake.malformed) return { status: "succeeded", output: null, error: null };
    if (fake.videoModels.test(model) || input.duration != null) {
      files.put(`/files/${id}/output.mp4`, FAKE_MP4, "video/mp4");
      return { status: "succeeded", output: `${fake.url}/files/${id}/output.mp4`, error: null };
    }
    // A model working on an input image answers at its size (an upscaler's times the factor), else at the ratio's.
    const inputSize = (await sizeOfDataUrl(input.image)) ?? (await sizeOfDataUrl(input.input_image));
    const [width, height] = !inputSize
      ? dimensionsForAspect(input.aspect_ratio)
      : UPSCALE_MODELS.test(model)
        ? scaledSize(inputSize, Number(input.scale ?? 4))
        : inputSize;
    const text = `${String(input.prompt ?? model)}#${String(input.seed ?? 0)}`;
    if (fake.singleOutputModels.test(model)) {
      const path = `/files/${id}/out.png`;
      files.put(
        path,
        CUTOUT_MODELS.test(model) ? await fakeCutout(text, width, height) : await fakePng(text, width, height),
        "image/png",
      );
      return { status: "succeeded", output: `${fake.url}${path}`, error: null };
    }
    const count = Math.min(4, Math.max(1, Number(input.num_outputs ?? 1)));
    const output: string[] = [];
    for (let i = 0; i < count; i++) {
      const path = `/files/${id}/out-${i}.png`;
      files.put(path, await fakePng(`${String(input.prompt)}#${String(input.seed ?? i)}`, width, height), "image/png");
      output.push(`${fake.url}${path}`);
    }
    return { status: "succeeded", output, error: null };
  };

  const problem = (res: ServerResponse, status: number, title: string, detail: string) => {
    res.writeHead(status, { "Content-Type": "application/problem+json" });
    res.end(JSON.stringify({ title, detail, status }));
  };

  const fake: FakeReplicate = {
    url: "",
    apiUrl: "",
    requests: [],
    predictions: new Map(),
    failNext: 0,
    failRate: 0,
    failStatus: 500,
    delayMs: 0,
    malformed: false,
    expireOutputs: false,
    reject: false,
    syncWait: true,
    pollsToFinish: 2,
    videoModels: VIDEO_MODELS,
    singleOutputModels: SINGLE_OUTPUT_MODELS,
    close: async () => undefined,
  };

  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const raw = await readBody(req);
    if (req.method === "GET" && url.pathname.startsWith("/files/")) {
      const file = files.get(url.pathname);
      if (!file || fake.expireOutputs) {
        res.writeHead(404, { "Content-Type": "text/plain" });
        return void res.end("Not Found");
      }
      res.writeHead(200, { "Content-Type": file.type, "Content-Length": String(file.body.length) });
      return void res.end(file.body);
    }

    const credential = /^(?:Bearer|Token) (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!credential || (options.token !== undefined && credential !== options.token))
      return problem(res, 401, "Unauthenticated", "You did not pass a valid authentication token");
    let body: Record<string, unknown> | undefined;
    try {
      body = raw.length ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : undefined;
    } catch {
      return problem(res, 400, "Bad request", "The request body is not valid JSON");
    }
    const prefer = typeof req.headers.prefer === "string" ? req.headers.prefer : undefined;
    fake.requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      ...(body && { body: summarize(body) }),
      ...(prefer && { headers: { prefer } }),
    });

    if (req.method === "GET" && url.pathname === "/v1/account")
      return sendJson(res, 200, { type: "user", username: "atelier-tests", name: "Atelier Tests", github_url: null });

    const modelRead = /^\/v1\/models\/([\w.-]+)\/([\w.-]+)$/.exec(url.pathname);
    if (req.method === "GET" && modelRead) {
      const model = await readModelFixture(`${modelRead[1]}__${modelRead[2]}`);
      return model
        ? sendJson(res, 200, model)
        : problem(res, 404, "Not found", "The requested resource could not be found");
    }

    const official = /^\/v1\/models\/([\w.-]+\/[\w.-]+)\/predictions$/.exec(url.pathname);
    if (req.method === "POST" && (official || url.pathname === "/v1/predictions")) {
      if (!(await hold(fake.delayMs, res))) return;
      if (fake.failNext > 0 || Math.random() < fake.failRate) {
        fake.failNext = Math.max(0, fake.failNext - 1);
        return problem(res, fake.failStatus, "Internal Server Error", "Something went wrong on our end");
      }
      const input = body?.input as Record<string, unknown> | undefined;
      const version = official ? "hidden" : String(body?.version ?? "");
      if (!official && !/^[0-9a-f]{64}$/.test(version))
        return problem(res, 422, "Invalid version or not permitted", "The specified version does not exist");
      // A model of the fixtures is held to its own schema's required inputs; any other needs a prompt.
      const known = official ? await modelFixture(official[1]!) : await versionFixture(version);
      const required = known ? (requiredOf(known) ?? []) : ["prompt"];
      const missing = required.find((name) => input?.[name] === undefined || input[name] === "");
      if (!input || missing) return problem(res, 422, "Input validation failed", `- input: ${missing} is required`);
      const id = randomBytes(13).toString("hex").slice(0, 26);
      const model = official?.[1] ?? (known ? `${known.owner}/${known.name}` : `version/${version.slice(0, 8)}`);
      const p: Prediction = {
        id,
        model,
        version,
        input: summarize(input),
        status: "starting",
        outcome: await run(id, model, input),
        polls: 0,
        createdAt: new Date().toISOString(),
        startedAt: null,
        completedAt: null,
      };
      fake.predictions.set(id, p);
      if (prefer?.startsWith("wait") && fake.syncWait) settle(p, p.outcome.status);
      return sendJson(res, 201, view(p));
    }

    const one = /^\/v1\/predictions\/(\w+)(\/cancel)?$/.exec(url.pathname);
    const p = one ? fake.predictions.get(one[1]!) : undefined;
    if (one && !p) return problem(res, 404, "Not found", "The requested resource could not be found");
    if (p && req.method === "GET" && !one?.[2]) {
      if (p.status === "starting" || p.status === "processing") {
        p.polls++;
        settle(p, p.polls >= fake.pollsToFinish ? p.outcome.status : "processing");
      }
      return sendJson(res, 200, view(p));
    }
    if (p && req.method === "POST" && one?.[2]) {
      if (p.status === "starting" || p.status === "processing") settle(p, "canceled");
      return sendJson(res, 200, view(p));
    }
    problem(res, 404, "Not found", "The requested resource could not be found");
  });
  fake.url = server.url;
  fake.apiUrl = `${server.url}/v1`;
  fake.close = server.close;
  return fake;
}

/** A model of `tests/fakes/schemas/replicate/` (`owner__name`), or undefined when there is none. */
async function readModelFixture(name: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(new URL(`./schemas/replicate/${name}.json`, import.meta.url), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

interface ModelFixture {
  owner: string;
  name: string;
  latest_version?: { id?: string; openapi_schema?: { components?: { schemas?: Record<string, unknown> } } };
}

/** The fixture of an official model run by name (`owner/name`). */
async function modelFixture(model: string): Promise<ModelFixture | undefined> {
  return (await readModelFixture(model.replace("/", "__"))) as ModelFixture | undefined;
}

/** The fixture whose latest version is this one, as Replicate runs a community model by its version id. */
async function versionFixture(version: string): Promise<ModelFixture | undefined> {
  const dir = new URL("./schemas/replicate/", import.meta.url);
  for (const file of await readdir(dir)) {
    if (!file.endsWith(".json")) continue;
    const model = (await readModelFixture(file.slice(0, -".json".length))) as ModelFixture | undefined;
    if (model?.latest_version?.id === version) return model;
  }
  return undefined;
}

function requiredOf(model: ModelFixture): string[] | undefined {
  const schemas = model.latest_version?.openapi_schema?.components?.schemas;
  return requiredInputs(schemas?.Input, schemas);
}
