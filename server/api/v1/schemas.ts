import { z } from "@hono/zod-openapi";
import { GENERATION_TOOLS as TOOL_IDS } from "#common/tools.ts";
import {
  DEFAULT_STRENGTH,
  GENERATION_KINDS,
  GENERATION_STATUSES,
  GENERATION_TOOLS,
  IMAGE_ASPECT_RATIOS,
  MAX_IMAGE_COUNT,
  MAX_SEED,
  PROMPT_MAX,
  VIDEO_ASPECT_RATIOS,
  VIDEO_STYLES,
  VISIBILITIES,
  type GenerationTool,
} from "#common/generation.ts";
import { EXTEND_MAX_SIDE_PIXELS, toolsOfKind } from "#common/tools.ts";
import { CREDIT_ENTRY_KINDS } from "#server/db/schema/credits.ts";
import { WEBHOOK_EVENTS } from "#server/db/schema/webhooks.ts";

/** The public API's shapes: snake_case JSON, every field described, with examples for the reference. */

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ description: "Stable, machine-readable reason.", example: "insufficient_credits" }),
      message: z.string().openapi({
        description: "Human-readable message in the language of `Accept-Language` (English by default).",
        example: "Not enough credits. Please top up and try again.",
      }),
      request_id: z.string().openapi({
        description: "Quote it when asking for support; also in the `X-Request-Id` header.",
        example: "0b6a9c1e-7f3a-4c43-9a63-2f0c6b6f1d2e",
      }),
      detail: z.string().optional().openapi({
        description: "Which field or value was wrong, where that helps.",
        example: "count: at most 4",
      }),
    }),
  })
  .openapi("Error");

const price = z.object({
  unit: z.enum(["image", "video", "videoSecond"]).openapi({ description: "What `credits` is charged per." }),
  credits: z.number().openapi({ example: 1 }),
  multipliers: z
    .record(z.string(), z.record(z.string(), z.number()))
    .optional()
    .openapi({
      description:
        "Factors by setting and value (`resolution`, `duration`, `count`, `audio`, `aspectRatio` or one of the model's `parameters`); other values count once. The total is rounded up to whole credits.",
      example: { resolution: { "1080p": 2 } },
    }),
  minimum: z.number().int().optional().openapi({ description: "No request costs less.", example: 2 }),
});

/** A model's own settings, as a JSON Schema object (`parameters` of a model, `options` of a request). */
const advanced = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .optional()
  .openapi({
    description:
      "The model's own settings (its `parameters` in `GET /models`), by name; those left out take their default.",
    example: { guidance_scale: 3.5 },
  });
const resolution = z.string().min(1).max(40).optional().openapi({
  description: "One of the model's `resolutions`; without it, the model's first one (the price then counts that one).",
  example: "1080p",
});

export const ModelSchema = z
  .object({
    id: z.string().openapi({ example: "demo-image" }),
    name: z.string().openapi({ example: "Atelier Demo (offline)" }),
    kind: z.enum(GENERATION_KINDS),
    tools: z.array(z.enum(TOOL_IDS)),
    price,
    options: z.object({
      aspect_ratios: z.array(z.string()).openapi({ example: ["1:1", "16:9"] }),
      max_count: z.number().int().openapi({ example: 4 }),
      durations: z.array(z.number().int()).nullable().openapi({ example: null }),
      styles: z.array(z.enum(VIDEO_STYLES)).nullable().openapi({ example: null }),
      negative_prompt: z.boolean(),
      seed: z.boolean(),
      strength: z.boolean(),
      resolutions: z
        .array(z.string())
        .nullable()
        .openapi({ example: ["720p", "1080p"] }),
      audio: z.boolean().openapi({ description: "Whether it can add sound to a video (`audio: true`)." }),
    }),
    parameters: z.record(z.string(), z.unknown()).openapi({
      description:
        "The model's own settings as a JSON Schema object: what a request's `options` may hold, with types, limits, choices and defaults.",
      example: {
        type: "object",
        properties: {
          guidance_scale: { type: "number", title: "Guidance scale", minimum: 1, maximum: 20, default: 3.5 },
        },
        additionalProperties: false,
      },
    }),
    expected_seconds: z.number().openapi({ description: "Typical time to finish one request.", example: 2 }),
    offline: z.boolean().openapi({ description: "Runs on the server itself, without a provider." }),
  })
  .openapi("Model");

