import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  FAKE_MP4,
  FileStore,
  dimensionsForAspect,
  fakePng,
  hold,
  listen,
  readBody,
  sendJson,
  summarize,
  type RecordedRequest,
} from "#tests/fakes/replicate.ts";

/** Google's canonical error status for an HTTP status, as its error bodies name it. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/** Veo 3's clip lengths and frame shapes. */
const VEO_SECONDS = [4, 6, 8];
const VEO_ASPECT_RATIOS = ["16:9", "9:16"];

interface Operation {
  name: string;
  model: string;
  polls: number;
  /** The finished operation's `response` or `error`. */
  outcome: { response: unknown } | { error: { code: number; message: string; status: string } };
}

export interface FakeGoogle {
  /** The fake's origin. */
  url: string;
  /** Base URL of the API (`…/v1beta`), for GOOGLE_BASE_URL. */
  apiUrl: string;
  /** Every API call (file downloads aside), with the key it carried in `headers["x-goog-api-key"]`. */
  requests: RecordedRequest[];
  /** File downloads, with the key they carried in the `key` query parameter. */
  downloads: string[];
  operations: Map<string, Operation>;
  /** The next N generate/predict requests fail with `failStatus` and Google's error body. */
  failNext: number;
  /** The probability (0 to 1) that any generate/predict request fails that way. */
  failRate: number;
  failStatus: number;
  /** How long a generate/predict request takes to answer, in milliseconds. */
  delayMs: number;
  /** Answers carry no image (a text part instead), or finished operations no video. */
  malformed: boolean;
  /** Video files answer 404, as expired generated files do. */
  expireOutputs: boolean;
  /**
   * Refusals as Google's safety filters give them: `image`, a candidate ending in `IMAGE_SAFETY`; `prompt`, the
   * prompt blocked (`promptFeedback.blockReason`); `true` is `image` for images, and videos filtered out
   * (`raiMediaFilteredReasons`).
   */
  reject: boolean | "image" | "prompt";
  /** Status polls an operation takes to finish. */
  pollsToFinish: number;
  close(): Promise<void>;
}

const googleError = (status: number, message: string, details?: unknown[]) => ({
  error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN", ...(details && { details }) },
});

/**
 * A local Gemini API (`/v1beta`): `models/{model}:generateContent` answering Gemini image models with inline image
 * parts (the aspect ratio from `generationConfig.imageConfig`, input images read from `inlineData` parts) and other
 * models with a text part; `models/{model}:predictLongRunning` for Veo, its operation at
 * `GET /v1beta/models/{model}/operations/{id}` (not done, then done with `generateVideoResponse.generatedSamples`),
 * and the video at `files/{id}:download?alt=media`, on the fake's own host, as Google answers with its API's host.
 * The key is read from `x-goog-api-key` (or `?key=`): a wrong one gets Google's 400 `API_KEY_INVALID`, none its
 * 403. Any key is accepted unless `apiKey` names the one to accept.
 */
