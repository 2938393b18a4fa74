import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { chatConversation, chatMessage } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { startAnswer, type AnswerOutcome } from "#server/modules/chat/answer.ts";
import { MAX_QUESTION_LENGTH } from "#server/modules/chat/conversations.ts";
import { MAX_ATTACHMENTS, offeredChatModels } from "#config/chat-models.ts";
import type { ChatPart } from "#server/db/schema/index.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { fetchImageUrl } from "#server/modules/generation/fetch-image-url.ts";
import { mediaUrl } from "#server/modules/generation/get-generation.ts";
import { fieldError } from "./jobs.ts";
import type { KeyEnv } from "#server/api/v1/env.ts";

/** A message's content as OpenAI's clients send it: a string, or parts (text and images are read). */
const content = z.union([
  z.string(),
  z.array(
    z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      image_url: z.union([z.string(), z.looseObject({ url: z.string() })]).optional(),
    }),
  ),
]);
type Content = z.output<typeof content>;

const textOf = (c: Content | null | undefined) =>
  typeof c === "string"
    ? c
    : (c ?? [])
        .filter((p) => p.type === "text")
        .map((p) => p.text ?? "")
        .join("\n");

/** The image addresses of a message's parts (a `data:` URL or an https address each). */
const imagesOf = (c: Content | null | undefined) =>
  typeof c === "string" || !c
    ? []
    : c
        .filter((p) => p.type === "image_url")
        .map((p) => (typeof p.image_url === "string" ? p.image_url : (p.image_url?.url ?? "")));

/** OpenAI's request; fields Atelier does not use (temperature, top_p, user…) are accepted and left. */
const request = z.looseObject({
  model: z.string().min(1).max(120),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(["system", "developer", "user", "assistant", "tool"]),
        content: content.nullable().optional(),
      }),
    )
    .min(1)
    .max(200),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: z.union([z.string(), z.looseObject({ type: z.string() })]).nullish(),
});
type Request = z.output<typeof request>;

/** What the request's parts and tools may not ask of the chat models here, refused by field. */
function refuseUnsupported(body: Request) {
  body.messages.forEach((m, i) => {
    if (m.role === "tool")
      throw fieldError(`messages.${i}.role`, "messages: no tool was called, so there is no tool result to send");
    if (Array.isArray(m.content)) {
      const other = m.content.find((p) => p.type !== "text" && p.type !== "image_url");
      if (other)
        throw fieldError(
          `messages.${i}.content`,
          `messages: ${other.type} parts are not read here; send text and image_url`,
        );
    }
  });
  if (body.tool_choice && body.tool_choice !== "auto" && body.tool_choice !== "none")
    throw fieldError("tool_choice", "tool_choice: the chat models here answer in words; send auto or none");
}

/** A `data:` URL's image, or the image at an https address (fetched with the studio's checks). */
async function imageBytes(url: string, field: string): Promise<Uint8Array> {
  const data = /^data:image\/[\w.+-]+;base64,([A-Za-z0-9+/=\s]+)$/.exec(url);
  if (data) return new Uint8Array(Buffer.from(data[1]!, "base64"));
  if (/^https?:\/\//i.test(url)) return fetchImageUrl(url);
  throw fieldError(field, "image_url: a data:image/…;base64 URL or an https address");
}

/**
 * The images of the question asked, kept as the account's input images (checked and re-encoded as uploads are) and
 * attached to it as the page attaches them. Earlier messages' images are not read again.
 */
async function attachmentsOf(c: Context<KeyEnv>, body: Request, model: { name: string; vision: boolean }) {
  const index = body.messages.findLastIndex((m) => m.role === "user");
  const urls = imagesOf(body.messages[index]?.content);
  if (urls.length === 0) return [];
  const field = `messages.${index}.content`;
  if (!model.vision) throw fieldError(field, `The model '${body.model}' does not read images`);
  if (urls.length > MAX_ATTACHMENTS) throw fieldError(field, `at most ${MAX_ATTACHMENTS} images in a message`);
  const { database, storage } = c.var.runtime;
  const parts: ChatPart[] = [];
  for (const url of urls) {
    const saved = await saveInputImage({
      db: database.db,
      storage,
      userId: c.var.apiUserId,
      bytes: await imageBytes(url, field),
    });
    parts.push({ type: "file", mediaType: saved.mimeType, assetId: saved.id, url: mediaUrl(saved.id, saved.mimeType) });
  }
  return parts;
}

/**
 * Saves an API request's messages as a conversation of the account's (never listed on the page), the system and
 * developer messages as its instructions, the others as one branch ending with the question to answer.
 */
async function conversationOf(db: Db, userId: string, body: Request, images: ChatPart[]) {
  const system = body.messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => textOf(m.content))
    .join("\n\n")
    .trim();
  const turns = body.messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => ({ role: m.role as "user" | "assistant", content: textOf(m.content) }));
  const last = turns.at(-1);
  if (!last || last.role !== "user" || !last.content.trim())
    throw new AppError("bad_request", "the last message must be the user's, with text", {
      values: { field: "messages" },
    });
  if (turns.some((m) => m.content.length > MAX_QUESTION_LENGTH * 4))
    throw new AppError("chat_message_invalid", "a message is too long", { values: { max: MAX_QUESTION_LENGTH * 4 } });
  return db.transaction(async (tx) => {
    const [conversation] = await tx
      .insert(chatConversation)
      .values({ userId, modelId: body.model, systemPrompt: system || null, source: "api" })
      .returning({ id: chatConversation.id });
    let parentId: string | null = null;
    for (const [i, m] of turns.entries()) {
      const text = m.content;
      const [row]: { id: string }[] = await tx
        .insert(chatMessage)
        .values({
          conversationId: conversation!.id,
          parentId,
          role: m.role,
          parts: [{ type: "text", text }, ...(i === turns.length - 1 ? images : [])],
          text,
          status: "done",
        })
        .returning({ id: chatMessage.id });
      parentId = row!.id;
    }
    await tx.update(chatConversation).set({ leafId: parentId }).where(eq(chatConversation.id, conversation!.id));
    return { conversationId: conversation!.id, parentId: parentId! };
  });
}

