import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { chatConversation, chatMessage } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { startAnswer, type AnswerOutcome } from "#server/modules/chat/answer.ts";
import { MAX_QUESTION_LENGTH } from "#server/modules/chat/conversations.ts";
import { offeredChatModels } from "#config/chat-models.ts";
import type { KeyEnv } from "#server/api/v1/env.ts";

/** A message's content as OpenAI's clients send it: a string, or parts of which the text ones are read. */
const content = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).transform((parts) =>
    parts
      .filter((p) => p.type === "text")
      .map((p) => p.text ?? "")
      .join("\n"),
  ),
]);

/** OpenAI's request; fields Atelier does not use (temperature, top_p, user…) are accepted and left. */
const request = z.looseObject({
  model: z.string().min(1).max(120),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(["system", "developer", "user", "assistant"]),
        content: content.nullable().optional(),
      }),
    )
    .min(1)
    .max(200),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});

/**
 * Saves an API request's messages as a conversation of the account's (never listed on the page), the system and
 * developer messages as its instructions, the others as one branch ending with the question to answer.
 */
async function conversationOf(db: Db, userId: string, body: z.output<typeof request>) {
  const system = body.messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => m.content ?? "")
    .join("\n\n")
    .trim();
  const turns = body.messages.filter((m) => m.role === "user" || m.role === "assistant");
  const last = turns.at(-1);
  if (!last || last.role !== "user" || !last.content?.trim())
    throw new AppError("bad_request", "the last message must be the user's, with text", {
      values: { field: "messages" },
    });
  if (turns.some((m) => (m.content ?? "").length > MAX_QUESTION_LENGTH * 4))
    throw new AppError("chat_message_invalid", "a message is too long", { values: { max: MAX_QUESTION_LENGTH * 4 } });
  return db.transaction(async (tx) => {
    const [conversation] = await tx
      .insert(chatConversation)
      .values({ userId, modelId: body.model, systemPrompt: system || null, source: "api" })
      .returning({ id: chatConversation.id });
    let parentId: string | null = null;
    for (const m of turns) {
      const text = m.content ?? "";
      const [row]: { id: string }[] = await tx
        .insert(chatMessage)
        .values({
          conversationId: conversation!.id,
          parentId,
          role: m.role as "user" | "assistant",
          parts: [{ type: "text", text }],
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
  if (!offeredChatModels(runtime.env).some((m) => m.id === body.model))
    throw new AppError("unknown_model", `The model '${body.model}' does not exist`);

  const asked = await conversationOf(runtime.database.db, userId, body);
  const deltas: string[] = [];
  let wake: (() => void) | undefined;
  const started = await startAnswer(
    { db: runtime.database.db, env: runtime.env, logger: c.var.logger },
    {
      userId,
      ...asked,
      locale: "en",
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