export async function startFakeGoogle(options: { apiKey?: string } = {}): Promise<FakeGoogle> {
  const files = new FileStore();

  const fake: FakeGoogle = {
    url: "",
    apiUrl: "",
    requests: [],
    downloads: [],
    operations: new Map(),
    failNext: 0,
    failRate: 0,
    failStatus: 500,
    delayMs: 0,
    malformed: false,
    expireOutputs: false,
    reject: false,
    pollsToFinish: 1,
    close: async () => undefined,
  };

  /** Answers with the configured failure when one is due; true when it did. */
  const failed = (res: ServerResponse): boolean => {
    if (fake.failNext <= 0 && Math.random() >= fake.failRate) return false;
    fake.failNext = Math.max(0, fake.failNext - 1);
    const message =
      fake.failStatus === 429
        ? "Resource has been exhausted (e.g. check quota)."
        : fake.failStatus === 503
          ? "The model is overloaded. Please try again later."
          : "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting";
    sendJson(res, fake.failStatus, googleError(fake.failStatus, message));
    return true;
  };

  type Part = { text?: string; inlineData?: { mimeType?: string; data?: string } };
  type GenerateContent = {
    contents?: { role?: string; parts?: Part[] }[];
    generationConfig?: { responseModalities?: string[]; imageConfig?: { aspectRatio?: string }; seed?: number };
  };

  const generateContent = async (res: ServerResponse, model: string, body: GenerateContent) => {
    const parts = body.contents?.flatMap((c) => c.parts ?? []) ?? [];
    const prompt = parts
      .map((p) => p.text ?? "")
      .join(" ")
      .trim();
    if (!prompt && !parts.some((p) => p.inlineData))
      return sendJson(res, 400, googleError(400, "* GenerateContentRequest.contents: contents is not specified"));
    const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 };
    if (fake.reject === "prompt")
      return sendJson(res, 200, {
        promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
        usageMetadata,
        modelVersion: model,
      });
    const wantsImage = body.generationConfig?.responseModalities?.some((m) => m.toUpperCase() === "IMAGE") ?? false;
    if (wantsImage && (fake.reject === true || fake.reject === "image"))
      return sendJson(res, 200, {
        candidates: [{ finishReason: "IMAGE_SAFETY", index: 0, finishMessage: "Unable to show the generated image." }],
        usageMetadata,
        modelVersion: model,
      });
    if (!wantsImage || fake.malformed)
      return sendJson(res, 200, {
        candidates: [
          { content: { role: "model", parts: [{ text: `Here is ${prompt}.` }] }, finishReason: "STOP", index: 0 },
        ],
        usageMetadata,
        modelVersion: model,
      });
    const [width, height] = dimensionsForAspect(body.generationConfig?.imageConfig?.aspectRatio ?? "1:1");
    const png = await fakePng(`${prompt}#${body.generationConfig?.seed ?? 42}`, width, height);
    return sendJson(res, 200, {
      candidates: [
        {
          content: { role: "model", parts: [{ inlineData: { mimeType: "image/png", data: png.toString("base64") } }] },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: model,
      responseId: randomUUID(),
    });
  };

  type Predict = {
    instances?: { prompt?: string }[];
    parameters?: { aspectRatio?: string; durationSeconds?: unknown; sampleCount?: number };
  };

  const predictLongRunning = (res: ServerResponse, model: string, body: Predict) => {
    const instance = body.instances?.[0];
    if (!instance?.prompt) return sendJson(res, 400, googleError(400, "A prompt is required."));
    const { aspectRatio, durationSeconds } = body.parameters ?? {};
    if (aspectRatio !== undefined && !VEO_ASPECT_RATIOS.includes(aspectRatio))
      return sendJson(res, 400, googleError(400, `Aspect ratio ${aspectRatio} is not supported.`));
    if (durationSeconds !== undefined && !VEO_SECONDS.includes(Number(durationSeconds)))
      return sendJson(
        res,
        400,
        googleError(
          400,
          `The number value for \`durationSeconds\` is out of bound. Please provide a value between 4 and 8, inclusive.`,
        ),
      );
    const id = randomUUID().replace(/-/g, "").slice(0, 12);
    const name = `models/${model}/operations/${id}`;
    let outcome: Operation["outcome"];
    if (fake.reject === true)
      outcome = {
        response: {
          "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
          generateVideoResponse: {
            raiMediaFilteredCount: 1,
            raiMediaFilteredReasons: [
              "We encountered an issue with the prompt. Your prompt may have violated our safety guidelines.",
            ],
          },
        },
      };
    else if (fake.malformed)
      outcome = {
        response: {
          "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
          generateVideoResponse: {},
        },
      };
    else {
      const count = Math.min(4, Math.max(1, Number(body.parameters?.sampleCount ?? 1)));
      const samples = [];
      for (let i = 0; i < count; i++) {
        const file = `${id}${i}`;
        files.put(`/v1beta/files/${file}:download`, FAKE_MP4, "video/mp4");
        samples.push({ video: { uri: `${fake.apiUrl}/files/${file}:download?alt=media` } });
      }
      outcome = {
        response: {
          "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
          generateVideoResponse: { generatedSamples: samples },
        },
      };
    }
    fake.operations.set(name, { name, model, polls: 0, outcome });
    return sendJson(res, 200, { name });
  };

  const server = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const raw = await readBody(req);
    const header = req.headers["x-goog-api-key"];
    const key = typeof header === "string" ? header : (url.searchParams.get("key") ?? undefined);
    const path = decodeURIComponent(url.pathname);

    if (req.method === "GET" && /^\/v1beta\/files\/[\w-]+:download$/.test(path)) {
      fake.downloads.push(`${path}?key=${key ?? ""}`);
      const file = files.get(path);
      if (!key) return sendJson(res, 403, googleError(403, "Method doesn't allow unregistered callers."));
      if (!file || fake.expireOutputs) return sendJson(res, 404, googleError(404, "Requested entity was not found."));
      res.writeHead(200, { "Content-Type": file.type, "Content-Length": String(file.body.length) });
      return void res.end(file.body);
    }

    let body: unknown;
    try {
      body = raw.length ? JSON.parse(raw.toString("utf8")) : undefined;
    } catch {
      return sendJson(res, 400, googleError(400, "Invalid JSON payload received."));
    }
    fake.requests.push({
      method: req.method ?? "GET",
      path,
      ...(body !== undefined && { body: summarizeParts(body) }),
      headers: { "x-goog-api-key": key ?? "" },
    });
    if (!key)
      return sendJson(
        res,
        403,
        googleError(
          403,
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        ),
      );
    if (options.apiKey !== undefined && key !== options.apiKey)
      return sendJson(
        res,
        400,
        googleError(400, "API key not valid. Please pass a valid API key.", [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "API_KEY_INVALID",
            domain: "googleapis.com",
            metadata: { service: "generativelanguage.googleapis.com" },
          },
        ]),
      );

    const operation = /^\/v1beta\/(models\/[\w.-]+\/operations\/[\w-]+)$/.exec(path);
    if (operation) {
      if (req.method !== "GET") return sendJson(res, 404, googleError(404, "Not found."));
      const op = fake.operations.get(operation[1]!);
      if (!op) return sendJson(res, 404, googleError(404, "Requested entity was not found."));
      op.polls++;
      if (op.polls < fake.pollsToFinish) return sendJson(res, 200, { name: op.name });
      return sendJson(res, 200, { name: op.name, done: true, ...op.outcome });
    }

    const call = /^\/v1beta\/models\/([\w.-]+):(generateContent|predictLongRunning)$/.exec(path);
    if (!call || req.method !== "POST")
      return sendJson(res, 404, googleError(404, `${path} is not found for API version v1beta.`));
    if (!(await hold(fake.delayMs, res))) return;
    if (failed(res)) return;
    const [, model, method] = call;
    if (method === "generateContent") return generateContent(res, model!, (body ?? {}) as GenerateContent);
    return predictLongRunning(res, model!, (body ?? {}) as Predict);
  });
  fake.url = server.url;
  fake.apiUrl = `${server.url}/v1beta`;
  fake.close = server.close;
  return fake;
}

/** Inline image data shortened to `data:<type>;base64,<N bytes>`, as the other fakes record input images. */
function summarizeParts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(summarizeParts);
  if (value && typeof value === "object") {
    const inline = (value as { inlineData?: { mimeType?: unknown; data?: unknown } }).inlineData;
    if (inline && typeof inline.data === "string" && typeof inline.mimeType === "string")
      return { ...value, inlineData: summarize(`data:${inline.mimeType};base64,${inline.data}`) };
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, summarizeParts(v)]));
  }
  return value;
}
