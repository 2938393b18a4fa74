import { kindOfTool, takes, toolSpec, UPSCALE_FACTORS } from "#common/tools.ts";
import { randomInt } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { tool } from "ai";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { asset, chatConversation, chatMessage, generation, type ChatPart } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { serverT } from "#server/i18n/translations.ts";
import { checkGeneration, submitGeneration, type SubmitDeps } from "#server/modules/generation/submit-generation.ts";
import type { CatalogModel } from "#config/models.ts";
import { limitAccountAction } from "#server/modules/rate-limits/account-actions.ts";
import { mediaUrl } from "#server/modules/generation/get-generation.ts";
import {
  IMAGE_ASPECT_RATIOS,
  MAX_SEED,
  PROMPT_MAX,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DURATIONS,
  VIDEO_STYLES,
  type GenerationParams,
  type GenerationTool,
  type SubmitInput,
} from "#common/generation.ts";
import type { Locale } from "#common/locales.ts";

/**
 * The chat's tools that start from an image, each one tool of the table of tools (its inputs read from its row).
 * Editing with a mask is not one: a conversation has no way to paint one.
 */
const IMAGE_TOOLS = {
  animate_image: {
    tool: "image-to-video",
    description:
      "Animate an image into a short video with the user's credits (image to video; it appears in the chat and in their gallery). Use it when the user asks to animate, bring to life or make a video from an image. Write a prompt saying how it moves, with the camera and the mood.",
  },
  remove_background: {
    tool: "remove-background",
    description:
      "Remove the background of an image with the user's credits: the result is a PNG whose background is transparent. Use it when the user asks to remove or cut out the background.",
  },
  upscale_image: {
    tool: "upscale",
    description:
      "Upscale an image 2 or 4 times larger with the user's credits. Use it when the user asks for a larger, sharper or higher-resolution image.",
  },
  extend_image: {
    tool: "outpaint",
    description:
      "Extend the canvas of an image to a new aspect ratio with the user's credits; the model fills the new area around it. Use it when the user asks to widen, extend or reframe an image to another ratio.",
  },
} as const satisfies Record<string, { tool: GenerationTool; description: string }>;

/** The tools' names, as models call them and as the answer's parts are typed (`tool-<name>`). */
export const CHAT_TOOLS = ["generate_image", "generate_video", ...Object.keys(IMAGE_TOOLS), "make_variations"] as [
  "generate_image",
  "generate_video",
  ...(keyof typeof IMAGE_TOOLS)[],
  "make_variations",
];
export type ChatToolName = (typeof CHAT_TOOLS)[number];

/**
 * The image a generation was made from, as its card shows it (what it was "made from"): an image of the account's,
 * and the generation that made it when it is a result.
 */
export interface ChatToolSource {
  assetId: string;
  url: string;
  thumbUrl: string | null;
  generationId?: string;
  tool?: GenerationTool;
}

/**
 * An image of the conversation, oldest first, as a tool may take "the last image": an image a question shows, or a
 * generation an answer started (whose result may be an image).
 */
export type ConversationImage = { assetId: string } | { generationId: string };

/** The images of a branch of a conversation, oldest first (see ConversationImage). */
export function conversationImages(branch: readonly { role: string; parts: ChatPart[] }[]): ConversationImage[] {
  const images: ConversationImage[] = [];
  for (const m of branch)
    for (const part of m.parts) {
      if (m.role === "user" && part.type === "file" && typeof part.assetId === "string")
        images.push({ assetId: part.assetId });
      const output = part.output as ChatToolOutput | undefined;
      if (m.role === "assistant" && part.type.startsWith("tool-") && output?.status === "started")
        images.push({ generationId: output.generationId });
    }
  return images;
}

/**
 * What a tool call did, as the model reads it and as the page shows it: a generation started (its id, model and
 * cost), one waiting for its author's confirmation (it costs more than CHAT_CONFIRM_ABOVE_CREDITS), one its author
 * declined, or one refused (no credits, maintenance, a setting the model does not take) with the reason in the
 * author's language. Nothing is charged but through the generation, as in the studio.
 */
export type ChatToolOutput =
  | ({ status: "started"; generationId: string } & ToolAbout)
  | ({ status: "awaiting_confirmation"; request: SubmitInput } & ToolAbout)
  | ({ status: "declined" } & ToolAbout)
  | { status: "refused"; code: string; message: string };