const media = z
  .object({
    id: z.uuid(),
    url: z.url().openapi({ example: "https://atelier.example/media/5f0c…e1.png" }),
    thumbnail_url: z.url().nullable(),
    mime_type: z.string().openapi({ example: "image/png" }),
    width: z.number().int().nullable().openapi({ example: 1024 }),
    height: z.number().int().nullable().openapi({ example: 1024 }),
    duration_ms: z.number().int().nullable().openapi({ example: null }),
    size_bytes: z.number().int().openapi({ example: 482113 }),
  })
  // Not a named component: a nullable reference would come out as allOf(Media, object|null), which null fails.
  .openapi({ description: "A media file, served by this server." });

export const GenerationSchema = z
  .object({
    id: z.uuid().openapi({ example: "6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a" }),
    object: z.literal("generation"),
    kind: z.enum(GENERATION_KINDS),
    tool: z.enum(GENERATION_TOOLS),
    model: z.string().openapi({ example: "demo-image" }),
    prompt: z.string().openapi({ example: "A lighthouse at dusk, oil painting" }),
    negative_prompt: z.string().nullable(),
    aspect_ratio: z.string().openapi({ example: "1:1" }),
    count: z.number().int().openapi({ example: 1 }),
    seed: z.number().int().nullable(),
    strength: z.number().nullable(),
    style: z.enum(VIDEO_STYLES).nullable(),
    duration: z.number().int().nullable(),
    resolution: z.string().nullable(),
    audio: z.boolean().nullable(),
    scale: z.number().int().nullable().openapi({ description: "`upscale`: how many times larger.", example: null }),
    extend: z
      .object({ top: z.number().int(), right: z.number().int(), bottom: z.number().int(), left: z.number().int() })
      .nullable()
      .openapi({ description: "`outpaint`: the pixels added on each side of the input image.", example: null }),
    options: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .nullable()
      .openapi({
        description: "The model's own settings it ran with, defaults included.",
        example: null,
      }),
    status: z.enum(GENERATION_STATUSES).openapi({ example: "queued" }),
    progress: z.number().int().min(0).max(100).openapi({ example: 0 }),
    eta_seconds: z.number().int().nullable().openapi({ description: "Estimated seconds left while running." }),
    credits_held: z.number().int().openapi({ description: "Credits reserved when it was created.", example: 1 }),
    credits_charged: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Credits charged once it ended (0 when it failed or was canceled)." }),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .openapi({ description: "Why it failed.", example: null }),
    visibility: z.enum(VISIBILITIES),
    webhook_url: z.url().nullable().openapi({
      description: "Where this generation is sent when it ends (from the request that created it).",
      example: null,
    }),
    outputs: z.array(media),
    input_image: media.nullable(),
    mask_image: media.nullable().openapi({ description: "`inpaint`: the mask it was given (white: what changed)." }),
    end_image: media.nullable().openapi({ description: "`image-to-video`: the last frame it was given." }),
    parent_id: z.uuid().nullable().openapi({
      description:
        "The generation this one was made from: the one whose result was its input image, or the one it varies (`variation_of`).",
      example: null,
    }),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    demo: z.boolean().openapi({
      description:
        "Made by the offline demo model: an illustration drawn on this server from the prompt's words, not by an AI model.",
      example: true,
    }),
    notice: z.string().nullable().openapi({
      description: "For a demo result, a sentence saying so, with the address of the page on connecting a provider.",
      example:
        "An illustration by the offline demo model: drawn on this server from the prompt's words, not by an AI model. Connect an AI provider for real images and videos: https://atelier.example/docs/configuration",
    }),
  })
  .openapi("Generation");

const webhookUrl = z.string().max(2048).optional().openapi({
  description:
    "An https URL on the public internet to which the generation is POSTed, signed, when it succeeds, fails or is canceled (see the webhooks of this document).",
  example: "https://example.com/atelier/webhook",
});

const prompt = z.string().max(PROMPT_MAX).optional().openapi({
  description:
    "What to make. Required by `text-to-image`, `image-to-image`, `inpaint`, `text-to-video` and `image-to-video`; optional for `outpaint` and `upscale`; `remove-background` takes none.",
  example: "A lighthouse at dusk, oil painting",
});
const seed = z.coerce.number().int().min(0).max(MAX_SEED).optional().openapi({ example: 42 });
const imageUrl = (description: string) =>
  z.url().max(2048).optional().openapi({ description, example: "https://example.com/photo.png" });
