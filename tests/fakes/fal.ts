import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  FAKE_MP4,
  FileStore,
  dimensionsForAspect,
  fakeCutout,
  fakeDimensions,
  fakePng,
  hold,
  listen,
  readBody,
  requiredInputs,
  scaledSize,
  sendJson,
  sizeOfDataUrl,
  summarize,
  type RecordedRequest,
} from "#tests/fakes/replicate.ts";

const IMAGE_SIZES: Record<string, [number, number]> = {
  square_hd: [1024, 1024],
  square: [512, 512],
  landscape_4_3: [1024, 768],
  landscape_16_9: [1024, 576],
  portrait_4_3: [768, 1024],
  portrait_16_9: [576, 1024],
};

const VIDEO_MODELS = /video|kling|minimax|hailuo|wan|veo|seedance|luma|ltx|hunyuan|sora/i;
/** Endpoints that answer one `image` rather than a list of `images` (fal's upscalers and background removers). */
const SINGLE_IMAGE_MODELS = /upscal|esrgan|aura-sr|birefnet|rembg|background/i;
/** Upscalers: the input image times `upscale_factor` (or `scale`), 2 unless asked. */
const UPSCALE_MODELS = /upscal|esrgan|aura-sr/i;
/** Background removers: a PNG with an alpha channel. */
const CUTOUT_MODELS = /birefnet|rembg|background/i;

type QueueStatus = "IN_QUEUE" | "IN_PROGRESS" | "COMPLETED";

interface Outcome {
  status: number;
  body: unknown;
}

interface QueuedRequest {
  id: string;
  /** The endpoint as submitted, subpath included (`fal-ai/flux/dev`). */
  endpoint: string;
  /** `{owner}/{app}`, the part status and result URLs use. */
  app: string;
  outcome: Outcome;
  polls: number;
  canceled: boolean;
}

export interface FakeFal {
  /** The fake's origin, for FAL_BASE_URL: synchronous runs at `/{endpoint}`, the queue under `/queue/{endpoint}`. */
  url: string;
  requests: RecordedRequest[];
  queue: Map<string, QueuedRequest>;
  /** The next N runs (synchronous calls and queue submissions) fail with `failStatus`. */
  failNext: number;
  /** The probability (0 to 1) that any run or submission fails that way. */
  failRate: number;
  failStatus: number;
  /** How long a run or submission takes to answer, in milliseconds. */
  delayMs: number;
  /** Results lack the images or the video. */
  malformed: boolean;
  /** Output file URLs answer 403, as expired fal media URLs do. */
  expireOutputs: boolean;
  /** Runs end in fal's 422 with a `content_policy_violation` detail. */
  reject: boolean;
  /** Status or result polls a queued request takes to complete: IN_QUEUE → IN_PROGRESS → … → COMPLETED. */
  pollsToFinish: number;
  /** Endpoints whose result is `{ video }` instead of `{ images }`. */
  videoModels: RegExp;
  /** Endpoints whose result is `{ image }` instead of `{ images }`. */
  singleImageModels: RegExp;
  close(): Promise<void>;
}

/**
 * A local fal.ai: synchronous runs (`POST /{owner}/{app}[/{path}]`, as fal.run) and the queue under `/queue`
 * (submit, status, result, cancel, as queue.fal.run), with output files served from `/files/...`. Queue answers
 * carry status and result URLs on the public host the request was addressed to (X-Forwarded-Host/Proto when a
 * proxy in front says so, otherwise the fake's own `/queue`), using `{owner}/{app}` without the subpath, as fal does.
 * The Platform API is under `/api` (as api.fal.ai): the model search by id (`GET /api/v1/models?endpoint_id=…`, with
 * `expand=openapi-3.0` for each model's OpenAPI document), read from `tests/fakes/schemas/fal/<id with / as __>.json`
 * (one model object each, as in the answer's `models`), and the pricing read (`GET /api/v1/models/pricing`), from
 * `tests/fakes/schemas/fal/pricing.json` or a default per image or second. Like fal's Find mode, an unknown id is left
 * out of the answer (an empty `models` for a single one), not refused. Any `Key` credential is accepted unless `key`
 * names the one to accept; the model search, which fal serves without a key, refuses only a wrong one.
 */
