import { randomUUID } from "node:crypto";
import { and, eq, exists, isNull, lt, sql } from "drizzle-orm";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { jsonSchema, stepCountIs, streamText, tool, type ModelMessage, type ToolChoice, type ToolSet } from "ai";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import {
  asset,
  chatConversation,
  chatMessage,
  type ChatMessageStatus,
  type ChatPart,
} from "#server/db/schema/index.ts";
import type { Storage } from "#server/storage/storage.ts";
import { getBalance, holdInTx, settleHoldInTx } from "#server/modules/credits/ledger.ts";
import { requestTopUp } from "#server/modules/billing/auto-topup.ts";
import { AppError } from "#server/errors.ts";
import { chatLanguageModel } from "#server/providers/chat.ts";
import type { ConnectionSource } from "#server/providers/index.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { classifyProviderError } from "#server/providers/errors.ts";
import { branchTo, titleFrom } from "./conversations.ts";
import { requireModelAllowed } from "#server/modules/billing/entitlements.ts";
import { conversationImages, studioTools, type ChatToolDeps, type ConversationImage } from "./tools.ts";
import {
  chatCost,
  answerPlan,
  estimateInput,
  estimateTokens,
  type ChatModel,
  type ResolvedChatBinding,
} from "#config/chat-models.ts";
import type { Locale } from "#common/locales.ts";

export interface AnswerDeps {
  db: Db;
  env: Env;
  logger: Logger;
  /** The chat models and the connections they run on. */
  models: ModelRegistry;
  /** The language model for a binding; tests pass their own. */
  languageModel?: (binding: ResolvedChatBinding, connections: ConnectionSource) => Promise<LanguageModelV4>;
  /** The studio's engine: with it, a model that calls tools may start images and videos (see tools.ts). */
  studio?: Omit<ChatToolDeps, "db" | "env">;
}

/** How an answer ended, as saved. */
export interface AnswerOutcome {
  status: Exclude<ChatMessageStatus, "streaming">;
  text: string;
  parts: ChatPart[];
  /** The answer ended by calling the caller's tools (its parts hold the calls). */
  toolCalls: boolean;
  inputTokens: number;
  outputTokens: number;
  creditsCharged: number;
  errorCode: string | null;
}

/**
 * A tool its caller defines and runs itself (the OpenAI-compatible API's `tools`): the model may call it, the answer
 * then ends with the call, and the caller sends what it returned in its next request.
 */
export interface ClientTool {
  name: string;
  description?: string;
  /** Its arguments' JSON Schema. */
  parameters?: Record<string, unknown>;
}

/** A call of a caller's tool, as an answer saves it (`output` once the caller sent it back). */
export const CLIENT_TOOL_PART = "client-tool";

export interface StartedAnswer {
  messageId: string;
  /** What was held for the answer: its input and as many output tokens as the model (or the balance) allows. */
  creditsHeld: number;
  done: Promise<AnswerOutcome>;
}

/** How often a growing answer is saved, so that a refresh or another process can show it. */
const SAVE_EVERY_MS = 300;
/** How often a running answer proves it is alive, and how long without a sign of life ends it (see sweepAnswers). */
const HEARTBEAT_MS = 20_000;
export const ANSWER_STALE_MS = 2 * 60_000;
/**
 * What a model is asked after the part of an answer it wrote before it was cut (stopped, or out of credits): the
 * answer is continued as the same answer, not started again.
 */
export const CONTINUE_INSTRUCTION =
  "Continue your previous answer exactly where it stopped. Do not repeat anything already written and do not comment on the interruption.";

/** Answers this process is writing, to be stopped by their author. */
const running = new Map<string, { userId: string; controller: AbortController }>();

/**
 * Starts the answer to a question of a conversation (or the continuation of an answer that was cut: stopped, or
 * ended when the credits ran out; it is written as the cut answer's child and shown as one answer with it): reads
 * the branch, holds the credits its input and
 * output may cost (fewer output tokens when the balance pays for fewer), saves the answer as `streaming`, and writes
 * it in the background, independent of any connection, saving it as it grows. When it ends it is charged exactly
 * once for what it used (never more than was held), in the transaction that saves its end; a failure charges
 * nothing. `onDelta` receives the text as it comes.
 */
