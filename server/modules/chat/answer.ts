import { randomUUID } from "node:crypto";
import { and, eq, isNull, lt } from "drizzle-orm";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { streamText, type ModelMessage } from "ai";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import { chatConversation, chatMessage, type ChatMessageStatus } from "#server/db/schema/index.ts";
import { getBalance, holdInTx, settleHoldInTx } from "#server/modules/credits/ledger.ts";
import { AppError } from "#server/errors.ts";
import { chatLanguageModel } from "#server/providers/chat.ts";
import { classifyProviderError } from "#server/providers/errors.ts";
import { titleFrom } from "./conversations.ts";
import {
  chatCost,
  chatHold,
  estimateTokens,
  offeredChatModels,
  type ChatBinding,
  type ChatModel,
} from "#config/chat-models.ts";
import type { Locale } from "#common/locales.ts";

export interface AnswerDeps {
  db: Db;
  env: Env;
  logger: Logger;
  /** The language model for a binding; tests pass their own. */
  languageModel?: (binding: ChatBinding, env: Env) => Promise<LanguageModelV4>;
}

/** How an answer ended, as saved. */
export interface AnswerOutcome {
  status: Exclude<ChatMessageStatus, "streaming">;
  text: string;
  inputTokens: number;
  outputTokens: number;
  creditsCharged: number;
  errorCode: string | null;
}

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
/** Tokens each message adds beyond its text (roles and separators), in the estimate before the call. */
const TOKENS_PER_MESSAGE = 4;

/** Answers this process is writing, to be stopped by their author. */
const running = new Map<string, { userId: string; controller: AbortController }>();

/**
 * Starts the answer to a question of a conversation: reads the question's branch, holds the credits its input and
 * output may cost (fewer output tokens when the balance pays for fewer), saves the answer as `streaming`, and writes
 * it in the background, independent of any connection, saving it as it grows. When it ends it is charged exactly
 * once for what it used (never more than was held), in the transaction that saves its end; a failure charges
 * nothing. `onDelta` receives the text as it comes.
 */
export async function startAnswer(
  deps: AnswerDeps,
  a: { userId: string; conversationId: string; questionId: string; locale: Locale; onDelta?: (text: string) => void },
): Promise<StartedAnswer> {
  const { db, env } = deps;
  const [conversation] = await db
    .select()
    .from(chatConversation)
    .where(and(eq(chatConversation.id, a.conversationId), eq(chatConversation.userId, a.userId)));
  if (!conversation) throw new AppError("not_found", "no such conversation");
  const model = offeredChatModels(env).find((m) => m.id === conversation.modelId);
  if (!model) throw new AppError("unknown_model", `chat model ${conversation.modelId} is not offered`);

  const branch = await branchTo(db, a.conversationId, a.questionId);
  if (branch.at(-1)?.role !== "user") throw new AppError("bad_request", "only a question is answered");
  const messages: ModelMessage[] = branch
    .filter((m) => m.role === "user" || (m.status !== "failed" && m.text !== ""))
    .map((m) => ({ role: m.role, content: m.text }));
  const system = conversation.systemPrompt ?? undefined;
  const inputTokens =
    estimateTokens([system ?? "", ...messages.map((m) => m.content as string)].join("\n")) +
    TOKENS_PER_MESSAGE * (messages.length + 1);

  const { available } = await getBalance({ db, userId: a.userId });
  const plan = chatHold(model, inputTokens, available);
  if (!plan) throw new AppError("insufficient_credits", "not enough credits to answer");

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
      parentId: a.questionId,
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
    locale: a.locale,
    signal: controller.signal,
    onDelta: a.onDelta,
  }).finally(() => running.delete(messageId));
  return { messageId, creditsHeld: plan.credits, done };
}

/** Stops an answer its author is watching: what was written is kept and charged. False when it is not running here. */
export function stopAnswer({ userId, messageId }: { userId: string; messageId: string }): boolean {
  const entry = running.get(messageId);
  if (!entry || entry.userId !== userId) return false;
  entry.controller.abort();
  return true;
}

/** The messages from the conversation's first to `leafId`, following each message's parent. */
async function branchTo(db: Db, conversationId: string, leafId: string) {
  const rows = await db.select().from(chatMessage).where(eq(chatMessage.conversationId, conversationId));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const branch: typeof rows = [];
  for (let m = byId.get(leafId); m; m = m.parentId ? byId.get(m.parentId) : undefined) branch.unshift(m);
  if (branch.length === 0) throw new AppError("not_found", "no such message");
  return branch;
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
    plan: NonNullable<ReturnType<typeof chatHold>>;
    locale: Locale;
    signal: AbortSignal;
    onDelta?: (text: string) => void;
  },
): Promise<AnswerOutcome> {
  const { db, env, logger } = deps;
  let text = "";
  let savedAt = Date.now();
  let saving: Promise<unknown> = Promise.resolve();
  const saveProgress = () => {
    savedAt = Date.now();
    const snapshot = text;
    saving = saving.then(() =>
      db
        .update(chatMessage)
        .set({ parts: [{ type: "text", text: snapshot }], text: snapshot, updatedAt: new Date() })
        .where(and(eq(chatMessage.id, w.messageId), eq(chatMessage.status, "streaming"))),
    );
  };

  // A heartbeat while the answer is written, even when no text comes for a while (a model thinking): an answer
  // whose heartbeat stops (its process died) is ended by the sweep, its credits released.
  const heartbeat = setInterval(() => {
    if (Date.now() - savedAt >= HEARTBEAT_MS) saveProgress();
  }, HEARTBEAT_MS);
  heartbeat.unref();

  let outcome: { status: AnswerOutcome["status"]; input?: number; output?: number; errorCode?: string } = {
    status: "failed",
    errorCode: "provider_unavailable",
  };
  // Each binding in turn while nothing has been written: a provider's failure moves on to the next one.
  for (const binding of w.model.bindings) {
    try {
      const languageModel = await (deps.languageModel ?? chatLanguageModel)(binding, env);
      const result = streamText({
        model: languageModel,
        system: w.system,
        messages: w.messages,
        maxOutputTokens: w.plan.maxOutputTokens,
        maxRetries: 0,
        abortSignal: w.signal,
        providerOptions: { demo: { locale: w.locale } },
        // Errors arrive as parts of the stream below, where they are handled; the SDK would also print them.
        onError: () => undefined,
      });
      let finished: { reason: string; input?: number; output?: number } | undefined;
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") {
          text += part.text;
          w.onDelta?.(part.text);
          if (Date.now() - savedAt >= SAVE_EVERY_MS) saveProgress();
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
      if (text !== "" || !failure.failover) break;
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
        parts: text === "" ? [] : [{ type: "text", text }],
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
    inputTokens,
    outputTokens,
    creditsCharged: charge,
    errorCode: outcome.errorCode ?? null,
  };
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
