import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import {
  BalanceSchema,
  CreateImageMultipartSchema,
  CreateImageSchema,
  CreateVideoMultipartSchema,
  CreateVideoSchema,
  ErrorSchema,
  GenerationListSchema,
  GenerationSchema,
  IdParam,
  LedgerQuery,
  LedgerSchema,
  ListGenerationsQuery,
  ModelSchema,
  QuoteSchema,
} from "./schemas.ts";

/*
 * The public API's operations as OpenAPI route definitions: what each takes and answers, and the errors it may
 * give. The sub-apps (`models.ts`, `generations.ts`, `credits.ts`) attach their middleware and handlers; the
 * OpenAPI document is made from these definitions alone.
 */

const errorDocument = (description: string) => ({
  content: { "application/json": { schema: ErrorSchema } },
  description,
});
const COMMON_ERRORS = {
  401: errorDocument(
    "No key, an unknown or deleted key (`invalid_api_key`), or a deactivated one (`api_key_inactive`).",
  ),
  429: errorDocument("Too many requests for this key or its account (`rate_limited`); wait `Retry-After` seconds."),
  503: errorDocument(
    "The server is starting, stopping or busy (`service_unavailable`): nothing was done; send the same request again after `Retry-After` seconds (a write with the same `Idempotency-Key`).",
  ),
} as const;
const WRITE_ERRORS = {
  ...COMMON_ERRORS,
  400: errorDocument(
    "Malformed request (`bad_request`), a field this operation or its tool does not take, named in `detail` (`unknown_field`), unknown model (`unknown_model`), refused image URL (`input_url_refused`) or webhook URL (`webhook_url_refused`).",
  ),
  402: errorDocument("Not enough available credits (`insufficient_credits`)."),
  403: errorDocument(
    "The account's plan does not include the model or the API (`plan_required`); the message names the plan that does.",
  ),
  409: errorDocument("A request with this `Idempotency-Key` is still running (`idempotency_in_flight`)."),
  413: errorDocument("Body or input image too large."),
  415: errorDocument("Not JSON or multipart (`unsupported_media_type`), or the file is not an image."),
  404: errorDocument("`variation_of` names no generation of yours (`not_found`)."),
  422: errorDocument(
    "Invalid options (`invalid_options`, `prompt_invalid`), a missing input image (`input_image_required`) or mask (`mask_required`), an image URL that could not be read (`input_url_failed`), an `Idempotency-Key` that is not 1 to 255 visible ASCII characters (`idempotency_key_invalid`), or one reused with another request (`idempotency_mismatch`).",
  ),
  429: errorDocument(
    "Too many requests for this key or its account (`rate_limited`; wait `Retry-After` seconds), or as many generations queued or running as the account's plan allows (`too_many_jobs`; send it again once one has ended).",
  ),
} as const;
const idempotencyHeader = z.object({
  "idempotency-key": z.string().optional().openapi({
    description:
      "Makes the request safe to retry: the same key with the same request returns the first answer (header `Idempotent-Replayed: true`) for 24 hours.",
    example: "order-1234-image-1",
  }),
});

const generationResponse = (description: string) => ({
  content: { "application/json": { schema: GenerationSchema } },
  description,
});

/** A request example of each tool, as the reference shows it (images by URL here; by upload in the guide). */
const PHOTO = "https://example.com/photo.png";
const IMAGE_EXAMPLES = {
  "text-to-image": { model: "demo-image", prompt: "A lighthouse at dusk, oil painting", aspect_ratio: "16:9" },
  "image-to-image": { model: "demo-image", prompt: "The same scene in watercolour", image_url: PHOTO, strength: 0.5 },
  inpaint: {
    tool: "inpaint",
    model: "demo-image",
    prompt: "A red sailing boat",
    image_url: PHOTO,
    mask_url: "https://example.com/mask.png",
  },
  outpaint: { tool: "outpaint", model: "demo-image", image_url: PHOTO, extend_to: "16:9" },
  upscale: { tool: "upscale", model: "demo-image", image_url: PHOTO, scale: 4 },
  "remove-background": { tool: "remove-background", model: "demo-image", image_url: PHOTO },
  variation: {
    model: "demo-image",
    prompt: "A lighthouse at dusk, oil painting",
    variation_of: "6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a",
  },
};
const VIDEO_EXAMPLES = {
  "text-to-video": { model: "demo-video", prompt: "Waves on a rocky shore", style: "documentary", duration: 5 },
  "image-to-video": {
    tool: "image-to-video",
    model: "demo-video",
    prompt: "The camera drifts towards the lighthouse",
    image_url: PHOTO,
    end_image_url: "https://example.com/last-frame.png",
  },
};
const examplesOf = (examples: Record<string, object>) =>
  Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { summary: name, value }]));

const route = <R extends RouteConfig>(r: R) => createRoute({ security: [{ bearer: [] }], ...r });

