import { and, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { chatConversation, chatMessage, type ChatMessageStatus, type ChatPart } from "#server/db/schema/index.ts";

export interface SavedAnswer {
  status: ChatMessageStatus;
  /** The text written so far: it only grows while the answer is `streaming` (saved a few times a second). */
  text: string;
  parts: ChatPart[];
  inputTokens: number;
  outputTokens: number;
  creditsCharged: number;
  errorCode: string | null;
}

/** An answer of the account's as saved so far (for a request repeated while it is written, or after), or null. */
export async function readAnswer({
  db,
  userId,
  messageId,
}: {
  db: Db;
  userId: string;
  messageId: string;
}): Promise<SavedAnswer | null> {
  const [row] = await db
    .select({
      status: chatMessage.status,
      text: chatMessage.text,
      parts: chatMessage.parts,
      inputTokens: chatMessage.inputTokens,
      outputTokens: chatMessage.outputTokens,
      creditsCharged: chatMessage.creditsCharged,
      errorCode: chatMessage.errorCode,
    })
    .from(chatMessage)
    .innerJoin(chatConversation, eq(chatConversation.id, chatMessage.conversationId))
    .where(and(eq(chatMessage.id, messageId), eq(chatConversation.userId, userId), eq(chatMessage.role, "assistant")));
  if (!row) return null;
  return {
    ...row,
    inputTokens: row.inputTokens ?? 0,
    outputTokens: row.outputTokens ?? 0,
    creditsCharged: row.creditsCharged ?? 0,
  };
}