/** What a tool call asks for, as its card shows it. */
interface ToolAbout {
  tool: GenerationTool;
  model: string;
  cost: number;
  /** Empty for a tool that reads none. */
  prompt: string;
  /** The image it starts from (for a variation, the result it varies). */
  from?: ChatToolSource;
  /** A variation of an earlier result. */
  variation?: boolean;
}

export interface ChatToolDeps extends SubmitDeps {
  db: Db;
}

/**
 * The model for a tool: the offline one when the chat model runs offline (its answers stay on this machine), the
 * first hosted one otherwise, and whichever there is when there is only one kind.
 */
function modelFor(deps: ChatToolDeps, tool: GenerationTool, preferOffline: boolean): CatalogModel | undefined {
  const models = deps.models.media().filter((m) => m.kind === kindOfTool(tool) && m.tools.includes(tool));
  return models.find((m) => Boolean(m.offline) === preferOffline) ?? models[0];
}

/** The first picture of one of the account's own generations, to transform. */
async function sourceImage(db: Db, userId: string, generationId: string): Promise<string> {
  const found = await resultImage(db, userId, generationId);
  if (!found?.assetId) throw new AppError("input_image_required", "no such image of the account's");
  return found.assetId;
}

/** A generation of the account's with its first output picture (none while it runs, or when it made a video). */
async function resultImage(db: Db, userId: string, generationId: string) {
  const [row] = await db
    .select({ status: generation.status, tool: generation.tool })
    .from(generation)
    .where(and(eq(generation.id, generationId), eq(generation.userId, userId)));
  if (!row) return undefined;
  const [image] = await db
    .select({ id: asset.id, mimeType: asset.mimeType, thumbKey: asset.thumbKey })
    .from(asset)
    .where(and(eq(asset.generationId, generationId), eq(asset.kind, "image"), eq(asset.role, "output")))
    .orderBy(asc(asset.position))
    .limit(1);
  return { status: row.status, tool: row.tool, assetId: image?.id, image };
}

/** How a chat tool names the image it starts from. */
const imageReference = z
  .union([z.literal("last"), z.uuid()])
  .default("last")
  .describe(
    'The image: "last" for the most recent image of this conversation (one the user attached or one made here), the id of an image the user attached, or the generation id of an image made earlier.',
  );

/** A refusal naming what is wrong with the image a tool was given. */
const imageRefusal = (key: string, detail: string) =>
  new AppError("input_image_required", detail, { key: `chat.errors.${key}` });

/**
 * The image a tool call names, as the account's own: "last" is the most recent image of the conversation (an image a
 * question shows, or the result of a generation an answer started: a video is not one, a failed one made none); an
 * id is an image of the account's, or one of its generations' picture. A generation still running has no image yet.
 */
async function resolveImage(
  db: Db,
  userId: string,
  reference: string,
  recent: readonly ConversationImage[],
): Promise<ChatToolSource> {
  const fromAsset = async (assetId: string) => {
    const [row] = await db
      .select({ id: asset.id, mimeType: asset.mimeType, thumbKey: asset.thumbKey, generationId: asset.generationId })
      .from(asset)
      .where(and(eq(asset.id, assetId), eq(asset.userId, userId), eq(asset.kind, "image")));
    if (!row) return undefined;
    const [made] = row.generationId
      ? await db.select({ tool: generation.tool }).from(generation).where(eq(generation.id, row.generationId))
      : [];
    return sourceOf(row, row.generationId && made ? { generationId: row.generationId, tool: made.tool } : {});
  };
  const fromGeneration = async (generationId: string, skip: boolean) => {
    const found = await resultImage(db, userId, generationId);
    if (!found) return undefined;
    if (found.status === "queued" || found.status === "processing") {
      if (skip && kindOfTool(found.tool) === "video") return undefined;
      throw imageRefusal("imageNotReady", `generation ${generationId} has not finished`);
    }
    return found.image ? sourceOf(found.image, { generationId, tool: found.tool }) : undefined;
  };
  if (reference !== "last") {
    const source = (await fromAsset(reference)) ?? (await fromGeneration(reference, false));
    if (!source) throw imageRefusal("noSuchImage", `no image ${reference} of the account's`);
    return source;
  }
  for (const item of [...recent].reverse()) {
    const source = "assetId" in item ? await fromAsset(item.assetId) : await fromGeneration(item.generationId, true);
    if (source) return source;
  }
  throw imageRefusal("noImage", "no image in this conversation");
}