export async function startFakeFal(options: { key?: string } = {}): Promise<FakeFal> {
  const files = new FileStore();

  const run = async (endpoint: string, input: Record<string, unknown>): Promise<Outcome> => {
    // An endpoint of the fixtures is held to its own schema's required inputs; any other needs a prompt, and an
    // image-to-image or edit endpoint an image.
    const required =
      (await requiredOf(endpoint)) ??
      (/image-to-image|\/edit|redux/.test(endpoint) ? ["prompt", "image_url"] : ["prompt"]);
    const missing = required.find((name) => input[name] === undefined || input[name] === "");
    if (missing)
      return { status: 422, body: { detail: [{ loc: ["body", missing], msg: "field required", type: "missing" }] } };
    if (fake.reject)
      return {
        status: 422,
        body: {
          detail: [
            {
              loc: ["body", "prompt"],
              msg: "The content could not be processed because it contained material flagged by a content checker.",
              type: "content_policy_violation",
            },
          ],
        },
      };
    const seed = typeof input.seed === "number" ? input.seed : 42;
    if (fake.malformed) return { status: 200, body: { seed, timings: { inference: 0.1 } } };
    const id = randomUUID();
    if (fake.videoModels.test(endpoint)) {
      files.put(`/files/${id}/output.mp4`, FAKE_MP4, "video/mp4");
      return {
        status: 200,
        body: {
          video: {
            url: `${fake.url}/files/${id}/output.mp4`,
            content_type: "video/mp4",
            file_name: "output.mp4",
            file_size: FAKE_MP4.length,
          },
          seed,
        },
      };
    }
    const size = input.image_size;
    // An edit, an upscale or a cut-out is the input image's size (an upscaler's times its factor).
    const inputSize =
      input.mask_url !== undefined || fake.singleImageModels.test(endpoint)
        ? await sizeOfDataUrl(input.image_url)
        : undefined;
    const [width, height] = inputSize
      ? UPSCALE_MODELS.test(endpoint)
        ? scaledSize(inputSize, Number(input.upscale_factor ?? input.scale ?? 2))
        : inputSize
      : typeof size === "string" && IMAGE_SIZES[size]
        ? fakeDimensions(...IMAGE_SIZES[size])
        : size && typeof size === "object"
          ? fakeDimensions(Number((size as { width: unknown }).width), Number((size as { height: unknown }).height))
          : dimensionsForAspect(input.aspect_ratio);
    if (fake.singleImageModels.test(endpoint)) {
      const path = `/files/${id}/image.png`;
      const text = `${String(input.prompt ?? endpoint)}#${seed}`;
      const png = CUTOUT_MODELS.test(endpoint)
        ? await fakeCutout(text, width, height)
        : await fakePng(text, width, height);
      files.put(path, png, "image/png");
      return {
        status: 200,
        body: {
          image: {
            url: `${fake.url}${path}`,
            width,
            height,
            content_type: "image/png",
            file_name: "image.png",
            file_size: png.length,
          },
          ...(UPSCALE_MODELS.test(endpoint) && { seed, timings: { inference: 0.42 } }),
        },
      };
    }
    const count = Math.min(4, Math.max(1, Number(input.num_images ?? 1)));
    const images = [];
    for (let i = 0; i < count; i++) {
      const path = `/files/${id}/image-${i}.png`;
      files.put(path, await fakePng(`${input.prompt}#${seed + i}`, width, height), "image/png");
      images.push({ url: `${fake.url}${path}`, width, height, content_type: "image/png" });
    }
    return {
      status: 200,
      body: {
        images,
        timings: { inference: 0.42 },
        seed,
        has_nsfw_concepts: images.map(() => false),
        prompt: input.prompt,
      },
    };
  };

  const fake: FakeFal = {
    url: "",
    requests: [],
    queue: new Map(),
    failNext: 0,
    failRate: 0,
    failStatus: 500,
    delayMs: 0,
    malformed: false,
    expireOutputs: false,
    reject: false,
    pollsToFinish: 2,
    videoModels: VIDEO_MODELS,
    singleImageModels: SINGLE_IMAGE_MODELS,
    close: async () => undefined,
  };

  const queueBase = (req: IncomingMessage) => {
    const host = req.headers["x-forwarded-host"];
    const proto = req.headers["x-forwarded-proto"] ?? "http";
    return typeof host === "string" ? `${String(proto)}://${host}` : `${fake.url}/queue`;
  };

  const stateOf = (q: QueuedRequest): QueueStatus =>
    q.canceled || q.polls >= fake.pollsToFinish ? "COMPLETED" : q.polls === 0 ? "IN_QUEUE" : "IN_PROGRESS";

  const statusView = (req: IncomingMessage, q: QueuedRequest, logs: boolean) => {
    const base = `${queueBase(req)}/${q.app}/requests/${q.id}`;
    const status = stateOf(q);
    return {
      status,
      request_id: q.id,
      response_url: base,
      status_url: `${base}/status`,
      cancel_url: `${base}/cancel`,
      ...(status === "IN_QUEUE" && { queue_position: 0 }),
      ...(logs && { logs: [] }),
      ...(status === "COMPLETED" && { metrics: { inference_time: 0.42 } }),
      ...(status === "COMPLETED" && q.outcome.status !== 200 && { error: "Invalid status code: " + q.outcome.status }),
    };
  };

  /** Answers with the configured failure when one is due; true when it did. */
  const failed = (res: ServerResponse): boolean => {
    if (fake.failNext <= 0 && Math.random() >= fake.failRate) return false;
    fake.failNext = Math.max(0, fake.failNext - 1);
    sendJson(res, fake.failStatus, { detail: "Internal server error" });
    return true;
  };

  const queue = async (req: IncomingMessage, res: ServerResponse, path: string, input: unknown) => {
    const poll = /^([\w.-]+\/[\w.-]+)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(path);
    if (!poll) {
      if (req.method !== "POST") return sendJson(res, 405, { detail: "Method Not Allowed" });
      if (!(await hold(fake.delayMs, res))) return;
      if (failed(res)) return;
      const endpoint = path;
      const app = endpoint.split("/").slice(0, 2).join("/");
      const q: QueuedRequest = {
        id: randomUUID(),
        endpoint,
        app,
        outcome: await run(endpoint, (input ?? {}) as Record<string, unknown>),
        polls: 0,
        canceled: false,
      };
      fake.queue.set(q.id, q);
      const { status: _, ...urls } = statusView(req, q, false);
      return sendJson(res, 200, { ...urls, status: "IN_QUEUE", queue_position: 0 });
    }
    const [, app, id, action] = poll;
    const q = fake.queue.get(id!);
    if (!q || q.app !== app) return sendJson(res, 404, { detail: "Request not found" });
    if (action === "/cancel") {
      if (req.method !== "PUT") return sendJson(res, 405, { detail: "Method Not Allowed" });
      if (stateOf(q) === "COMPLETED") return sendJson(res, 400, { status: "ALREADY_COMPLETED" });
      q.canceled = true;
      return sendJson(res, 202, { status: "CANCELLATION_REQUESTED" });
    }
    if (req.method !== "GET") return sendJson(res, 405, { detail: "Method Not Allowed" });
    if (stateOf(q) !== "COMPLETED") q.polls++;
    if (action === "/status") {
      const url = new URL(req.url ?? "/", "http://localhost");
      const view = statusView(req, q, url.searchParams.get("logs") === "1");
      return sendJson(res, view.status === "COMPLETED" ? 200 : 202, view);
    }
    if (stateOf(q) !== "COMPLETED") return sendJson(res, 400, { detail: "Request is still in progress" });
    if (q.canceled) return sendJson(res, 400, { detail: "Request was cancelled" });
    return sendJson(res, q.outcome.status, q.outcome.body);
  };

  const pricing = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method !== "GET") return sendJson(res, 405, { detail: "Method Not Allowed" });
    const ids = url.searchParams.getAll("endpoint_id").flatMap((id) => id.split(","));
    if (ids.length === 0)
      return sendJson(res, 422, {
        detail: [{ loc: ["query", "endpoint_id"], msg: "Field required", type: "missing" }],
      });
    const listed = (await readFixture("pricing")) as { prices?: { endpoint_id: string }[] } | undefined;
    const prices = ids.map(
      (id) =>
        listed?.prices?.find((p) => p.endpoint_id === id) ?? {
          endpoint_id: id,
          unit_price: fake.videoModels.test(id) ? 0.1 : 0.025,
          unit: fake.videoModels.test(id) ? "second" : "image",
          currency: "USD",
        },
    );
    sendJson(res, 200, { prices, next_cursor: null, has_more: false });
  };

  const models = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method !== "GET") return sendJson(res, 405, { detail: "Method Not Allowed" });
    const ids = url.searchParams.getAll("endpoint_id").flatMap((id) => id.split(","));
    const expand = url.searchParams.getAll("expand").flatMap((e) => e.split(","));
    const found = [];
    for (const id of ids) {
      const model = (await readFixture(id.replaceAll("/", "__"))) as Record<string, unknown> | undefined;
      if (!model) continue;
      const { openapi, ...rest } = model;
      found.push(expand.includes("openapi-3.0") ? { ...rest, openapi } : rest);
    }
    sendJson(res, 200, { models: found, next_cursor: null, has_more: false });
  };

  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const raw = await readBody(req);
    if (req.method === "GET" && url.pathname.startsWith("/files/")) {
      const file = files.get(url.pathname);
      if (!file || fake.expireOutputs) {
        res.writeHead(403, { "Content-Type": "text/plain" });
        return void res.end("Forbidden");
      }
      res.writeHead(200, { "Content-Type": file.type, "Content-Length": String(file.body.length) });
      return void res.end(file.body);
    }
    const credential = /^Key (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    const keyOptional = req.method === "GET" && url.pathname === "/api/v1/models";
    if ((!credential && !keyOptional) || (credential && options.key !== undefined && credential !== options.key))
      return sendJson(res, 401, { detail: "Authentication is required to access this application." });
    let input: unknown;
    try {
      input = raw.length ? JSON.parse(raw.toString("utf8")) : undefined;
    } catch {
      return sendJson(res, 422, { detail: [{ loc: ["body"], msg: "invalid JSON", type: "json_invalid" }] });
    }
    const forwarded = req.headers["x-forwarded-host"];
    fake.requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      ...(input !== undefined && { body: summarize(input) }),
      ...(typeof forwarded === "string" && { headers: { "x-forwarded-host": forwarded } }),
    });
    const path = url.pathname.replace(/^\/+/, "");
    if (path === "api/v1/models/pricing") return pricing(req, res, url);
    if (path === "api/v1/models") return models(req, res, url);
    if (path.startsWith("queue/")) return queue(req, res, path.slice("queue/".length), input);
    if (req.method !== "POST" || !/^[\w.-]+\/[\w.-]+/.test(path)) return sendJson(res, 404, { detail: "Not Found" });
    if (!(await hold(fake.delayMs, res))) return;
    if (failed(res)) return;
    const outcome = await run(path, (input ?? {}) as Record<string, unknown>);
    sendJson(res, outcome.status, outcome.body);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}

/** The required inputs of an endpoint of the fixtures (its POST body's schema), or undefined for any other. */
async function requiredOf(endpoint: string): Promise<string[] | undefined> {
  const model = (await readFixture(endpoint.replaceAll("/", "__"))) as
    { openapi?: { paths?: Record<string, unknown>; components?: { schemas?: Record<string, unknown> } } } | undefined;
  const post = (model?.openapi?.paths?.[`/${endpoint}`] as { post?: unknown } | undefined)?.post as
    { requestBody?: { content?: { "application/json"?: { schema?: unknown } } } } | undefined;
  const schema = post?.requestBody?.content?.["application/json"]?.schema;
  return schema ? requiredInputs(schema, model?.openapi?.components?.schemas) : undefined;
}

/** A fixture of `tests/fakes/schemas/fal/` by its file name (without `.json`), or undefined when there is none. */
async function readFixture(name: string): Promise<unknown> {
  if (!/^[\w.-]+$/.test(name)) return undefined;
  try {
    return JSON.parse(await readFile(new URL(`./schemas/fal/${name}.json`, import.meta.url), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