const variationOf = z.uuid().optional().openapi({
  description:
    "The id of one of your generations this request varies (the same request with a new seed): the new one is linked to it as its `parent_id`.",
  example: "6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a",
});
const side = z.number().int().min(0).max(EXTEND_MAX_SIDE_PIXELS).optional();
const extendSides = z.strictObject({ top: side, right: side, bottom: side, left: side }).openapi({
  description: `\`outpaint\`: pixels added on each side (0 to ${EXTEND_MAX_SIDE_PIXELS}), instead of \`extend_to\`.`,
  example: { left: 256, right: 256 },
});
const file = (description: string) => z.any().optional().openapi({ type: "string", format: "binary", description });

/** What each tool of a kind is, for the `tool` field's description. */
const toolNote = (kind: "image" | "video") =>
  kind === "image"
    ? "`text-to-image` (the default), `image-to-image` (the default with an input image), `inpaint` (change what a mask paints white), `outpaint` (extend the canvas), `upscale`, `remove-background`. See `GET /models` for the tools each model serves."
    : "`text-to-video` (the default), or `image-to-video` (the default with a start image). See `GET /models` for the tools each model serves.";

export const CreateImageSchema = z
  .strictObject({
    tool: z
      .enum(toolsOfKind("image") as [GenerationTool, ...GenerationTool[]])
      .optional()
      .openapi({
        description: toolNote("image"),
        example: "text-to-image",
      }),
    model: z.string().min(1).max(100).openapi({ example: "demo-image" }),
    prompt,
    negative_prompt: z.string().max(PROMPT_MAX).optional().openapi({ example: "text, watermark" }),
    aspect_ratio: z.enum(IMAGE_ASPECT_RATIOS).optional().openapi({ default: "1:1" }),
    count: z.coerce.number().int().min(1).max(MAX_IMAGE_COUNT).optional().openapi({ example: 1 }),
    seed,
    strength: z.coerce
      .number()
      .min(0)
      .max(1)
      .optional()
      .openapi({
        description: `Image to image: how far to move from the input (0 to 1, default ${DEFAULT_STRENGTH}).`,
        example: DEFAULT_STRENGTH,
      }),
    image_url: imageUrl("The input image, by its https URL (or send the file as `image` in a multipart request)."),
    mask_url: imageUrl(
      "`inpaint`: a PNG mask of the input image's size, white where the image changes and black where it stays (or the file as `mask`).",
    ),
    scale: z
      .union([z.literal(2), z.literal(4)])
      .optional()
      .openapi({ description: "`upscale`: how many times larger.", default: 2, example: 2 }),
    extend_to: z
      .enum(IMAGE_ASPECT_RATIOS)
      .optional()
      .openapi({ description: "`outpaint`: the canvas's new aspect ratio, the image centred in it.", example: "16:9" }),
    extend: extendSides.optional(),
    variation_of: variationOf,
    resolution,
    options: advanced,
    webhook_url: webhookUrl,
  })
  .openapi("CreateImage", {
    example: { model: "demo-image", prompt: "A lighthouse at dusk, oil painting" },
  });

/** Fields a multipart form sends as text (every form field is a string). */
const formJson = (description: string, example: string) =>
  z.string().max(20_000).optional().openapi({ description, example });

export const CreateImageMultipartSchema = CreateImageSchema.extend({
  options: formJson("The model's own settings as a JSON object in text.", '{"guidance_scale":3.5}'),
  scale: z.enum(["2", "4"]).optional().openapi({ description: "`upscale`: how many times larger.", default: "2" }),
  extend: formJson("`outpaint`: pixels added on each side, as a JSON object in text.", '{"left":256,"right":256}'),
  image: file("The input image file: PNG, JPEG or WebP."),
  mask: file("`inpaint`: the mask file, a PNG of the input image's size, white where the image changes."),
}).openapi("CreateImageMultipart");

export const CreateVideoSchema = z
  .strictObject({
    tool: z
      .enum(toolsOfKind("video") as [GenerationTool, ...GenerationTool[]])
      .optional()
      .openapi({
        description: toolNote("video"),
        example: "text-to-video",
      }),
    model: z.string().min(1).max(100).openapi({ example: "demo-video" }),
    prompt,
    style: z.enum(VIDEO_STYLES).optional().openapi({ default: "cinematic" }),
    duration: z
      .union([z.literal(5), z.literal(10)])
      .optional()
      .openapi({ default: 5 }),
    aspect_ratio: z.enum(VIDEO_ASPECT_RATIOS).optional().openapi({ default: "16:9" }),
    seed,
    resolution,
    audio: z.boolean().optional().openapi({ description: "Sound with the video, for a model with `audio`." }),
    image_url: imageUrl(
      "`image-to-video`: the start frame, by its https URL (or send the file as `image` in a multipart request).",
    ),
    end_image_url: imageUrl(
      "`image-to-video`: a last frame to end on, for models that take one (or the file as `end_image`).",
    ),
    variation_of: variationOf,
    options: advanced,
    webhook_url: webhookUrl,
  })
  .openapi("CreateVideo", {
    example: { model: "demo-video", prompt: "Waves on a rocky shore" },
  });