const sourceOf = (
  image: { id: string; mimeType: string; thumbKey: string | null },
  made: { generationId?: string; tool?: GenerationTool },
): ChatToolSource => ({
  assetId: image.id,
  url: mediaUrl(image.id, image.mimeType),
  thumbUrl: image.thumbKey ? `/media/${image.id}/thumb.webp` : null,
  ...made,
});

/**
 * The request of a variation: the generation's own (tool, model, prompt, settings, images) with a new seed, linked
 * to it as its parent. "last" is the most recent generation an answer of the conversation started.
 */
async function variationOf(
  db: Db,
  userId: string,
  reference: string,
  recent: readonly ConversationImage[],
  models: ChatToolDeps["models"],
): Promise<{ request: SubmitInput & { tool: GenerationTool }; from?: ChatToolSource }> {
  const id =
    reference === "last"
      ? [...recent].reverse().find((item): item is { generationId: string } => "generationId" in item)?.generationId
      : reference;
  const [g] = id
    ? await db
        .select({
          id: generation.id,
          tool: generation.tool,
          modelId: generation.modelId,
          prompt: generation.prompt,
          negativePrompt: generation.negativePrompt,
          params: generation.params,
          inputAssetId: generation.inputAssetId,
          maskAssetId: generation.maskAssetId,
          endAssetId: generation.endAssetId,
        })
        .from(generation)
        .where(and(eq(generation.id, id), eq(generation.userId, userId)))
    : [];
  if (!g) throw imageRefusal("noResult", `no generation ${reference} of the account's to vary`);
  const spec = toolSpec(g.tool);
  const p: GenerationParams = g.params;
  const model = models.findMedia(g.modelId, { admin: false });
  const request: SubmitInput & { tool: GenerationTool } = {
    tool: g.tool,
    model: g.modelId,
    variationOf: g.id,
    ...(spec.prompt !== "none" ? { prompt: g.prompt } : {}),
    ...(takes(g.tool, "negativePrompt") && g.negativePrompt ? { negativePrompt: g.negativePrompt } : {}),
    ...(takes(g.tool, "aspectRatio") ? { aspectRatio: p.aspectRatio } : {}),
    ...(takes(g.tool, "count") ? { count: p.count } : {}),
    // A new seed where the model takes one; a model without seeds varies by itself.
    ...(takes(g.tool, "seed") && model?.options.seed ? { seed: randomInt(0, MAX_SEED) } : {}),
    ...(takes(g.tool, "strength") && p.strength !== undefined ? { strength: p.strength } : {}),
    ...(takes(g.tool, "style") && p.style ? { style: p.style } : {}),
    ...(takes(g.tool, "duration") && p.duration ? { duration: p.duration } : {}),
    ...(takes(g.tool, "resolution") && p.resolution ? { resolution: p.resolution } : {}),
    ...(takes(g.tool, "audio") && p.audio !== undefined ? { audio: p.audio } : {}),
    ...(takes(g.tool, "options") && p.options ? { options: p.options } : {}),
    ...(spec.image && g.inputAssetId ? { inputAssetId: g.inputAssetId } : {}),
    ...(spec.mask && g.maskAssetId ? { maskAssetId: g.maskAssetId } : {}),
    ...(spec.endImage && g.endAssetId ? { endAssetId: g.endAssetId } : {}),
    ...(spec.scale && p.scale ? { scale: p.scale } : {}),
    ...(spec.extend && p.extend ? { extend: p.extend } : {}),
  };
  const [first] = await db
    .select({ id: asset.id, mimeType: asset.mimeType, thumbKey: asset.thumbKey })
    .from(asset)
    .where(and(eq(asset.generationId, g.id), eq(asset.role, "output")))
    .orderBy(asc(asset.position))
    .limit(1);
  return { request, from: first ? sourceOf(first, { generationId: g.id, tool: g.tool }) : undefined };
}

/** Starts a generation for a tool call, once whatever the retries: its key is the answer's and the call's. */
export async function startToolGeneration(
  deps: ChatToolDeps,
  a: { userId: string; messageId: string; toolCallId: string; request: SubmitInput; locale?: Locale },
): Promise<string> {
  const { id } = await submitGeneration(deps, {
    user: { id: a.userId },
    locale: a.locale,
    input: a.request,
    source: "web",
    channel: "chat",
    idempotencyKey: `chat:${a.messageId}:${a.toolCallId}`,
  });
  return id;
}

