/**
 * The OpenAI-compatible API (`/v1`) in the OpenAPI document beside `/api/v1`: its operations under their own tag,
 * each path with its own server (the site's origin), since `/v1` is not under the document's `/api/v1`.
 */
export const OPENAI_TAG = "OpenAI-compatible API";

const str = (description: string, extra: object = {}) => ({ type: "string", description, ...extra });
const int = (description: string, extra: object = {}) => ({ type: "integer", description, ...extra });

/** OpenAI's error envelope. */
const errorBody = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["message", "type", "code", "param"],
      properties: {
        message: str("What went wrong, for a developer."),
        type: str("OpenAI's error type: `invalid_request_error`, `insufficient_quota`, `server_error`…"),
        code: { type: ["string", "null"], description: "A stable code: `model_not_found`, `insufficient_quota`…" },
        param: { type: ["string", "null"], description: "The request field the error is about." },
      },
    },
  },
};

const errors = {
  400: { description: "A field is wrong or asks what the model cannot do (`param` names it)." },
  401: { description: "The key is missing, wrong or switched off (`invalid_api_key`)." },
  404: { description: "No such model (`model_not_found`) or item." },
  429: {
    description:
      "Too many requests (`rate_limit_exceeded`, with `retry-after`), or not enough credits (`insufficient_quota`, with `x-should-retry: false`).",
  },
};
const withErrors = (responses: Record<string, object>) =>
  Object.fromEntries(
    Object.entries({ ...responses, ...errors }).map(([status, r]) => [
      status,
      status.startsWith("2") ? r : { ...r, content: { "application/json": { schema: errorBody } } },
    ]),
  );

const costHeader = {
  "x-atelier-credits-charged": { description: "What the request cost, in credits.", schema: { type: "integer" } },
};

const imageFields = {
  prompt: str("What to make.", { maxLength: 2000, example: "A lighthouse at dusk, oil painting" }),
  model: str("An image model's id from `GET /v1/models`; the first one offered when left out.", {
    example: "demo-image",
  }),
  n: int("How many images, up to the model's own limit.", { minimum: 1, maximum: 10, default: 1 }),
  size: str("`WIDTHxHEIGHT` or `auto`: the model's nearest aspect ratio is used.", { default: "auto" }),
  response_format: { type: "string", enum: ["url", "b64_json"], default: "url" },
  output_format: { type: "string", enum: ["png", "jpeg", "webp"], description: "Converted on the way." },
  output_compression: int("Quality of JPEG and WebP output.", { minimum: 0, maximum: 100 }),
  background: { type: "string", enum: ["auto", "opaque"], description: "`transparent` is refused." },
  quality: str(
    "The model's own `quality` setting, for a model that declares one (`auto`: its default); otherwise accepted and left.",
  ),
  negative_prompt: str("What to keep out, for models that take it."),
  seed: int("The same seed gives the same image, for models that take it.", { minimum: 0 }),
};

/** Said of every result: whether the offline demo made it (an illustration, not a model's work). */
const demoProperties = {
  demo: {
    type: "boolean",
    description:
      "Made by the offline demo model: an illustration drawn on this server from the prompt's words, not by an AI model.",
  },
  notice: {
    type: ["string", "null"],
    description: "For a demo result, a sentence saying so, with the address of the page on connecting a provider.",
  },
};

const imagesResponse = {
  type: "object",
  required: ["created", "data"],
  properties: {
    created: int("When the job was created (Unix seconds)."),
    data: {
      type: "array",
      items: {
        type: "object",
        properties: {
          url: str("A link that opens the image without a key for an hour."),
          b64_json: str("The image's bytes in base64."),
        },
      },
    },
    size: str("What was made, `WIDTHxHEIGHT`."),
    output_format: str("The images' format."),
    usage: { type: "object", properties: { credits: int("What the images cost.") } },
    atelier: { type: "object", description: "Atelier's details.", properties: demoProperties },
  },
};

const imageResponses = withErrors({
  200: { description: "The images.", headers: costHeader, content: { "application/json": { schema: imagesResponse } } },
  504: {
    description: "Not finished yet (`generation_pending`).",
    content: { "application/json": { schema: errorBody } },
  },
});

