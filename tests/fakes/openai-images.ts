import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import {
  FileStore,
  fakeDimensions,
  fakePng,
  hold,
  listen,
  readBody,
  sendJson,
  summarize,
  type RecordedRequest,
} from "#tests/fakes/replicate.ts";
import { defaultModerationRules, moderationAnswer, type ModerationRules } from "#tests/fakes/openai-moderation.ts";

const SIZES: Record<"gpt" | "dall-e-3" | "dall-e-2", string[]> = {
  gpt: ["auto", "1024x1024", "1536x1024", "1024x1536"],
  "dall-e-3": ["1024x1024", "1792x1024", "1024x1792"],
  "dall-e-2": ["256x256", "512x512", "1024x1024"],
};

/** Model families by what the API accepts; anything else is treated like an OpenAI-compatible server's model. */
function familyOf(model: string): "gpt" | "dall-e-3" | "dall-e-2" | "other" {
  if (model.startsWith("gpt-image-") || model.startsWith("chatgpt-image-")) return "gpt";
  if (model.startsWith("dall-e-3")) return "dall-e-3";
  if (model.startsWith("dall-e-2")) return "dall-e-2";
  return "other";
}

export interface FakeOpenAI {
  /** The fake's origin. */
  url: string;
  /** Base URL of the API, for OPENAI_BASE_URL (or OPENAI_COMPATIBLE_BASE_URL). */
  apiUrl: string;
  requests: RecordedRequest[];
  /** The next N generation or edit requests fail with `failStatus` and OpenAI's error body for it. */
  failNext: number;
  /** The probability (0 to 1) that any generation or edit request fails that way. */
  failRate: number;
  failStatus: number;
  /** How long a generation or edit request takes to answer, in milliseconds. */
  delayMs: number;
  /** Answers 200 without `data`. */
  malformed: boolean;
  /** Image URLs (dall-e and other models answering with `url`) answer 403, as expired ones do. */
  expireOutputs: boolean;
  /** Refuses prompts as the safety system does: 400 `moderation_blocked` (GPT image) / `content_policy_violation`. */
  reject: boolean;
  /** What `POST /v1/moderations` flags. */
  moderation: ModerationRules;
  close(): Promise<void>;
}

/**
 * A local OpenAI Images API: `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart or JSON),
 * checking sizes, `n` and `response_format` per model the way the API does. GPT image models always answer with
 * base64; dall-e models and unknown ones (standing in for an OpenAI-compatible server) with a URL under `/files/`
 * unless asked for `b64_json`. `GET /v1/models` lists the image models;
 * `POST /v1/moderations` answers as the moderation endpoint (see openai-moderation.ts). Any `Bearer` key is accepted unless `apiKey`
 * names the one to accept.
 */