/**
 * The model a tool's request names and what the request costs there now, checked and priced by the code that
 * submits it (its settings' defaults included): the price the card shows is the price held.
 */
function priced(deps: ChatToolDeps, request: SubmitInput) {
  const { model, cost, request: parsed } = checkGeneration(deps.models, {}, request);
  return { model, cost, prompt: parsed.prompt };
}

/** Whether a generation of this cost waits for its author (CHAT_CONFIRM_ABOVE_CREDITS; 0: every one does). */
const needsConfirmation = (deps: ChatToolDeps, cost: number) =>
  deps.env.CHAT_CONFIRM_ABOVE_CREDITS === 0 || cost > deps.env.CHAT_CONFIRM_ABOVE_CREDITS;

/** A refusal as the tool's output: its code and the catalogue message in the author's language. */
export function refusalOutput(error: unknown, locale: Locale): ChatToolOutput {
  if (!(error instanceof AppError)) throw error;
  const t = serverT(locale, ["common", "messages"]);
  return { status: "refused", code: error.code, message: t(error.messageKey, error.values) };
}

/**
 * The studio as tools a chat model may call: an image from a prompt (or from one of the conversation's earlier
 * images), and a video. Each runs through the studio's own engine with the author's credits; one that costs more
 * than the threshold waits for its author to confirm it on the page.
 */
export function studioTools(
  deps: ChatToolDeps,
  a: {
    userId: string;
    messageId: string;
    locale: Locale;
    preferOffline: boolean;
    signal?: AbortSignal;
    /** The conversation's images so far, oldest first: what "the last image" is. */
    images?: readonly ConversationImage[];
  },
) {
  const recent = a.images ?? [];
  // One generation per answer starts without asking: a model told (by a pasted text, say) to make many cannot
  // spend the author's credits call after call.
  let startedHere = 0;
  const run = async (
    toolCallId: string,
    build: () => Promise<{ request: SubmitInput & { tool: GenerationTool }; from?: ChatToolSource }>,
  ): Promise<ChatToolOutput> => {
    try {
      const { request, from } = await build();
      const { model, cost, prompt } = priced(deps, request);
      const about: ToolAbout = {
        tool: request.tool,
        model: model.name,
        cost,
        prompt,
        ...(from ? { from } : {}),
        ...(request.variationOf ? { variation: true } : {}),
      };
      if (needsConfirmation(deps, cost) || startedHere > 0)
        return { status: "awaiting_confirmation", ...about, request };
      // Stopped meanwhile: nothing starts that the answer could no longer show.
      if (a.signal?.aborted) throw new AppError("conflict", "the answer was stopped");
      await limitAccountAction(deps.db, a.userId, "submit");
      startedHere++;
      const generationId = await startToolGeneration(deps, {
        userId: a.userId,
        messageId: a.messageId,
        toolCallId,
        request,
        locale: a.locale,
      });
      return { status: "started", generationId, ...about };
    } catch (error) {
      return refusalOutput(error, a.locale);
    }
  };
  const pick = (tool: GenerationTool) => modelFor(deps, tool, a.preferOffline)?.id ?? "";

  return {
    generate_image: tool({
      description:
        "Generate an image with the user's credits (it appears in the chat and in their gallery). Use it when the user asks for a picture. Write a detailed prompt in English or the user's language. To change an image instead (image-to-image), give the id of an image the user attached as sourceImageId, or the generation id of an earlier image of this conversation as sourceGenerationId.",
      inputSchema: z.object({
        prompt: z.string().min(1).max(PROMPT_MAX).describe("What the image shows, in detail."),
        aspectRatio: z.enum(IMAGE_ASPECT_RATIOS).optional(),
        sourceImageId: z.uuid().optional().describe("An image the user attached, to transform."),
        sourceGenerationId: z.uuid().optional().describe("An earlier image generation to transform."),
      }),
      execute: (input, { toolCallId }) =>
        run(toolCallId, async () => {
          const source = input.sourceImageId
            ? input.sourceImageId
            : input.sourceGenerationId
              ? await sourceImage(deps.db, a.userId, input.sourceGenerationId)
              : undefined;
          // The image's checks (the account's own, a picture) are the studio's (submitGeneration).
          return {
            request: source
              ? {
                  tool: "image-to-image",
                  model: pick("image-to-image"),
                  prompt: input.prompt,
                  aspectRatio: input.aspectRatio,
                  inputAssetId: source,
                }
              : {
                  tool: "text-to-image",
                  model: pick("text-to-image"),
                  prompt: input.prompt,
                  aspectRatio: input.aspectRatio,
                },
          };
        }),
    }),
    generate_video: tool({
      description:
        "Generate a short video with the user's credits (it appears in the chat and in their gallery). Use it when the user asks for a video or an animation.",
      inputSchema: z.object({
        prompt: z.string().min(1).max(PROMPT_MAX).describe("What happens in the video, with the camera and the mood."),
        style: z.enum(VIDEO_STYLES).optional(),
        aspectRatio: z.enum(VIDEO_ASPECT_RATIOS).optional(),
      }),
      execute: (input, { toolCallId }) =>
        run(toolCallId, async () => ({
          request: {
            tool: "text-to-video",
            model: pick("text-to-video"),
            prompt: input.prompt,
            style: input.style,
            aspectRatio: input.aspectRatio,
          },
        })),
    }),
    // The tools that start from an image, offered when a model serves them.
    ...Object.fromEntries(
      Object.entries(IMAGE_TOOLS)
        .filter(([, { tool: id }]) => modelFor(deps, id, a.preferOffline))
        .map(([name, { tool: id, description }]) => [
          name,
          tool({
            description,
            inputSchema: imageToolInput(id),
            execute: (input: ImageToolInput, { toolCallId }) =>
              run(toolCallId, async () => {
                const spec = toolSpec(id);
                const from = await resolveImage(deps.db, a.userId, input.image, recent);
                const end =
                  spec.endImage && input.endImage
                    ? await resolveImage(deps.db, a.userId, input.endImage, recent)
                    : undefined;
                return {
                  request: {
                    tool: id,
                    model: pick(id),
                    inputAssetId: from.assetId,
                    ...(spec.prompt !== "none" && input.prompt ? { prompt: input.prompt } : {}),
                    ...(end ? { endAssetId: end.assetId } : {}),
                    ...(spec.scale && input.scale ? { scale: input.scale } : {}),
                    ...(spec.extend ? { extendTo: input.ratio ?? "16:9" } : {}),
                    ...(takes(id, "duration") && input.duration ? { duration: input.duration } : {}),
                    ...(takes(id, "aspectRatio") && input.ratio ? { aspectRatio: input.ratio } : {}),
                  },
                  from,
                };
              }),
          }),
        ]),
    ),
    make_variations: tool({
      description:
        "Make variations of an earlier result with the user's credits: the same request (tool, model, prompt, settings, images) with a new seed. Use it when the user asks for variations, other versions or more like it.",
      inputSchema: z.object({
        generation: z
          .union([z.literal("last"), z.uuid()])
          .default("last")
          .describe(
            'The result to vary: "last" for the most recent one made in this conversation, or its generation id.',
          ),
      }),
      execute: (input, { toolCallId }) =>
        run(toolCallId, () => variationOf(deps.db, a.userId, input.generation, recent, deps.models)),
    }),
  };
}

