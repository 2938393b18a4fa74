import type { Context } from "hono";
import sharp from "sharp";
import { z } from "zod";
import { AppError } from "#server/errors.ts";
import { demoFields } from "#common/demo.ts";
import { MAX_SEED, PROMPT_MAX } from "#common/generation.ts";
import { getGeneration, type GenerationView } from "#server/modules/generation/get-generation.ts";
import { filesOfGeneration } from "#server/modules/generation/find-media.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { normalizeInputImage } from "#server/modules/generation/input-image.ts";
import { checkGeneration } from "#server/modules/generation/submit-generation.ts";
import { waitForGeneration } from "#server/modules/generation/wait-generation.ts";
import { convertImage } from "#server/modules/generation/convert-image.ts";
import { c2paSignerOf } from "#server/media/c2pa.ts";
import type { LinkFormat } from "#server/modules/generation/media-links.ts";
import type { RetryEnv } from "./retries.ts";
import {
  fieldError,
  jobFailure,
  jobPending,
  modelFor,
  parseFields,
  ratioOfSize,
  readSent,
  startedJob,
  submitJob,
} from "./jobs.ts";

const nullish = <T extends z.ZodType>(schema: T) => schema.nullish();
const flag = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

/**
 * OpenAI's image fields (those of `images.generate` and `images.edit`), with Atelier's own beside: `negative_prompt`,
 * `seed`, `strength` (edits). Fields OpenAI has that change nothing here (`user`, `moderation`, `style`,
 * `input_fidelity`…) are accepted and left.
 */
const imageFields = z.looseObject({
  prompt: z.string().min(1).max(PROMPT_MAX),
  model: nullish(z.string().max(120)),
  n: nullish(z.coerce.number().int().min(1).max(10)),
  size: nullish(z.string().max(20)),
  quality: nullish(z.enum(["auto", "standard", "hd", "low", "medium", "high", "xhigh", "max"])),
  response_format: nullish(z.enum(["url", "b64_json"])),
  output_format: nullish(z.enum(["png", "jpeg", "webp"])),
  output_compression: nullish(z.coerce.number().int().min(0).max(100)),
  background: nullish(z.enum(["transparent", "opaque", "auto"])),
  stream: nullish(flag),
  partial_images: nullish(z.coerce.number().int().min(0).max(3)),
  negative_prompt: nullish(z.string().max(PROMPT_MAX)),
  seed: nullish(z.coerce.number().int().min(0).max(MAX_SEED)),
  strength: nullish(z.coerce.number().min(0).max(1)),
});
type ImageFields = z.output<typeof imageFields>;

/** What no model here does, refused by name rather than quietly ignored. */
function refuseUnsupported(fields: ImageFields) {
  if (fields.stream) throw fieldError("stream", "stream: images are answered whole here; send stream false");
  if (fields.partial_images) throw fieldError("partial_images", "partial_images: not offered; send 0");
  if (fields.background === "transparent")
    throw fieldError("background", "background: the models here make opaque images; send opaque or auto");
}

export interface ImagesOptions {
  origin: string;
  /** How long a request waits for its images before answering how to follow them. */
  waitMs: number;
}

/**
 * `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart, `image` or `image[]`, and a `mask`
 * for a mask edit, the `inpaint` tool): OpenAI's requests onto Atelier's image models. The request waits for the job (up to `waitMs`) and answers OpenAI's
 * `ImagesResponse`: signed links that work for an hour without a key, or the bytes in base64, in the format asked.
 */