const video = {
  type: "object",
  required: ["id", "object", "status", "model", "progress", "created_at", "seconds", "size"],
  properties: {
    id: str("The video job's id (the generation's, in `/api/v1`)."),
    object: { const: "video" },
    model: str("The model's id."),
    status: { type: "string", enum: ["queued", "in_progress", "completed", "failed"] },
    progress: int("How far it is, 0 to 100.", { minimum: 0, maximum: 100 }),
    created_at: int("Unix seconds."),
    completed_at: { type: ["integer", "null"], description: "Unix seconds." },
    seconds: str("Its length."),
    size: str("`WIDTHxHEIGHT`."),
    prompt: str("What was asked."),
    error: {
      type: ["object", "null"],
      properties: { code: str("Why it failed."), message: str("What to tell a person.") },
    },
    atelier: { type: "object", description: "Atelier's details.", properties: demoProperties },
  },
};

const json = (schema: object) => ({ "application/json": { schema } });
/** A multipart request body. */
const form = (required: string[], properties: Record<string, object>) => ({
  required: true,
  content: { "multipart/form-data": { schema: { type: "object", required, properties } } },
});
/** A video's id in the examples (the reference's example generation's). */
const EXAMPLE_ID = "6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a";
const idParameter = { name: "id", in: "path", required: true, schema: { type: "string", example: EXAMPLE_ID } };
const at = (path: string, item: Record<string, object>, origin: string) => [
  path,
  {
    servers: [{ url: origin }],
    ...Object.fromEntries(
      Object.entries(item).map(([method, op]) => [method, { tags: [OPENAI_TAG], security: [{ bearer: [] }], ...op }]),
    ),
  },
];