/** What a chat tool that starts from an image reads, as its row in the table of tools says. */
interface ImageToolInput {
  image: string;
  prompt?: string;
  endImage?: string;
  scale?: number;
  ratio?: (typeof IMAGE_ASPECT_RATIOS)[number];
  duration?: number;
}

/** A chat tool's input schema from its row in the table of tools: its image, prompt, end frame, scale, ratio. */
function imageToolInput(id: GenerationTool) {
  const spec = toolSpec(id);
  const video = spec.kind === "video";
  const prompt = z
    .string()
    .max(PROMPT_MAX)
    .describe(video ? "How the image moves: the motion, the camera and the mood." : "What to make of it.");
  return z.object({
    image: imageReference,
    ...(spec.prompt === "required" ? { prompt: prompt.min(1) } : {}),
    ...(spec.prompt === "optional" ? { prompt: prompt.optional() } : {}),
    ...(spec.endImage
      ? {
          endImage: z
            .union([z.literal("last"), z.uuid()])
            .optional()
            .describe("An optional last frame, named as the image is."),
        }
      : {}),
    ...(spec.scale
      ? {
          scale: z
            .union(UPSCALE_FACTORS.map((f) => z.literal(f)) as unknown as [z.ZodLiteral<2>, z.ZodLiteral<4>])
            .default(2)
            .describe("How many times larger."),
        }
      : {}),
    ...(spec.extend
      ? { ratio: z.enum(IMAGE_ASPECT_RATIOS).default("16:9").describe("The new aspect ratio of the canvas.") }
      : takes(id, "aspectRatio")
        ? {
            ratio: z
              .enum(video ? VIDEO_ASPECT_RATIOS : IMAGE_ASPECT_RATIOS)
              .optional()
              .describe("The aspect ratio."),
          }
        : {}),
    ...(takes(id, "duration")
      ? {
          duration: z
            .union(VIDEO_DURATIONS.map((d) => z.literal(d)) as unknown as [z.ZodLiteral<5>, z.ZodLiteral<10>])
            .optional()
            .describe("Seconds."),
        }
      : {}),
  }) as unknown as z.ZodType<ImageToolInput>;
}