export const CreateVideoMultipartSchema = CreateVideoSchema.extend({
  options: formJson("The model's own settings as a JSON object in text.", '{"guidance_scale":3.5}'),
  duration: z.enum(["5", "10"]).optional().openapi({ default: "5" }),
  audio: z
    .enum(["true", "false"])
    .optional()
    .openapi({ description: "Sound with the video, for a model with `audio`." }),
  image: file("`image-to-video`: the start frame file: PNG, JPEG or WebP."),
  end_image: file("`image-to-video`: the last frame file, for models that take one."),
}).openapi("CreateVideoMultipart");

export const QuoteSchema = z
  .object({
    object: z.literal("quote"),
    model: z.string().openapi({ example: "demo-image" }),
    tool: z.enum(GENERATION_TOOLS),
    credits: z.number().int().openapi({
      description: "What creating it with the same body would hold now, and charge when it succeeds.",
      example: 2,
    }),
  })
  .openapi({ title: "Quote" });

export const ListGenerationsQuery = z.strictObject({
  kind: z.enum(GENERATION_KINDS).optional(),
  tool: z.enum(GENERATION_TOOLS).optional(),
  status: z.enum(GENERATION_STATUSES).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  cursor: z.string().max(200).optional().openapi({ description: "`next_cursor` of the previous page." }),
  limit: z.coerce.number().int().min(1).max(100).default(24),
});

export const GenerationListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(GenerationSchema),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null at the end." }),
  })
  .openapi("GenerationList");

export const BalanceSchema = z
  .object({
    object: z.literal("balance"),
    balance: z.number().int().openapi({ description: "Credits on the account.", example: 120 }),
    held: z.number().int().openapi({ description: "Part of the balance reserved for running jobs.", example: 5 }),
    available: z.number().int().openapi({ description: "What new requests can spend.", example: 115 }),
    expiring: z
      .array(
        z.object({
          credits: z.number().int().openapi({ example: 40 }),
          expires_at: z.string().openapi({ format: "date-time", example: "2027-01-31T00:00:00.000Z" }),
        }),
      )
      .openapi({
        description:
          "Credits of the balance that expire, by date, soonest first (up to five dates); credits not listed never expire.",
      }),
  })
  .openapi("Balance");

export const LedgerQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(25),
});

export const LedgerSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(
      z.object({
        id: z.number().int(),
        kind: z.enum(CREDIT_ENTRY_KINDS),
        amount: z.number().int().openapi({ description: "Change of the balance (negative when spent).", example: -1 }),
        held_change: z.number().int().openapi({ description: "Change of the part held for jobs.", example: 0 }),
        balance_after: z.number().int().openapi({ example: 119 }),
        reference: z.string().nullable().openapi({ example: "job:6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a" }),
        created_at: z.iso.datetime(),
      }),
    ),
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int(),
  })
  .openapi("Ledger");

export const IdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, example: "6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a" }),
});

export const WebhookEventSchema = z
  .object({
    type: z.enum(WEBHOOK_EVENTS).openapi({ example: "generation.succeeded" }),
    timestamp: z.iso.datetime().openapi({ description: "When the generation ended." }),
    data: GenerationSchema,
  })
  .openapi("WebhookEvent");

export const WebhookHeaders = z.object({
  "webhook-id": z.string().openapi({
    description: "The message's id: the same on every retry of one message, so a receiver can ignore repeats.",
    example: "0d3f8a0e-5f4b-4f0e-a1a4-2f6e3c9b7d21",
  }),
  "webhook-timestamp": z.string().openapi({
    description: "Unix time of this attempt, in seconds. Reject messages more than five minutes old.",
    example: "1795454044",
  }),
  "webhook-signature": z.string().openapi({
    description:
      "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded part of your signing secret after `whsec_`. Several signatures, separated by spaces, while a rotated secret is still valid: accept the message if one matches.",
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  }),
});