export async function startAnswer(
  deps: AnswerDeps,
  a: {
    userId: string;
    /** The account's role when the caller knows it (read from the account otherwise, when it matters). */
    role?: string | null;
    conversationId: string;
    /** The question to answer, or the cut answer to continue. */
    parentId: string;
    locale: Locale;
    onDelta?: (text: string) => void;
    /** A tool call and what it did (see tools.ts), as it happens. */
    onTool?: (part: ChatPart) => void;
    /** Offer the studio's tools to a model that calls tools (the page's answers); false answers in words only. */
    tools?: boolean;
    /** The caller's own tools (instead of the studio's), and whether the model may, must or must not call them. */
    clientTools?: ClientTool[];
    toolChoice?: ToolChoice<ToolSet>;
    /** A call of a caller's tool, as the model makes it. */
    onToolCall?: (part: ChatPart) => void;
  },
): Promise<StartedAnswer> {
  const { db } = deps;
  const [conversation] = await db
    .select()
    .from(chatConversation)
    .where(and(eq(chatConversation.id, a.conversationId), eq(chatConversation.userId, a.userId)));
  if (!conversation) throw new AppError("not_found", "no such conversation");
  // The conversation's model as offered now; one visible to administrators only was chosen by one.
  const model = deps.models.findChat(conversation.modelId, { admin: true });
  if (!model) throw new AppError("unknown_model", `chat model ${conversation.modelId} is not offered`);
  // Reserved to a plan the account is not (or no longer) on: refused before anything is held.
  await requireModelAllowed(db, { id: a.userId, role: a.role }, model, a.locale);

  const branch = await branchTo(db, a.conversationId, a.parentId);
  const last = branch.at(-1)!;
  // An answer whose caller's tools were called and answered is followed by a new answer, not continued.
  const continuing = last.role === "assistant" && !last.parts.some((p) => p.type === CLIENT_TOOL_PART);
  if (continuing && last.status !== "stopped" && last.status !== "out_of_credits")
    throw new AppError("conflict", "only an answer that was cut is continued");
  const read = modelMessages(branch);
  if (continuing) read.push({ role: "user", content: CONTINUE_INSTRUCTION, images: [] });
  const system = conversation.systemPrompt ?? undefined;
  // A model that reads images gets those of the question asked (read from storage; the earlier ones stay named in
  // the text); any other one reads their ids in the text only.
  const seeing = model.vision && deps.studio !== undefined;
  const lastQuestion = read.findLastIndex((m) => m.role === "user" && m.images.length > 0);
  const shownImages = seeing && lastQuestion === read.length - 1 ? read[lastQuestion]!.images.length : 0;
  const clientTools = a.clientTools && a.clientTools.length > 0 && model.tools ? a.clientTools : undefined;
  const inputTokens = estimateInput(
    system,
    [
      ...read.map((m) => m.content + (m.calls ? JSON.stringify(m.calls) : "")),
      ...(clientTools ? [JSON.stringify(clientTools)] : []),
    ],
    shownImages,
  );
  // The studio's tools are offered to a model that calls tools, never to a continuation (it would call them again).
  const withTools =
    deps.studio !== undefined && model.tools && !continuing && a.tools !== false && clientTools === undefined;

  const { available } = await getBalance({ db, userId: a.userId });
  const plan = answerPlan(model, inputTokens, available, withTools);
  if (!plan) throw new AppError("insufficient_credits", "not enough credits to answer");

  const messages: ModelMessage[] = (
    await Promise.all(
      read.map(async (m, i): Promise<ModelMessage[]> => {
        if (m.role === "assistant" && m.calls) return callMessages(m.content, m.calls);
        if (m.role === "user" && shownImages > 0 && i === read.length - 1)
          return [
            {
              role: "user" as const,
              content: [
                { type: "text" as const, text: m.content },
                ...(await Promise.all(m.images.map((id) => imageFor(deps, deps.studio!.storage, a.userId, id)))).flat(),
              ],
            },
          ];
        return [{ role: m.role, content: m.content }];
      }),
    )
  ).flat();

  const messageId = randomUUID();
  const holdId = await db.transaction(async (tx) => {
    // The ledger checks the balance again under its lock: a concurrent spend makes this fail, not go negative.
    const { holdId } = await holdInTx(tx, {
      userId: a.userId,
      amount: plan.credits,
      reference: `chat:${messageId}`,
      idempotencyKey: `chat_hold:${messageId}`,
    });
    await tx.insert(chatMessage).values({
      id: messageId,
      conversationId: a.conversationId,
      parentId: a.parentId,
      role: "assistant",
      parts: [],
      status: "streaming",
      modelId: model.id,
      creditsHeld: plan.credits,
      holdId,
    });
    await tx
      .update(chatConversation)
      .set({ leafId: messageId, updatedAt: new Date() })
      .where(eq(chatConversation.id, a.conversationId));
    return holdId;
  });
  // The hold may have taken the account below its automatic top-up's threshold: queue it now, not at the next scan.
  if (deps.studio) await requestTopUp({ db, boss: deps.studio.boss, userId: a.userId }).catch(() => false);

  const controller = new AbortController();
  running.set(messageId, { userId: a.userId, controller });
  const done = write(deps, {
    messageId,
    holdId,
    conversationId: a.conversationId,
    // The first answer that ends well names the conversation after its first question.
    title: conversation.title ? undefined : titleFrom(branch[0]!.text),
    model,
    system,
    messages,
    inputTokens,
    plan,
    withTools,
    clientTools,
    toolChoice: clientTools ? a.toolChoice : undefined,
    locale: a.locale,
    continuing,
    userId: a.userId,
    images: conversationImages(branch),
    signal: controller.signal,
    stop: () => controller.abort(),
    onDelta: a.onDelta,
    onTool: a.onTool,
    onToolCall: a.onToolCall,
  }).finally(() => running.delete(messageId));
  return { messageId, creditsHeld: plan.credits, done };
}

