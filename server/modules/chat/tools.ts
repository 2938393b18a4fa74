import { kindOfTool } from "#common/tools.ts";
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
import {
  IMAGE_ASPECT_RATIOS,
  PROMPT_MAX,
  VIDEO_ASPECT_RATIOS,
  VIDEO_STYLES,
  type GenerationTool,
  type SubmitInput,
} from "#common/generation.ts";
import type { Locale } from "#common/locales.ts";

/** The tools' names, as models call them and as the answer's parts are typed (`tool-<name>`). */
export const CHAT_TOOLS = ["generate_image", "generate_video"] as const;
export type ChatToolName = (typeof CHAT_TOOLS)[number];

/**
 * What a tool call did, as the model reads it and as the page shows it: a generation started (its id, model and
 * cost), one waiting for its author's confirmation (it costs more than CHAT_CONFIRM_ABOVE_CREDITS), one its author
 * declined, or one refused (no credits, maintenance, a setting the model does not take) with the reason in the
 * author's language. Nothing is charged but through the generation, as in the studio.
 */
export type ChatToolOutput =
  | { status: "started"; generationId: string; tool: GenerationTool; model: string; cost: number; prompt: string }
  | {
      status: "awaiting_confirmation";
      tool: GenerationTool;
      model: string;
      cost: number;
      prompt: string;
      request: SubmitInput;
    }
  | { status: "declined"; tool: GenerationTool; model: string; cost: number; prompt: string }
  | { status: "refused"; code: string; message: string };

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
  const [row] = await db
    .select({ id: asset.id })
    .from(asset)
    .innerJoin(generation, eq(generation.id, asset.generationId))
    .where(
      and(
        eq(generation.id, generationId),
        eq(generation.userId, userId),
        eq(asset.kind, "image"),
        eq(asset.role, "output"),
      ),
    )
    .orderBy(asc(asset.position))
    .limit(1);
  if (!row) throw new AppError("input_image_required", "no such image of the account's");
  return row.id;
}

/** Starts a generation for a tool call, once whatever the retries: its key is the answer's and the call's. */
export async function startToolGeneration(
  deps: ChatToolDeps,
  a: { userId: string; messageId: string; toolCallId: string; request: SubmitInput },
): Promise<string> {
  const { id } = await submitGeneration(deps, {
    user: { id: a.userId },
    input: a.request,
    source: "web",
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
  a: { userId: string; messageId: string; locale: Locale; preferOffline: boolean; signal?: AbortSignal },
) {
  // One generation per answer starts without asking: a model told (by a pasted text, say) to make many cannot
  // spend the author's credits call after call.
  let startedHere = 0;
  const run = async (
    toolCallId: string,
    build: () => Promise<SubmitInput & { tool: GenerationTool }>,
  ): Promise<ChatToolOutput> => {
    try {
      const request = await build();
      const { model, cost, prompt } = priced(deps, request);
      const about = { tool: request.tool, model: model.name, cost, prompt };
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
          return source
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
          tool: "text-to-video",
          model: pick("text-to-video"),
          prompt: input.prompt,
          style: input.style,
          aspectRatio: input.aspectRatio,
        })),
    }),
  };
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
    const about = { tool: output.tool, model: output.model, cost: output.cost, prompt: output.prompt };
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