export function imagesRoutes(options: ImagesOptions) {
  const generations = async (c: Context<RetryEnv>) => {
    const { fields } = await readSent(c);
    const request = parseFields(imageFields, fields);
    refuseUnsupported(request);
    if (request.strength != null) throw fieldError("strength", "strength: only for edits (POST /v1/images/edits)");
    const model = modelFor(c, request.model, "text-to-image");
    const id = await submitJob(c, {
      tool: "text-to-image",
      model: model.id,
      prompt: request.prompt,
      aspectRatio: ratioOfSize(model, request.size),
      count: countFor(model.options.maxCount, request.n),
      ...(request.negative_prompt ? { negativePrompt: request.negative_prompt } : {}),
      ...(request.seed != null ? { seed: request.seed } : {}),
      ...qualityFor(model, request.quality),
    });
    return answer(c, id, request);
  };

  const edits = async (c: Context<RetryEnv>) => {
    const { fields, files } = await readSent(c);
    const request = parseFields(imageFields, fields);
    refuseUnsupported(request);
    const images = files.get("image") ?? [];
    if (images.length === 0) throw fieldError("image", "image: send the image to edit as a file");
    if (images.length > 1)
      throw fieldError("image", `image: the models here edit one image at a time; ${images.length} were sent`);
    const masks = files.get("mask") ?? [];
    if (masks.length > 1) throw fieldError("mask", "mask: one mask, for the image");
    const masked = masks.length === 1;
    if (masked && request.strength != null)
      throw fieldError("strength", "strength: not with a mask (the masked area is made anew)");
    const model = modelFor(c, request.model, masked ? "inpaint" : "image-to-image");
    // A retry after "not finished yet" waits on the job already started, without keeping the image again.
    const started = await startedJob(c);
    if (started) return answer(c, started, request);
    const { database, storage } = c.var.runtime;
    // The request is checked before the upload is kept, so that a refusal leaves no file behind.
    const count = countFor(model.options.maxCount, request.n);
    const bytes = new Uint8Array(await images[0]!.arrayBuffer());
    const mask = masked ? await maskOf(new Uint8Array(await masks[0]!.arrayBuffer()), bytes) : undefined;
    const common = {
      model: model.id,
      prompt: request.prompt,
      count,
      ...(request.negative_prompt ? { negativePrompt: request.negative_prompt } : {}),
      ...(request.seed != null ? { seed: request.seed } : {}),
      ...qualityFor(model, request.quality),
    };
    const input = masked
      ? // The mask edit keeps the image's own shape: `size` is accepted and left.
        { tool: "inpaint", ...common }
      : {
          tool: "image-to-image",
          ...common,
          aspectRatio: ratioOfSize(model, request.size),
          ...(request.strength != null && model.options.strength ? { strength: request.strength } : {}),
        };
    checkGeneration(c.var.runtime.models, {}, input);
    const userId = c.var.apiUserId;
    const image = await saveInputImage({ db: database.db, storage, userId, bytes });
    const maskAsset = mask
      ? await saveInputImage({ db: database.db, storage, userId, bytes: mask, mask: true })
      : undefined;
    const id = await submitJob(c, {
      ...input,
      inputAssetId: image.id,
      ...(maskAsset ? { maskAssetId: maskAsset.id } : {}),
    });
    return answer(c, id, request);
  };

  /** Waits for the job, then answers its images in OpenAI's shape, or why there are none. */
  const answer = async (c: Context<RetryEnv>, id: string, request: ImageFields) => {
    const { database, env, storage, mediaLinks } = c.var.runtime;
    const userId = c.var.apiUserId;
    const ended = await waitForGeneration({ db: database.db, id, until: Date.now() + options.waitMs });
    if (!ended) return jobPending(c, id, Math.round(options.waitMs / 1000));
    const view: GenerationView | null = await getGeneration({ db: database.db, env, id, viewerId: userId }).catch(
      (error: unknown) => {
        if (error instanceof AppError && error.code === "not_found") return null;
        throw error;
      },
    );
    if (!view || view.status !== "succeeded") return jobFailure(c, view);

    // The stored files are read only for an answer in base64.
    const files =
      request.response_format === "b64_json"
        ? await filesOfGeneration({ db: database.db, userId, generationId: id })
        : [];
    const wanted = request.output_format === "jpeg" ? "jpg" : request.output_format;
    const data = await Promise.all(
      view.outputs.map(async (output) => {
        const stored = output.url.split(".").pop()!;
        const format = (wanted ?? stored) as LinkFormat;
        if (request.response_format !== "b64_json")
          return { url: options.origin + mediaLinks.sign(`/media/${output.id}.${format}`), revised_prompt: null };
        const file = files.find((f) => f.id === output.id);
        const body = file ? await storage.get(file.storageKey) : null;
        if (!body) throw new AppError("internal_error", `the file of ${output.id} is missing`);
        const bytes = new Uint8Array(await new Response(body.body).arrayBuffer());
        const sent =
          format === stored
            ? bytes
            : await convertImage(bytes, format, request.output_compression ?? 90, c2paSignerOf(env));
        return { b64_json: Buffer.from(sent).toString("base64"), revised_prompt: null };
      }),
    );
    // Not kept for a repeated request: made again from the job (the same images, links signed anew, no charge).
    c.set("claimedAnswer", { kind: "kept", answerKind: "remade", status: 200, body: id });
    const first = view.outputs[0];
    const charged = view.creditsCharged ?? 0;
    // The answer says what its job cost; the header what this request cost: nothing more, when it is repeated.
    c.header("x-atelier-credits-charged", c.get("replayed") ? "0" : String(charged));
    c.header("x-atelier-generation-id", id);
    return c.json({
      created: Math.floor(Date.parse(view.createdAt) / 1000),
      data,
      background: "opaque",
      output_format: request.output_format ?? formatName(first?.mimeType),
      size: first?.width && first.height ? `${first.width}x${first.height}` : undefined,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, credits: charged },
      atelier: {
        generation_id: id,
        model: view.model.id,
        credits_charged: charged,
        ...demoFields(view.model.offline, options.origin),
      },
    });
  };

  return { generations, edits };
}