/**
 * Stops an answer of the account's: what was written is kept and charged. Written here, it stops at once; written
 * by another process, the request is saved and that process stops it when it next saves (within a fraction of a
 * second). False when the answer has already ended.
 */
export async function stopAnswer({ db, userId, messageId }: { db: Db; userId: string; messageId: string }) {
  const entry = running.get(messageId);
  if (entry && entry.userId === userId) {
    entry.controller.abort();
    return true;
  }
  const [asked] = await db
    .update(chatMessage)
    .set({ stopRequestedAt: new Date() })
    .where(
      and(
        eq(chatMessage.id, messageId),
        eq(chatMessage.status, "streaming"),
        exists(
          db
            .select({ one: sql`1` })
            .from(chatConversation)
            .where(
              and(sql`${chatConversation.id} = ${chatMessage.conversationId}`, eq(chatConversation.userId, userId)),
            ),
        ),
      ),
    )
    .returning({ id: chatMessage.id });
  return asked !== undefined;
}

/**
 * A branch as the model reads it: questions (with the ids of the images they show, which the studio's tools take),
 * and answers with what they wrote (a failed answer that wrote nothing is left out); an answer and its
 * continuations are one answer.
 */
function modelMessages(branch: Awaited<ReturnType<typeof branchTo>>): ReadMessage[] {
  const messages: ReadMessage[] = [];
  for (const m of branch) {
    if (m.role === "user") {
      const images = m.parts.filter((p) => p.type === "file").map((p) => String(p.assetId));
      const notes = images.map((id) => `\n\n[Attached image: ${id}]`).join("");
      messages.push({ role: "user", content: m.text + notes, images });
      continue;
    }
    const calls = m.parts.filter((p) => p.type === CLIENT_TOOL_PART) as unknown as ClientCall[];
    if (calls.length > 0) {
      // The calls of the caller's tools, with what they returned: read as the calls and their results.
      messages.push({ role: "assistant", content: m.text, images: [], calls });
      continue;
    }
    const text = withToolNotes(m.parts);
    if (m.status === "failed" || text === "") continue;
    const previous = messages.at(-1);
    if (previous?.role === "assistant" && !previous.calls) previous.content += text;
    else messages.push({ role: "assistant", content: text, images: [] });
  }
  return messages;
}