/**
 * Its author's answer to a tool call waiting for confirmation: confirmed, the generation starts (once, however
 * often it is confirmed: its key is the call's); declined, nothing starts. The answer must have ended (its writer
 * saves its parts until then). Returns the call's output as it now is.
 */
export async function settleToolCall(
  deps: ChatToolDeps,
  a: { userId: string; messageId: string; toolCallId: string; confirm: boolean; locale: Locale },
): Promise<ChatToolOutput> {
  const read = async () => {
    const [row] = await deps.db
      .select({ parts: chatMessage.parts, status: chatMessage.status, role: chatMessage.role })
      .from(chatMessage)
      .innerJoin(chatConversation, eq(chatConversation.id, chatMessage.conversationId))
      .where(and(eq(chatMessage.id, a.messageId), eq(chatConversation.userId, a.userId)));
    if (!row || row.role !== "assistant") throw new AppError("not_found", "no such answer");
    const index = row.parts.findIndex((p) => p.toolCallId === a.toolCallId && p.type.startsWith("tool-"));
    if (index < 0) throw new AppError("not_found", "no such tool call");
    const output = row.parts[index]!.output as ChatToolOutput | undefined;
    // A call the model made wrongly (its input refused) has no output: there is nothing to confirm.
    if (!output?.status) throw new AppError("conflict", "this tool call did not run");
    return { row, index, output };
  };
  // Saved only over the parts read: a concurrent change is read again rather than overwritten.
  const save = async (parts: ChatPart[], next: ChatPart[]) =>
    (
      await deps.db
        .update(chatMessage)
        .set({ parts: next, updatedAt: new Date() })
        .where(and(eq(chatMessage.id, a.messageId), sql`${chatMessage.parts} = ${JSON.stringify(parts)}::jsonb`))
        .returning({ id: chatMessage.id })
    ).length > 0;
  const replaced = (parts: ChatPart[], index: number, output: ChatToolOutput) =>
    parts.map((p, i) => (i === index ? { ...p, output } : p));

  let started: string | undefined;
  for (;;) {
    const { row, index, output } = await read();
    if (row.status === "streaming") throw new AppError("conflict", "the answer is still being written");
    if (output.status === "started") {
      // Confirmed again (a double click, a retry): the same generation; declined now: too late.
      if (a.confirm) return output;
      throw new AppError("conflict", "this generation has already started");
    }
    if (output.status !== "awaiting_confirmation" && !(started && output.status === "declined"))
      throw new AppError("conflict", "this tool call was already answered");
    const about: ToolAbout = {
      tool: output.tool,
      model: output.model,
      cost: output.cost,
      prompt: output.prompt,
      ...(output.from ? { from: output.from } : {}),
      ...(output.variation ? { variation: true } : {}),
    };
    if (!a.confirm) {
      const declined: ChatToolOutput = { status: "declined", ...about };
      if (await save(row.parts, replaced(row.parts, index, declined))) return declined;
      continue;
    }
    const waiting = output as Extract<ChatToolOutput, { status: "awaiting_confirmation" }>;
    if (!started) {
      // The price shown is the price charged: when it changed since, the card shows the new one, to confirm again.
      const { cost } = priced(deps, waiting.request);
      if (cost !== waiting.cost) {
        const repriced: ChatToolOutput = { ...waiting, cost };
        if (await save(row.parts, replaced(row.parts, index, repriced))) return repriced;
        continue;
      }
    }
    // Refusals (no credits, maintenance) leave the call waiting, to be confirmed again later.
    started ??= await startToolGeneration(deps, {
      userId: a.userId,
      messageId: a.messageId,
      toolCallId: a.toolCallId,
      request: waiting.request,
    });
    const now: ChatToolOutput = { status: "started", generationId: started, ...about };
    if (await save(row.parts, replaced(row.parts, index, now))) return now;
  }
}