const finishReason = (outcome: AnswerOutcome) => (outcome.status === "out_of_credits" ? "length" : "stop");
const usageOf = (outcome: AnswerOutcome) => ({
  prompt_tokens: outcome.inputTokens,
  completion_tokens: outcome.outputTokens,
  total_tokens: outcome.inputTokens + outcome.outputTokens,
});

/**
 * `POST /v1/chat/completions`: the chat's own engine (the same hold, pricing, failover and exact charge as the page's
 * answers), streamed as OpenAI streams (`chat.completion.chunk`s, `[DONE]`, the usage chunk when asked) or answered
 * whole. What it cost is in `x-atelier-credits-charged` (a whole answer) and in the usage chunk's `atelier` field.
 */
export async function chatCompletions(c: Context<KeyEnv>) {
  const parsed = request.safeParse(await c.req.json().catch(() => null));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError("bad_request", issue?.message ?? "invalid request", {
      values: { field: issue?.path.join(".") || "body" },
    });
  }
  const body = parsed.data;
  const { runtime } = c.var;
  const userId = c.var.apiUserId;
  const model = offeredChatModels(runtime.env).find((m) => m.id === body.model);
  if (!model) throw new AppError("unknown_model", `The model '${body.model}' does not exist`);
  refuseUnsupported(body);

  const asked = await conversationOf(runtime.database.db, userId, body, await attachmentsOf(c, body, model));
  const deltas: string[] = [];
  let wake: (() => void) | undefined;
  const started = await startAnswer(
    {
      db: runtime.database.db,
      env: runtime.env,
      logger: c.var.logger,
      studio: { boss: runtime.boss, storage: runtime.storage, settings: runtime.settings },
    },
    {
      userId,
      ...asked,
      locale: "en",
      // The API answers in words: the studio's tools would start generations its caller never asked for.
      tools: false,
      onDelta: (text) => {
        deltas.push(text);
        wake?.();
      },
    },
  );
  const id = `chatcmpl-${started.messageId.replace(/-/g, "")}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: object, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: body.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  if (!body.stream) {
    const outcome = await started.done;
    if (outcome.status === "failed") throw new AppError("service_unavailable", "the model's provider did not answer");
    c.header("x-atelier-credits-charged", String(outcome.creditsCharged));
    return c.json({
      id,
      object: "chat.completion",
      created,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: outcome.text, refusal: null },
          finish_reason: finishReason(outcome),
        },
      ],
      usage: usageOf(outcome),
      atelier: { credits_charged: outcome.creditsCharged },
    });
  }

  let ended: AnswerOutcome | null = null;
  void started.done.then(
    (outcome) => {
      ended = outcome;
      wake?.();
    },
    () => wake?.(),
  );
  return streamSSE(c, async (sse) => {
    await sse.writeSSE({ data: JSON.stringify(chunk({ role: "assistant", content: "" })) });
    for (;;) {
      while (deltas.length > 0) await sse.writeSSE({ data: JSON.stringify(chunk({ content: deltas.shift()! })) });
      if (ended) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (deltas.length > 0 || ended) resolve();
      });
      wake = undefined;
    }
    const outcome: AnswerOutcome = ended!;
    if (outcome.status === "failed") {
      await sse.writeSSE({
        data: JSON.stringify({
          error: { message: "The model's provider did not answer.", type: "server_error", code: outcome.errorCode },
        }),
      });
    } else {
      await sse.writeSSE({ data: JSON.stringify(chunk({}, finishReason(outcome))) });
      if (body.stream_options?.include_usage)
        await sse.writeSSE({
          data: JSON.stringify({
            ...chunk({}),
            choices: [],
            usage: usageOf(outcome),
            atelier: { credits_charged: outcome.creditsCharged },
          }),
        });
    }
    await sse.writeSSE({ data: "[DONE]" });
  });
}
