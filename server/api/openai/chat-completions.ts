import type { Context } from "hono";
import { setTimeout as sleep } from "node:timers/promises";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import { AppError } from "#server/errors.ts";
import type { ToolChoice, ToolSet } from "ai";
import { CLIENT_TOOL_PART, startAnswer, type AnswerOutcome, type ClientTool } from "#server/modules/chat/answer.ts";
import { currentPlan, requireApiAllowed, requireModelAllowed } from "#server/modules/billing/entitlements.ts";
import { createApiConversation, MAX_QUESTION_LENGTH, type ApiTurn } from "#server/modules/chat/conversations.ts";
import { MAX_ATTACHMENTS } from "#config/chat-models.ts";
import type { ChatPart } from "#server/db/schema/index.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { fetchImageUrl } from "#server/modules/generation/fetch-image-url.ts";
import { mediaUrl } from "#server/modules/generation/get-generation.ts";
import { fieldError, parseFields } from "./jobs.ts";
import { readAnswer } from "#server/modules/chat/read-answer.ts";
import type { RetryEnv } from "./retries.ts";

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
        /** An assistant's calls of the caller's tools. */
        tool_calls: z
          .array(
            z.looseObject({
              id: z.string().min(1).max(200),
              type: z.literal("function").optional(),
              function: z.looseObject({ name: z.string().min(1).max(64), arguments: z.string().max(100_000) }),
            }),
          )
          .max(64)
          .nullish(),
        /** The call a `tool` message answers. */
        tool_call_id: z.string().max(200).nullish(),
      }),
    )
    .min(1)
    .max(200),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  tools: z
    .array(
      z.looseObject({
        type: z.literal("function"),
        function: z.looseObject({
          name: z.string().regex(/^[\w-]{1,64}$/, "letters, digits, _ and -, at most 64"),
          description: z.string().max(8000).optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .max(64)
    .nullish(),
  tool_choice: z
    .union([
      z.enum(["none", "auto", "required"]),
      z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
    ])
    .nullish(),
});
type Request = z.output<typeof request>;

/** What the request's parts and tools may not ask of the model, refused by field. */
function refuseUnsupported(body: Request, model: { tools: boolean }) {
  body.messages.forEach((m, i) => {
    if (Array.isArray(m.content)) {
      const other = m.content.find((p) => p.type !== "text" && p.type !== "image_url");
      if (other)
        throw fieldError(
          `messages.${i}.content`,
          `messages: ${other.type} parts are not read here; send text and image_url`,
        );
    }
  });
  const choice = body.tool_choice;
  const forced = choice === "required" || typeof choice === "object";
  if (forced && !body.tools?.length) throw fieldError("tool_choice", "tool_choice: send the tools to choose from");
  if (forced && !model.tools) throw fieldError("tool_choice", `The model '${body.model}' does not call tools`);
  if (typeof choice === "object" && choice && !body.tools?.some((t) => t.function.name === choice.function.name))
    throw fieldError("tool_choice", `tool_choice: no tool named '${choice.function.name}' was sent`);
}

/** The caller's tools and its choice, as the chat's engine takes them. */
function toolsOf(body: Request): { clientTools?: ClientTool[]; toolChoice?: ToolChoice<ToolSet> } {
  if (!body.tools?.length) return {};
  const choice = body.tool_choice;
  return {
    clientTools: body.tools.map((t) => ({
      name: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters,
    })),
    toolChoice:
      typeof choice === "object" && choice ? { type: "tool", toolName: choice.function.name } : (choice ?? "auto"),
  };
}

/** A call's arguments, which OpenAI's clients send as JSON text. */
function argumentsOf(text: string, field: string): unknown {
  try {
    return JSON.parse(text || "{}");
  } catch {
    throw fieldError(field, "function.arguments: JSON text");
  }
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
async function attachmentsOf(c: Context<RetryEnv>, body: Request, model: { name: string; vision: boolean }) {
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
 * The request's messages as turns of a conversation: each assistant's calls of the caller's tools saved in its parts,
 * with what the `tool` messages after it returned.
 */
function turnsOf(body: Request): ApiTurn[] {
  const turns: ApiTurn[] = [];
  body.messages.forEach((m, i) => {
    if (m.role === "system" || m.role === "developer") return;
    if (m.role === "tool") {
      const call = turns
        .at(-1)
        ?.parts.find((p) => p.type === CLIENT_TOOL_PART && p.toolCallId === m.tool_call_id && p.output === undefined);
      if (!call)
        throw fieldError(`messages.${i}.tool_call_id`, "a tool message must answer a call of the assistant before it");
      call.output = textOf(m.content);
      return;
    }
    const text = textOf(m.content);
    const calls: ChatPart[] = (m.role === "assistant" ? (m.tool_calls ?? []) : []).map((call, j) => ({
      type: CLIENT_TOOL_PART,
      toolCallId: call.id,
      toolName: call.function.name,
      input: argumentsOf(call.function.arguments, `messages.${i}.tool_calls.${j}.function.arguments`),
    }));
    turns.push({ role: m.role, text, parts: [...(text ? [{ type: "text", text }] : []), ...calls] });
  });
  const last = turns.at(-1);
  const answered =
    last?.role === "assistant" &&
    last.parts.some((p) => p.type === CLIENT_TOOL_PART) &&
    last.parts.every((p) => p.type !== CLIENT_TOOL_PART || p.output !== undefined);
  if (!last || (last.role === "user" ? !last.text.trim() : !answered))
    throw new AppError(
      "bad_request",
      "the last message must be the user's, with text, or the results of the assistant's tool calls",
      {
        values: { field: "messages" },
      },
    );
  if (turns.some((t) => JSON.stringify(t.parts).length > MAX_QUESTION_LENGTH * 8))
    throw new AppError("chat_message_invalid", "a message is too long", { values: { max: MAX_QUESTION_LENGTH * 4 } });
  return turns;
}

/**
 * Saves an API request's messages as a conversation of the account's (never listed on the page), the system and
 * developer messages as its instructions, the others as one branch ending with what is to be answered.
 */
async function conversationOf(db: Db, userId: string, apiKeyId: string, body: Request, turns: ApiTurn[]) {
  const system = body.messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => textOf(m.content))
    .join("\n\n")
    .trim();
  return createApiConversation({
    db,
    userId,
    modelId: body.model,
    systemPrompt: system || null,
    turns,
    apiKeyId,
  });
}

/** How an answer ended, as the stream's last chunks say it (an answer being written, or one saved). */
type Ending = Pick<
  AnswerOutcome,
  "status" | "toolCalls" | "inputTokens" | "outputTokens" | "creditsCharged" | "errorCode"
>;

const finishReason = (outcome: Ending) =>
  outcome.toolCalls ? "tool_calls" : outcome.status === "out_of_credits" ? "length" : "stop";

/** A call of the caller's tool in OpenAI's shape (`index` in a stream's delta). */
const toolCallOf = (part: ChatPart, index?: number) => ({
  ...(index === undefined ? {} : { index }),
  id: part.toolCallId as string,
  type: "function" as const,
  function: { name: part.toolName as string, arguments: JSON.stringify(part.input ?? {}) },
});
const usageOf = (outcome: Ending) => ({
  prompt_tokens: outcome.inputTokens,
  completion_tokens: outcome.outputTokens,
  total_tokens: outcome.inputTokens + outcome.outputTokens,
});

/** What a streamed answer's key keeps: the answer's message, and what its chunks say besides (see replayChatStream). */
interface KeptStream {
  messageId: string;
  id: string;
  created: number;
  model: string;
  includeUsage: boolean;
}

/** A stream's chunk of an answer. */
const chunkOf =
  (kept: Omit<KeptStream, "messageId" | "includeUsage">) =>
  (delta: object, finish: string | null = null) => ({
    id: kept.id,
    object: "chat.completion.chunk",
    created: kept.created,
    model: kept.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

/** The last chunks of a stream: the finish reason (or the failure), the usage when asked, `[DONE]`. */
async function endStream(sse: SSEStreamingApi, kept: Omit<KeptStream, "messageId">, outcome: Ending) {
  const chunk = chunkOf(kept);
  if (outcome.status === "failed") {
    await sse.writeSSE({
      data: JSON.stringify({
        error: { message: "The model's provider did not answer.", type: "server_error", code: outcome.errorCode },
      }),
    });
  } else {
    await sse.writeSSE({ data: JSON.stringify(chunk({}, finishReason(outcome))) });
    if (kept.includeUsage)
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
}

/** How often a repeated stream reads the answer it repeats while that answer is still being written. */
const REPLAY_POLL_MS = 200;

/**
 * A streamed answer sent again to its request repeated (the same `Idempotency-Key`, or an SDK's retry after its
 * first attempt's answer was lost): the same chunks from the saved answer, while it is still being written as it
 * grows, charging nothing more. Null when the answer failed (it charged nothing, and the request runs again) or is
 * gone.
 */
export async function replayChatStream(c: Context<RetryEnv>, kept: KeptStream): Promise<Response | null> {
  const db = c.var.runtime.database.db;
  const owner = { db, userId: c.var.apiUserId, messageId: kept.messageId };
  const first = await readAnswer(owner);
  if (!first || first.status === "failed") return null;
  const chunk = chunkOf(kept);
  c.header("Idempotent-Replayed", "true");
  c.header("x-atelier-credits-charged", "0");
  return streamSSE(c, async (sse) => {
    await sse.writeSSE({ data: JSON.stringify(chunk({ role: "assistant", content: "" })) });
    let answer = first;
    let sent = 0;
    for (;;) {
      // The saved text only grows while the answer is written: what is new since the last read is sent.
      if (answer.text.length > sent) {
        await sse.writeSSE({ data: JSON.stringify(chunk({ content: answer.text.slice(sent) })) });
        sent = answer.text.length;
      }
      if (answer.status !== "streaming" || sse.aborted) break;
      await sleep(REPLAY_POLL_MS);
      // An answer whose writer died is ended by the sweep, failed: the read is never null for long.
      answer = (await readAnswer(owner)) ?? { ...answer, status: "failed", errorCode: "interrupted" };
    }
    if (sse.aborted) return;
    const calls = answer.parts.filter((p) => p.type === CLIENT_TOOL_PART);
    for (const [index, call] of calls.entries())
      await sse.writeSSE({ data: JSON.stringify(chunk({ tool_calls: [toolCallOf(call, index)] })) });
    await endStream(sse, kept, { ...answer, status: answer.status as Ending["status"], toolCalls: calls.length > 0 });
  });
}

/**
 * `POST /v1/chat/completions`: the chat's own engine (the same hold, pricing, failover and exact charge as the page's
 * answers), streamed as OpenAI streams (`chat.completion.chunk`s, `[DONE]`, the usage chunk when asked) or answered
 * whole. What it cost is in `x-atelier-credits-charged` (a whole answer) and in the usage chunk's `atelier` field.
 * A streamed answer's key keeps its message: the request repeated gets the same stream, charged once.
 */
export async function chatCompletions(c: Context<RetryEnv>) {
  const body = parseFields(request, await c.req.json().catch(() => null));
  const { runtime } = c.var;
  const userId = c.var.apiUserId;
  const model = runtime.models.findChat(body.model);
  if (!model) throw new AppError("unknown_model", `The model '${body.model}' does not exist`);
  refuseUnsupported(body, model);
  // The API and a model reserved to a plan the key's account is not on: refused before any message or image is kept.
  const mine = await currentPlan(runtime.database.db, userId);
  await requireApiAllowed(runtime.database.db, { id: userId }, mine);
  await requireModelAllowed(runtime.database.db, { id: userId }, model, undefined, mine);

  // The messages are checked before any image is kept: a refused request leaves no file behind.
  const turns = turnsOf(body);
  const question = turns.at(-1)!;
  if (question.role === "user") question.parts.push(...(await attachmentsOf(c, body, model)));
  const asked = await conversationOf(runtime.database.db, userId, c.var.apiKeyId, body, turns);
  // What the answer writes, in order: its words, and its calls of the caller's tools.
  const deltas: ({ text: string } | { call: ChatPart })[] = [];
  let wake: (() => void) | undefined;
  const started = await startAnswer(
    {
      db: runtime.database.db,
      env: runtime.env,
      logger: c.var.logger,
      models: runtime.models,
      studio: { boss: runtime.boss, storage: runtime.storage, settings: runtime.settings, models: runtime.models },
    },
    {
      userId,
      ...asked,
      locale: "en",
      // The studio's tools would start generations the caller never asked for; its own tools are offered instead.
      tools: false,
      ...toolsOf(body),
      onDelta: (text) => {
        deltas.push({ text });
        wake?.();
      },
      onToolCall: (call) => {
        deltas.push({ call });
        wake?.();
      },
    },
  );
  const kept: KeptStream = {
    messageId: started.messageId,
    id: `chatcmpl-${started.messageId.replace(/-/g, "")}`,
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    includeUsage: Boolean(body.stream_options?.include_usage),
  };
  const chunk = chunkOf(kept);

  if (!body.stream) {
    const outcome = await started.done;
    if (outcome.status === "failed") throw new AppError("service_unavailable", "the model's provider did not answer");
    const calls = outcome.parts.filter((p) => p.type === CLIENT_TOOL_PART);
    c.header("x-atelier-credits-charged", String(outcome.creditsCharged));
    return c.json({
      id: kept.id,
      object: "chat.completion",
      created: kept.created,
      model: body.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: outcome.text || (calls.length > 0 ? null : ""),
            refusal: null,
            ...(calls.length > 0 ? { tool_calls: calls.map((call) => toolCallOf(call)) } : {}),
          },
          finish_reason: finishReason(outcome),
        },
      ],
      usage: usageOf(outcome),
      atelier: { credits_charged: outcome.creditsCharged },
    });
  }

  // The key keeps the answer's message before the first chunk is sent: a client that never saw the stream begin
  // (its connection dropped) and asks again gets this answer, not a second one.
  c.set("claimedAnswer", { kind: "kept", answerKind: "chat_stream", status: 200, body: JSON.stringify(kept) });
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
    let calls = 0;
    for (;;) {
      while (deltas.length > 0) {
        const next = deltas.shift()!;
        const delta = "text" in next ? { content: next.text } : { tool_calls: [toolCallOf(next.call, calls++)] };
        await sse.writeSSE({ data: JSON.stringify(chunk(delta)) });
      }
      if (ended) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (deltas.length > 0 || ended) resolve();
      });
      wake = undefined;
    }
    await endStream(sse, kept, ended!);
  });
}