/**
 * OpenAI's `quality` as the model's own `quality` setting, when it declares one ("auto": its default). A model
 * without one makes what it makes, as before.
 */
function qualityFor(model: { parameters?: readonly { name: string }[] }, quality: string | null | undefined) {
  if (!quality || quality === "auto" || !model.parameters?.some((f) => f.name === "quality")) return {};
  return { options: { quality } };
}

/** OpenAI's `n` within the model's own limit (a request for more is refused, not cut). */
function countFor(max: number, n: number | null | undefined): number {
  const count = n ?? 1;
  if (count > max) throw fieldError("n", `n: this model makes at most ${max} image${max === 1 ? "" : "s"} a request`);
  return count;
}

/**
 * OpenAI's mask (a PNG of the image's size whose fully transparent pixels are the area to edit) as Atelier's: a
 * grey PNG, white where the image changes, black where it stays.
 */
async function maskOf(maskBytes: Uint8Array, imageBytes: Uint8Array): Promise<Uint8Array> {
  const image = await normalizeInputImage(imageBytes).catch((error: unknown) => {
    throw error instanceof AppError ? fieldError("image", `image: ${error.message}`) : error;
  });
  const given = await normalizeInputImage(maskBytes).catch((error: unknown) => {
    throw error instanceof AppError ? fieldError("mask", `mask: ${error.message}`) : error;
  });
  if (given.mediaType !== "image/png")
    throw fieldError("mask", "mask: a PNG with an alpha channel, its fully transparent pixels the area to edit");
  if (given.width !== image.width || given.height !== image.height)
    throw fieldError(
      "mask",
      `mask: ${given.width}x${given.height} pixels, but the image is ${image.width}x${image.height}; they must be the same size`,
    );
  // The alpha channel is the last, whatever the bands before it (a grey mask is kept as grey and alpha).
  const { data, info } = await sharp(given.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const painted = Buffer.alloc(given.width * given.height);
  for (let i = 0; i < painted.length; i++) painted[i] = data[i * info.channels + info.channels - 1] === 0 ? 255 : 0;
  const png = await sharp(painted, { raw: { width: given.width, height: given.height, channels: 1 } })
    .png()
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

const formatName = (mimeType: string | undefined) =>
  mimeType === "image/jpeg" ? "jpeg" : mimeType === "image/webp" ? "webp" : "png";