/** The `/v1` paths, their tag and what it says. */
export function openaiDocument(origin: string) {
  const paths = Object.fromEntries([
    at(
      "/v1/models",
      {
        get: {
          operationId: "openaiListModels",
          summary: "List the models",
          description: "The image, video and chat models, in OpenAI's shape; prices and options under `atelier`.",
          responses: withErrors({ 200: { description: "The models.", content: json({ type: "object" }) } }),
        },
      },
      origin,
    ),
    at(
      "/v1/models/{id}",
      {
        get: {
          operationId: "openaiGetModel",
          summary: "Read a model",
          parameters: [{ ...idParameter, schema: { type: "string", example: "demo-image" } }],
          responses: withErrors({ 200: { description: "The model.", content: json({ type: "object" }) } }),
        },
      },
      origin,
    ),
    at(
      "/v1/chat/completions",
      {
        post: {
          operationId: "openaiChatCompletions",
          summary: "Answer with a chat model",
          description:
            "OpenAI's chat completions, whole or streamed (`stream: true`: `chat.completion.chunk` events, then `data: [DONE]`; with `stream_options.include_usage`, a last chunk with the usage). The last message must be the user's, or the results of the assistant's tool calls; a model that reads images reads its `image_url` parts, and one that calls tools may call the `tools` sent (the answer then ends with `finish_reason` `tool_calls`). The answer holds credits for its longest length and is charged for what it used.",
          requestBody: {
            required: true,
            content: json({
              type: "object",
              required: ["model", "messages"],
              properties: {
                model: str("A chat model's id.", { example: "prompt-helper" }),
                messages: {
                  type: "array",
                  items: { type: "object" },
                  minItems: 1,
                  maxItems: 200,
                  example: [{ role: "user", content: "A lighthouse at dusk" }],
                },
                stream: { type: "boolean", default: false },
                stream_options: { type: "object", properties: { include_usage: { type: "boolean" } } },
              },
            }),
          },
          responses: withErrors({
            200: {
              description: "The answer (`chat.completion`), or its stream (`text/event-stream`).",
              headers: costHeader,
              content: json({ type: "object" }),
            },
          }),
        },
      },
      origin,
    ),
    at(
      "/v1/images/generations",
      {
        post: {
          operationId: "openaiGenerateImages",
          summary: "Make images",
          description:
            "Waits for the images up to the server's limit; beyond it, `504` `generation_pending` with the job in `Location`, and the same request again waits on the same job.",
          requestBody: {
            required: true,
            content: json({ type: "object", required: ["prompt", "model"], properties: imageFields }),
          },
          responses: imageResponses,
        },
      },
      origin,
    ),
    at(
      "/v1/images/edits",
      {
        post: {
          operationId: "openaiEditImages",
          summary: "Make images from an image",
          description:
            "One image (`image` or `image[]`) and a prompt. With a `mask`, only the mask's fully transparent area is made anew (the `inpaint` tool, for a model that serves it); without one, the whole image changes. Waits as image generations do.",
          requestBody: form(["image", "prompt", "model"], {
            image: {
              type: "string",
              format: "binary",
              description: "PNG, JPEG or WebP.",
              example: "@photo.png",
            },
            mask: {
              type: "string",
              format: "binary",
              description:
                "A PNG of the image's size whose fully transparent pixels mark the area to edit; the rest is kept.",
            },
            ...imageFields,
            strength: { type: "number", minimum: 0, maximum: 1, description: "How far to move from it." },
          }),
          responses: imageResponses,
        },
      },
      origin,
    ),
    at(
      "/v1/videos",
      {
        post: {
          operationId: "openaiCreateVideo",
          summary: "Make a video",
          description:
            "Answers at once with the job `queued`; its cost is held until it is ready. With an `input_reference` image, the video starts from it (the `image-to-video` tool, for a model that serves it).",
          requestBody: form(["prompt", "model"], {
            prompt: str("What to film.", { maxLength: 2000, example: "Waves on a beach at dawn" }),
            model: str("A video model's id; the first one offered when left out.", { example: "demo-video" }),
            seconds: str("One of the model's lengths, such as `5` or `10`."),
            size: str("`WIDTHxHEIGHT`: the model's nearest aspect ratio is used."),
            style: str("The video's style, from the model's options."),
            input_reference: {
              type: "string",
              format: "binary",
              description: "An image file (PNG, JPEG or WebP): the video's first frame.",
            },
          }),
          responses: withErrors({ 200: { description: "The video job.", content: json(video) } }),
        },
        get: {
          operationId: "openaiListVideos",
          summary: "List the videos",
          parameters: [
            { name: "after", in: "query", schema: { type: "string" }, description: "The id after which to start." },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
            { name: "order", in: "query", schema: { type: "string", enum: ["asc", "desc"], default: "desc" } },
          ],
          responses: withErrors({
            200: {
              description: "A page of videos.",
              content: json({
                type: "object",
                properties: {
                  data: { type: "array", items: video },
                  first_id: { type: ["string", "null"] },
                  last_id: { type: ["string", "null"] },
                  has_more: { type: "boolean" },
                },
              }),
            },
          }),
        },
      },
      origin,
    ),
    at(
      "/v1/videos/{id}",
      {
        get: {
          operationId: "openaiGetVideo",
          summary: "Read a video job",
          parameters: [idParameter],
          responses: withErrors({ 200: { description: "The video job.", content: json(video) } }),
        },
        delete: {
          operationId: "openaiDeleteVideo",
          summary: "Delete a video",
          description: "A video still running is stopped and its held credits returned.",
          parameters: [idParameter],
          responses: withErrors({ 200: { description: "Deleted.", content: json({ type: "object" }) } }),
        },
      },
      origin,
    ),
    at(
      "/v1/videos/{id}/content",
      {
        get: {
          operationId: "openaiVideoContent",
          summary: "Download a video",
          parameters: [
            idParameter,
            {
              name: "variant",
              in: "query",
              schema: { type: "string", enum: ["video", "thumbnail"], default: "video" },
            },
          ],
          responses: withErrors({
            200: {
              description: "The video (MP4) or its thumbnail (WebP).",
              content: { "video/mp4": {}, "image/webp": {} },
            },
          }),
        },
      },
      origin,
    ),
  ]);
  return {
    tag: {
      name: OPENAI_TAG,
      description: `OpenAI's API for the official OpenAI SDKs and the tools built on them, at \`${origin}/v1\` (not under the base URL above), with the same keys, limits and credits. A retry the SDKs send after a lost answer (\`X-Stainless-Retry-Count\` above 0) is answered with the first attempt's answer; \`Idempotency-Key\` is honoured as above.`,
    },
    paths,
  };
}
