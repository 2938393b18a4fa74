import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import { chatConversation, chatMessage } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { offeredChatModels } from "#config/chat-models.ts";

/** The longest question, and the longest system prompt, in characters. */
export const MAX_QUESTION_LENGTH = 8_000;
export const MAX_SYSTEM_PROMPT_LENGTH = 4_000;

const newConversation = z
  .object({
    model: z.string().min(1).max(120),
    systemPrompt: z.string().trim().max(MAX_SYSTEM_PROMPT_LENGTH).optional(),
  })
  .strict();

const newQuestion = z
  .object({
    text: z.string().trim().min(1).max(MAX_QUESTION_LENGTH),
    /** The message it follows: the conversation's current last message when left out; another one makes a branch. */
    parentId: z.uuid().nullable().optional(),
  })
  .strict();

/** Starts a conversation with a chat model this deployment offers. */
export async function createConversation({
  db,
  env,
  userId,
  input,
}: {
  db: Db;
  env: Env;
  userId: string;
  input: unknown;
}) {
  const parsed = newConversation.safeParse(input);
  if (!parsed.success) throw new AppError("bad_request", "a conversation needs a model");
  const model = offeredChatModels(env).find((m) => m.id === parsed.data.model);
  if (!model) throw new AppError("unknown_model", `chat model ${parsed.data.model} is not offered`);
  const [conversation] = await db
    .insert(chatConversation)
    .values({ userId, modelId: model.id, systemPrompt: parsed.data.systemPrompt || null })
    .returning();
  return conversation!;
}

/**
 * Adds a question to a conversation after its current last message (or after `parentId`, which branches the tree:
 * an edited question is a sibling of the one it replaces) and makes it the branch shown.
 */
export async function addQuestion({
  db,
  userId,
  conversationId,
  input,
}: {
  db: Db;
  userId: string;
  conversationId: string;
  input: unknown;
}) {
  const parsed = newQuestion.safeParse(input);
  if (!parsed.success)
    throw new AppError("chat_message_invalid", "a question is 1 to 8000 characters", {
      values: { max: MAX_QUESTION_LENGTH },
    });
  return db.transaction(async (tx) => {
    const [conversation] = await tx
      .select()
      .from(chatConversation)
      .where(and(eq(chatConversation.id, conversationId), eq(chatConversation.userId, userId)))
      .for("update");
    if (!conversation) throw new AppError("not_found", "no such conversation");
    const parentId = parsed.data.parentId === undefined ? conversation.leafId : parsed.data.parentId;
    if (parentId) {
      const [parent] = await tx
        .select({ role: chatMessage.role, status: chatMessage.status })
        .from(chatMessage)
        .where(and(eq(chatMessage.id, parentId), eq(chatMessage.conversationId, conversationId)));
      if (!parent) throw new AppError("not_found", "no such message in this conversation");
      if (parent.role !== "assistant" || parent.status === "streaming")
        throw new AppError("conflict", "a question follows a finished answer");
    }
    const [question] = await tx
      .insert(chatMessage)
      .values({
        conversationId,
        parentId,
        role: "user",
        parts: [{ type: "text", text: parsed.data.text }],
        text: parsed.data.text,
      })
      .returning();
    await tx
      .update(chatConversation)
      .set({ leafId: question!.id, updatedAt: new Date() })
      .where(eq(chatConversation.id, conversationId));
    return question!;
  });
}

/** A conversation of the account's, with every message of its tree in the order they were written. */
export async function getConversation({
  db,
  userId,
  conversationId,
}: {
  db: Db;
  userId: string;
  conversationId: string;
}) {
  const [conversation] = await db
    .select({
      id: chatConversation.id,
      title: chatConversation.title,
      modelId: chatConversation.modelId,
      systemPrompt: chatConversation.systemPrompt,
      pinned: chatConversation.pinned,
      folderId: chatConversation.folderId,
      leafId: chatConversation.leafId,
      createdAt: chatConversation.createdAt,
      updatedAt: chatConversation.updatedAt,
    })
    .from(chatConversation)
    .where(and(eq(chatConversation.id, conversationId), eq(chatConversation.userId, userId)));
  if (!conversation) throw new AppError("not_found", "no such conversation");
  const messages = await db
    .select({
      id: chatMessage.id,
      parentId: chatMessage.parentId,
      role: chatMessage.role,
      parts: chatMessage.parts,
      status: chatMessage.status,
      modelId: chatMessage.modelId,
      inputTokens: chatMessage.inputTokens,
      outputTokens: chatMessage.outputTokens,
      creditsHeld: chatMessage.creditsHeld,
      creditsCharged: chatMessage.creditsCharged,
      errorCode: chatMessage.errorCode,
      createdAt: chatMessage.createdAt,
    })
    .from(chatMessage)
    .where(eq(chatMessage.conversationId, conversationId))
    .orderBy(asc(chatMessage.createdAt), asc(chatMessage.id));
  return { conversation, messages };
}