export const routes = {
  models: route({
    method: "get",
    path: "/models",
    tags: ["Models"],
    summary: "List models",
    description: "The models this server offers, with their prices in credits and the options each takes.",
    responses: {
      200: {
        content: {
          "application/json": { schema: z.object({ object: z.literal("list"), data: z.array(ModelSchema) }) },
        },
        description: "The models.",
      },
      ...COMMON_ERRORS,
    },
  }),
  createImage: route({
    method: "post",
    path: "/images",
    tags: ["Generations"],
    summary: "Create an image generation",
    description:
      "Any image tool (`tool`): text to image, image to image, inpaint, outpaint, upscale or remove background. Images are given as files in `multipart/form-data` (fields `image`, `mask`) or by https URL (`image_url`, `mask_url`). The cost is reserved at once and charged when the images are ready (returned if it fails). The generation runs in the background: poll it, or read it when you are notified.",
    request: {
      headers: idempotencyHeader,
      body: {
        // Each media type's validator runs only for its own Content-Type (with `required`, both would run).
        content: {
          "application/json": { schema: CreateImageSchema, examples: examplesOf(IMAGE_EXAMPLES) },
          "multipart/form-data": { schema: CreateImageMultipartSchema },
        },
      },
    },
    responses: { 201: generationResponse("Created and queued."), ...WRITE_ERRORS },
  }),
  createVideo: route({
    method: "post",
    path: "/videos",
    tags: ["Generations"],
    summary: "Create a video generation",
    description:
      "Text to video, or image to video from a start frame (and an optional last frame): files in `multipart/form-data` (fields `image`, `end_image`) or https URLs (`image_url`, `end_image_url`). Runs in the background like images.",
    request: {
      headers: idempotencyHeader,
      body: {
        content: {
          "application/json": { schema: CreateVideoSchema, examples: examplesOf(VIDEO_EXAMPLES) },
          "multipart/form-data": { schema: CreateVideoMultipartSchema },
        },
      },
    },
    responses: { 201: generationResponse("Created and queued."), ...WRITE_ERRORS },
  }),
  quoteImage: route({
    method: "post",
    path: "/images/quote",
    tags: ["Generations"],
    summary: "Price an image generation",
    description:
      "What `POST /images` with the same body would cost now, computed by the same code as the charge (the model's price formula with its tool, its settings and their defaults). Checks the request like creating it would, and starts, holds, fetches and stores nothing.",
    request: {
      body: {
        content: {
          "application/json": { schema: CreateImageSchema },
          "multipart/form-data": { schema: CreateImageMultipartSchema },
        },
      },
    },
    responses: {
      200: { content: { "application/json": { schema: QuoteSchema } }, description: "The price." },
      400: WRITE_ERRORS[400],
      415: WRITE_ERRORS[415],
      422: errorDocument(
        "Invalid options (`invalid_options`, `prompt_invalid`), or a missing input image (`input_image_required`) or mask (`mask_required`).",
      ),
      ...COMMON_ERRORS,
    },
  }),
  quoteVideo: route({
    method: "post",
    path: "/videos/quote",
    tags: ["Generations"],
    summary: "Price a video generation",
    description:
      "What `POST /videos` with the same body would cost now, computed by the same code as the charge. Starts, holds, fetches and stores nothing.",
    request: {
      body: {
        content: {
          "application/json": { schema: CreateVideoSchema },
          "multipart/form-data": { schema: CreateVideoMultipartSchema },
        },
      },
    },
    responses: {
      200: { content: { "application/json": { schema: QuoteSchema } }, description: "The price." },
      400: WRITE_ERRORS[400],
      415: WRITE_ERRORS[415],
      422: errorDocument(
        "Invalid options (`invalid_options`, `prompt_invalid`), or a missing input image (`input_image_required`) or mask (`mask_required`).",
      ),
      ...COMMON_ERRORS,
    },
  }),
  list: route({
    method: "get",
    path: "/generations",
    tags: ["Generations"],
    summary: "List generations",
    description: "Your generations, newest first, a page at a time (`next_cursor`).",
    request: { query: ListGenerationsQuery },
    responses: {
      200: { content: { "application/json": { schema: GenerationListSchema } }, description: "One page." },
      400: errorDocument("A query parameter this operation does not take (`unknown_field`)."),
      422: errorDocument("A filter or cursor is not valid (`invalid_options`)."),
      ...COMMON_ERRORS,
    },
  }),
  get: route({
    method: "get",
    path: "/generations/{id}",
    tags: ["Generations"],
    summary: "Get a generation",
    description: "Status, progress and estimated time left while it runs; outputs once it succeeded.",
    request: { params: IdParam },
    responses: {
      200: generationResponse("The generation."),
      404: errorDocument("No generation of yours has this id (`not_found`)."),
      ...COMMON_ERRORS,
    },
  }),
  cancel: route({
    method: "post",
    path: "/generations/{id}/cancel",
    tags: ["Generations"],
    summary: "Cancel a generation",
    description: "Stops a queued or running generation and returns its reserved credits. Canceling twice is fine.",
    request: { params: IdParam, headers: idempotencyHeader },
    responses: {
      200: generationResponse("Canceled."),
      404: errorDocument("No generation of yours has this id (`not_found`)."),
      409: errorDocument("It has already finished (`not_cancelable`), or the idempotency key is in use."),
      ...COMMON_ERRORS,
    },
  }),
  remove: route({
    method: "delete",
    path: "/generations/{id}",
    tags: ["Generations"],
    summary: "Delete a generation",
    description: "Deletes the generation and its files. A running one is canceled first (its credits returned).",
    request: { params: IdParam },
    responses: {
      204: { description: "Deleted." },
      404: errorDocument("No generation of yours has this id (`not_found`)."),
      ...COMMON_ERRORS,
    },
  }),
  balance: route({
    method: "get",
    path: "/credits",
    tags: ["Credits"],
    summary: "Get the credit balance",
    responses: {
      200: { content: { "application/json": { schema: BalanceSchema } }, description: "The balance." },
      ...COMMON_ERRORS,
    },
  }),
  ledger: route({
    method: "get",
    path: "/credits/ledger",
    tags: ["Credits"],
    summary: "List credit movements",
    description: "Every change of the balance, newest first: grants, purchases, holds, charges, releases, refunds.",
    request: { query: LedgerQuery },
    responses: {
      200: { content: { "application/json": { schema: LedgerSchema } }, description: "One page." },
      400: errorDocument("A query parameter this operation does not take (`unknown_field`)."),
      422: errorDocument("Invalid page (`invalid_options`)."),
      ...COMMON_ERRORS,
    },
  }),
};