/** A message as the model reads it, before it is one of the AI SDK's. */
interface ReadMessage {
  role: "user" | "assistant";
  content: string;
  images: string[];
  calls?: ClientCall[];
}

/** A caller's tool call as saved in an answer's parts. */
interface ClientCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  output?: unknown;
}

/** An answer that called the caller's tools: its words and calls, then what each call returned. */
function callMessages(text: string, calls: ClientCall[]): ModelMessage[] {
  const answered = calls.filter((c) => c.output !== undefined);
  return [
    {
      role: "assistant",
      content: [
        ...(text ? [{ type: "text" as const, text }] : []),
        ...calls.map((c) => ({
          type: "tool-call" as const,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: c.input,
        })),
      ],
    },
    ...(answered.length > 0
      ? [
          {
            role: "tool" as const,
            content: answered.map((c) => ({
              type: "tool-result" as const,
              toolCallId: c.toolCallId,
              toolName: c.toolName,
              output:
                typeof c.output === "string"
                  ? { type: "text" as const, value: c.output }
                  : { type: "json" as const, value: c.output as never },
            })),
          },
        ]
      : []),
  ];
}

/**
 * An attached image's bytes for a model that reads images (the account's own only). A question is never answered
 * without the image it shows: one that is gone (deleted since, or no object under its key, as on a process whose
 * storage is not the one it was uploaded to) refuses the answer, asking for it again; a storage that fails to
 * answer refuses it as unavailable for now. Either way before any credit is held.
 */
async function imageFor(deps: AnswerDeps, storage: Storage, userId: string, assetId: string) {
  const [row] = await deps.db
    .select({ key: asset.storageKey, mimeType: asset.mimeType })
    .from(asset)
    .where(and(eq(asset.id, assetId), eq(asset.userId, userId)));
  if (!row) throw new AppError("chat_attachments_invalid", `attached image ${assetId} was deleted`);
  let image: Uint8Array;
  try {
    const file = await storage.get(row.key);
    if (!file) {
      deps.logger.error({ assetId, storageKey: row.key }, "attached image missing from storage: question not answered");
      throw new AppError("chat_attachments_invalid", `storage holds no object ${row.key}`);
    }
    image = new Uint8Array(await new Response(file.body).arrayBuffer());
  } catch (error) {
    if (error instanceof AppError) throw error;
    deps.logger.warn({ assetId, storageKey: row.key, err: (error as Error).message }, "attached image not read");
    throw new AppError("service_unavailable", `storage failed reading ${row.key}`);
  }
  return [{ type: "image" as const, image, mediaType: row.mimeType }];
}

/**
 * An answer's text as the model reads it again: its tool calls are noted in the text (what was made, with the
 * generation's id to change it later), since what a tool did then is not replayed as a call.
 */
function withToolNotes(parts: ChatPart[]): string {
  return parts
    .map((p) => {
      if (p.type === "text") return p.text as string;
      const output = p.output as { status?: string; generationId?: string; prompt?: string } | undefined;
      if (!p.type.startsWith("tool-") || !output) return "";
      const what = p.type.slice("tool-".length);
      return `\n\n[${what}: ${output.status}${output.generationId ? `, generation ${output.generationId}` : ""}${output.prompt ? `, prompt: ${JSON.stringify(output.prompt)}` : ""}]\n\n`;
    })
    .join("");
}