export async function startFakeOpenAI(options: { apiKey?: string } = {}): Promise<FakeOpenAI> {
  const files = new FileStore();

  const error = (
    res: ServerResponse,
    status: number,
    e: { message: string; type: string; param?: string | null; code?: string | null },
  ) =>
    sendJson(
      res,
      status,
      { error: { message: e.message, type: e.type, param: e.param ?? null, code: e.code ?? null } },
      { "x-request-id": requestId() },
    );

  const fake: FakeOpenAI = {
    url: "",
    apiUrl: "",
    requests: [],
    failNext: 0,
    failRate: 0,
    failStatus: 500,
    delayMs: 0,
    malformed: false,
    expireOutputs: false,
    reject: false,
    moderation: defaultModerationRules(),
    close: async () => undefined,
  };

  const generate = async (res: ServerResponse, fields: Record<string, unknown>, edit: boolean) => {
    const model = typeof fields.model === "string" ? fields.model : "dall-e-2";
    const family = familyOf(model);
    const prompt = fields.prompt;
    const n = fields.n === undefined ? 1 : Number(fields.n);
    const size = typeof fields.size === "string" ? fields.size : family === "gpt" ? "auto" : "1024x1024";
    const responseFormat = fields.response_format;
    const invalid = (message: string, param: string, code = "invalid_value") =>
      error(res, 400, { message, type: "invalid_request_error", param, code });

    if (typeof prompt !== "string" || !prompt)
      return invalid("Missing required parameter: 'prompt'.", "prompt", "missing_required_parameter");
    if (edit && family === "dall-e-3")
      return invalid("Invalid value: 'dall-e-3'. Value must be one of the image edit models.", "model");
    if (edit && !fields.image && !fields.images)
      return invalid("Missing required parameter: 'image'.", "image", "missing_required_parameter");
    if (!Number.isInteger(n) || n < 1 || n > 10 || (family === "dall-e-3" && n !== 1))
      return invalid(
        family === "dall-e-3" ? "You must provide n=1 for this model." : "Invalid 'n': must be 1 to 10.",
        "n",
      );
    if (family !== "other" && !SIZES[family].includes(size))
      return invalid(`Invalid value: '${size}'. Supported values are: ${SIZES[family].join(", ")}.`, "size");
    if (family === "gpt" && responseFormat !== undefined)
      return invalid("Unknown parameter: 'response_format'.", "response_format", "unknown_parameter");
    if (fake.reject)
      return error(
        res,
        400,
        family === "gpt"
          ? {
              message: "Your request was rejected by the safety system. If you believe this is an error, contact us.",
              type: "image_generation_user_error",
              code: "moderation_blocked",
            }
          : {
              message:
                "Your request was rejected as a result of our safety system. Your prompt may contain text that is " +
                "not allowed by our safety system.",
              type: "invalid_request_error",
              code: "content_policy_violation",
            },
      );
    if (fake.malformed) return sendJson(res, 200, { created: now() }, { "x-request-id": requestId() });

    const [w, h] = size === "auto" ? [1024, 1024] : size.split("x").map(Number);
    const [width, height] = fakeDimensions(w ?? 1024, h ?? 1024);
    const asUrl = family === "gpt" ? false : responseFormat !== "b64_json";
    const data = [];
    for (let i = 0; i < n; i++) {
      const png = await fakePng(`${prompt}#${i}`, width, height);
      if (asUrl) {
        const path = `/files/img-${randomBytes(8).toString("hex")}.png`;
        files.put(path, png, "image/png");
        data.push({ url: `${fake.url}${path}`, ...(family === "dall-e-3" && { revised_prompt: prompt }) });
      } else data.push({ b64_json: png.toString("base64"), ...(family === "dall-e-3" && { revised_prompt: prompt }) });
    }
    const gptFields = family === "gpt" && {
      background: "opaque",
      output_format: "png",
      quality: "medium",
      size: size === "auto" ? "1024x1024" : size,
      usage: {
        input_tokens: 50,
        output_tokens: 1056 * n,
        total_tokens: 50 + 1056 * n,
        input_tokens_details: { text_tokens: 50, image_tokens: 0 },
      },
    };
    sendJson(res, 200, { created: now(), data, ...gptFields }, { "x-request-id": requestId() });
  };

  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const raw = await readBody(req);
    if (req.method === "GET" && url.pathname.startsWith("/files/")) {
      const file = files.get(url.pathname);
      if (!file || fake.expireOutputs) {
        res.writeHead(403, { "Content-Type": "application/xml" });
        return void res.end(
          '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code>' +
            "<Message>Signed expiry time has expired.</Message></Error>",
        );
      }
      res.writeHead(200, { "Content-Type": file.type, "Content-Length": String(file.body.length) });
      return void res.end(file.body);
    }
    const auth = req.headers.authorization ?? "";
    if (options.apiKey ? auth !== `Bearer ${options.apiKey}` : !/^Bearer \S+$/.test(auth))
      return error(res, 401, {
        message:
          "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        code: "invalid_api_key",
      });

    const route = `${req.method} ${url.pathname}`;
    if (route === "GET /v1/models") {
      fake.requests.push({ method: "GET", path: url.pathname });
      return sendJson(res, 200, { object: "list", data: MODELS }, { "x-request-id": requestId() });
    }
    if (route === "POST /v1/moderations") {
      let fields: Record<string, unknown>;
      try {
        fields = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
      } catch {
        return error(res, 400, {
          message: "We could not parse the JSON body of your request.",
          type: "invalid_request_error",
        });
      }
      fake.requests.push({ method: "POST", path: url.pathname, body: summarize(fields) });
      const answer = moderationAnswer(fields, fake.moderation);
      return sendJson(res, answer.status, answer.body, { "x-request-id": requestId() });
    }
    if (route !== "POST /v1/images/generations" && route !== "POST /v1/images/edits")
      return error(res, 404, { message: `Invalid URL (${route})`, type: "invalid_request_error" });
    const edit = route === "POST /v1/images/edits";
    const contentType = req.headers["content-type"] ?? "";
    let fields: Record<string, unknown>;
    try {
      fields = contentType.startsWith("multipart/form-data")
        ? await formFields(raw, contentType)
        : (JSON.parse(raw.toString("utf8")) as Record<string, unknown>);
    } catch {
      return error(res, 400, {
        message: "We could not parse the JSON body of your request.",
        type: "invalid_request_error",
      });
    }
    fake.requests.push({ method: req.method ?? "POST", path: url.pathname, body: summarize(fields) });
    if (!(await hold(fake.delayMs, res))) return;
    if (fake.failNext > 0 || Math.random() < fake.failRate) {
      fake.failNext = Math.max(0, fake.failNext - 1);
      return error(
        res,
        fake.failStatus,
        fake.failStatus === 429
          ? {
              message: "Rate limit reached for images per minute. Please try again in 12s.",
              type: "requests",
              code: "rate_limit_exceeded",
            }
          : fake.failStatus === 503
            ? { message: "The engine is currently overloaded, please try again later.", type: "server_error" }
            : {
                message: "The server had an error while processing your request. Sorry about that!",
                type: "server_error",
              },
      );
    }
    await generate(res, fields, edit);
  });
  fake.url = server.url;
  fake.apiUrl = `${server.url}/v1`;
  fake.close = server.close;
  return fake;
}

/** Multipart fields as strings, uploaded files as data URLs (which the request log shortens to type and size). */
async function formFields(raw: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(raw), { headers: { "content-type": contentType } }).formData();
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form) {
    const key = name.replace(/\[\]$/, "");
    const item =
      typeof value === "string"
        ? value
        : `data:${value.type};base64,${Buffer.from(await value.arrayBuffer()).toString("base64")}`;
    const existing = fields[key];
    fields[key] = existing === undefined ? item : Array.isArray(existing) ? [...existing, item] : [existing, item];
  }
  return fields;
}

const now = () => Math.floor(Date.now() / 1000);

/** What `GET /v1/models` lists, in OpenAI's model object shape. */
const MODELS = ["gpt-image-1", "dall-e-3", "dall-e-2"].map((id) => ({
  id,
  object: "model",
  created: 1_698_785_189,
  owned_by: "system",
}));
const requestId = () => `req_${randomBytes(16).toString("hex")}`;