async function write(
  deps: AnswerDeps,
  w: {
    messageId: string;
    holdId: string;
    conversationId: string;
    title: string | undefined;
    model: ChatModel;
    system: string | undefined;
    messages: ModelMessage[];
    inputTokens: number;
    plan: NonNullable<ReturnType<typeof answerPlan>>;
    withTools: boolean;
    clientTools?: ClientTool[];
    toolChoice?: ToolChoice<ToolSet>;
    locale: Locale;
    continuing: boolean;
    userId: string;
    images: ConversationImage[];
    signal: AbortSignal;
    stop: () => void;
    onDelta?: (text: string) => void;
    onTool?: (part: ChatPart) => void;
    onToolCall?: (part: ChatPart) => void;
  },
): Promise<AnswerOutcome> {
  const { db, env, logger } = deps;
  let text = "";
  // The answer's parts in order: its text, and the tools it called with what they did between two texts.
  const parts: ChatPart[] = [];
  // The saved text (searched, read back by a resumed stream, read by the model) puts a blank line between two texts.
  const addText = (delta: string) => {
    const last = parts.at(-1);
    const between = last && last.type !== "text" && text !== "" ? "\n\n" : "";
    text += between + delta;
    if (between) w.onDelta?.(between);
    if (last?.type === "text") last.text = (last.text as string) + delta;
    else parts.push({ type: "text", text: delta });
  };
  let savedAt = Date.now();
  let saving: Promise<unknown> = Promise.resolve();
  const saveProgress = () => {
    savedAt = Date.now();
    const snapshot = text;
    const partsNow = structuredClone(parts);
    saving = saving
      .then(() =>
        db
          .update(chatMessage)
          .set({ parts: partsNow, text: snapshot, updatedAt: new Date() })
          .where(and(eq(chatMessage.id, w.messageId), eq(chatMessage.status, "streaming")))
          .returning({ stopRequested: chatMessage.stopRequestedAt }),
      )
      // A stop asked through another process (the author's request reached another server) is seen here.
      .then(([row]) => {
        if (row?.stopRequested) w.stop();
      });
  };

  // A heartbeat while the answer is written, even when no text comes for a while (a model thinking): an answer
  // whose heartbeat stops (its process died) is ended by the sweep, its credits released.
  const heartbeat = setInterval(() => {
    if (Date.now() - savedAt >= HEARTBEAT_MS) saveProgress();
  }, HEARTBEAT_MS);
  heartbeat.unref();

  let outcome: {
    status: AnswerOutcome["status"];
    input?: number;
    output?: number;
    errorCode?: string;
    toolCalls?: boolean;
  } = {
    status: "failed",
    errorCode: "provider_unavailable",
  };
  // Each binding in turn while nothing has been written: a provider's failure moves on to the next one.
  for (const binding of w.model.bindings) {
    try {
      const languageModel = await (deps.languageModel ?? chatLanguageModel)(binding, deps.models);
      const tools: ToolSet | undefined = w.clientTools
        ? callerTools(w.clientTools)
        : deps.studio && w.withTools
          ? studioTools(
              { ...deps.studio, db, env },
              {
                userId: w.userId,
                messageId: w.messageId,
                locale: w.locale,
                preferOffline: Boolean(w.model.offline),
                signal: w.signal,
                images: w.images,
              },
            )
          : undefined;
      const result = streamText({
        model: languageModel,
        system: w.system,
        messages: w.messages,
        tools,
        ...(w.toolChoice ? { toolChoice: w.toolChoice } : {}),
        // A call, then the model's words on what it did (see answerPlan); a caller's tools are run by the caller.
        stopWhen: stepCountIs(w.clientTools ? 1 : 2),
        maxOutputTokens: w.plan.stepOutputTokens,
        maxRetries: 0,
        abortSignal: w.signal,
        providerOptions: { demo: { locale: w.locale, continuing: w.continuing } },
        // Errors arrive as parts of the stream below, where they are handled; the SDK would also print them.
        onError: () => undefined,
      });
      let finished: { reason: string; input?: number; output?: number } | undefined;
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") {
          addText(part.text);
          w.onDelta?.(part.text);
          if (Date.now() - savedAt >= SAVE_EVERY_MS) saveProgress();
        } else if (part.type === "tool-call" && w.clientTools) {
          const call: ChatPart = {
            type: CLIENT_TOOL_PART,
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
          };
          parts.push(call);
          w.onToolCall?.(call);
        } else if (part.type === "tool-result" || part.type === "tool-error") {
          const toolPart: ChatPart = {
            type: `tool-${part.toolName}`,
            toolCallId: part.toolCallId,
            input: part.input,
            ...(part.type === "tool-result"
              ? { state: "output-available", output: part.output }
              : { state: "output-error", errorText: "error.unknown" }),
          };
          parts.push(toolPart);
          w.onTool?.(toolPart);
          // A generation started: saved at once, so that a refresh shows it.
          saveProgress();
        } else if (part.type === "error") {
          throw part.error;
        } else if (part.type === "abort") {
          break;
        } else if (part.type === "finish") {
          finished = {
            reason: part.finishReason,
            input: part.totalUsage.inputTokens,
            output: part.totalUsage.outputTokens,
          };
        }
      }
      if (w.signal.aborted || !finished) {
        outcome = { status: "stopped" };
      } else {
        outcome = {
          status: finished.reason === "length" && w.plan.limitedByCredits ? "out_of_credits" : "done",
          toolCalls: finished.reason === "tool-calls",
          input: finished.input,
          output: finished.output,
        };
      }
      break;
    } catch (error) {
      if (w.signal.aborted) {
        outcome = { status: "stopped" };
        break;
      }
      const failure = classifyProviderError(error);
      logger.warn({ messageId: w.messageId, provider: binding.provider, code: failure.code }, "chat answer failed");
      outcome = { status: "failed", errorCode: failure.code };
      // Nothing is tried again once something was written or a tool ran (it would run twice).
      if (text !== "" || parts.length > 0 || !failure.failover) break;
    }
  }

  clearInterval(heartbeat);
  await saving.catch(() => undefined);
  // Usage as the provider counted it; when it could not say (a stopped stream), as estimated before the call.
  const inputTokens = outcome.input ?? w.inputTokens;
  const outputTokens = outcome.output ?? estimateTokens(text);
  const charge =
    outcome.status === "failed" ? 0 : Math.min(w.plan.credits, chatCost(w.model.price, inputTokens, outputTokens));
  await db.transaction(async (tx) => {
    await settleHoldInTx(
      tx,
      outcome.status === "failed" ? { holdId: w.holdId, as: "release" } : { holdId: w.holdId, as: "capture", charge },
    );
    await tx
      .update(chatMessage)
      .set({
        parts,
        text,
        status: outcome.status,
        inputTokens,
        outputTokens,
        creditsCharged: charge,
        errorCode: outcome.errorCode ?? null,
        updatedAt: new Date(),
      })
      .where(eq(chatMessage.id, w.messageId));
    if (w.title && outcome.status !== "failed")
      await tx
        .update(chatConversation)
        .set({ title: w.title })
        .where(and(eq(chatConversation.id, w.conversationId), isNull(chatConversation.title)));
  });
  return {
    status: outcome.status,
    text,
    parts,
    toolCalls: Boolean(outcome.toolCalls),
    inputTokens,
    outputTokens,
    creditsCharged: charge,
    errorCode: outcome.errorCode ?? null,
  };
}

/** A caller's tools for the model: described, never run here (the model's call ends the answer). */
function callerTools(tools: ClientTool[]): ToolSet {
  return Object.fromEntries(
    tools.map((t) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema(
          (t.parameters ?? { type: "object", properties: {} }) as Parameters<typeof jsonSchema>[0],
        ),
      }),
    ]),
  );
}

/**
 * The backstop that keeps credits from being held forever: an answer still `streaming` with no sign of life for
 * ANSWER_STALE_MS (the process writing it died) is ended as failed (`interrupted`) and its credits released, in
 * one transaction conditional on the state found, so it is safe next to running answers and other sweepers.
 */
export async function sweepAnswers({ db, staleMs = ANSWER_STALE_MS }: { db: Db; staleMs?: number }) {
  const stale = await db
    .select({ id: chatMessage.id, holdId: chatMessage.holdId })
    .from(chatMessage)
    .where(and(eq(chatMessage.status, "streaming"), lt(chatMessage.updatedAt, new Date(Date.now() - staleMs))))
    .limit(200);
  let ended = 0;
  for (const answer of stale) {
    if (running.has(answer.id)) continue;
    const done = await db.transaction(async (tx) => {
      const [row] = await tx
        .update(chatMessage)
        .set({ status: "failed", errorCode: "interrupted", creditsCharged: 0, updatedAt: new Date() })
        .where(and(eq(chatMessage.id, answer.id), eq(chatMessage.status, "streaming")))
        .returning({ id: chatMessage.id });
      if (!row) return false;
      if (answer.holdId) await settleHoldInTx(tx, { holdId: answer.holdId, as: "release" });
      return true;
    });
    if (done) ended++;
  }
  return { ended };
}
