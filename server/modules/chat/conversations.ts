import { and, asc, desc, eq, exists, inArray, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { asset, chatConversation, chatFolder, chatMessage, type ChatPart } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { MAX_ATTACHMENTS } from "#config/chat-models.ts";
import { isUuid } from "#common/ids.ts";
import { mediaUrl } from "#server/modules/generation/get-generation.ts";
import { requireModelAllowed } from "#server/modules/billing/entitlements.ts";
import type { Locale } from "#common/locales.ts";

/** The longest question, and the longest system prompt, in characters. */
export const MAX_QUESTION_LENGTH = 8_000;
export const MAX_SYSTEM_PROMPT_LENGTH = 4_000;
export { MAX_ATTACHMENTS } from "#config/chat-models.ts";

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
    /** Images of the account's (uploads, or its own generations' results) it shows. */
    attachments: z.array(z.string()).optional(),
  })
  .strict();

/**
 * The images a question shows, as its file parts: each one of the account's images (an upload, or a result of its
 * own), for a model that reads images or hands them to the studio's tools.
 */
async function attachable(
  tx: Pick<Db, "select">,
  models: ModelRegistry,
  userId: string,
  modelId: string,
  ids: string[],
): Promise<ChatPart[]> {
  const model = models.anyChat(modelId);
  if (!model || !(model.vision || model.tools))
    throw new AppError("chat_attachments_invalid", "this model takes no images", {
      key: "chat.errors.imagesUnsupported",
      values: { model: model?.name ?? modelId },
    });
  const rows = ids.every(isUuid)
    ? await tx
        .select({ id: asset.id, mimeType: asset.mimeType })
        .from(asset)
        .where(and(inArray(asset.id, ids), eq(asset.userId, userId), eq(asset.kind, "image")))
    : [];
  if (rows.length !== ids.length) throw new AppError("chat_attachments_invalid", "no such image of the account's");
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => {
    const { mimeType } = byId.get(id)!;
    return { type: "file", mediaType: mimeType, assetId: id, url: mediaUrl(id, mimeType) };
  });
}

/** A conversation's id from a URL: anything that is not an id names no conversation (and never reaches a query). */
export function checkConversationId(id: string): void {
  if (!isUuid(id)) throw new AppError("not_found", "no such conversation");
}

/** Starts a conversation with a chat model this deployment offers (and the account's plan includes). */
export async function createConversation({
  db,
  models,
  userId,
  input,
  admin = false,
  locale,
}: {
  db: Db;
  models: ModelRegistry;
  userId: string;
  input: unknown;
  /** An administrator may choose the models visible to administrators only. */
  admin?: boolean;
  /** The language of a refusal's plan name. */
  locale?: Locale;
}) {
  const parsed = newConversation.safeParse(input);
  if (!parsed.success) throw new AppError("bad_request", "a conversation needs a model");
  const model = models.findChat(parsed.data.model, { admin });
  if (!model) throw new AppError("unknown_model", `chat model ${parsed.data.model} is not offered`);
  await requireModelAllowed(db, { id: userId, role: admin ? "admin" : "user" }, model, locale);
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
  models,
  userId,
  conversationId,
  input,
}: {
  db: Db;
  models: ModelRegistry;
  userId: string;
  conversationId: string;
  input: unknown;
}) {
  checkConversationId(conversationId);
  const parsed = newQuestion.safeParse(input);
  if (!parsed.success)
    throw new AppError("chat_message_invalid", "a question is 1 to 8000 characters", {
      values: { max: MAX_QUESTION_LENGTH },
    });
  const attached = [...new Set(parsed.data.attachments ?? [])];
  if (attached.length > MAX_ATTACHMENTS)
    throw new AppError("chat_attachments_invalid", `at most ${MAX_ATTACHMENTS} images`, {
      key: "chat.errors.tooManyImages",
      values: { max: MAX_ATTACHMENTS },
    });
  return db.transaction(async (tx) => {
    const [conversation] = await tx
      .select()
      .from(chatConversation)
      .where(and(eq(chatConversation.id, conversationId), eq(chatConversation.userId, userId)))
      .for("update");
    if (!conversation) throw new AppError("not_found", "no such conversation");
    const files = attached.length > 0 ? await attachable(tx, models, userId, conversation.modelId, attached) : [];
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
        parts: [{ type: "text", text: parsed.data.text }, ...files],
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
  checkConversationId(conversationId);
  const [conversation] = await db
    .select({
      id: chatConversation.id,
      title: chatConversation.title,
      modelId: chatConversation.modelId,
      systemPrompt: chatConversation.systemPrompt,
      pinned: chatConversation.pinned,
      folderId: chatConversation.folderId,
      leafId: chatConversation.leafId,
      sharedAt: chatConversation.sharedAt,
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

const conversationChange = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    pinned: z.boolean().optional(),
    folderId: z.uuid().nullable().optional(),
    systemPrompt: z.string().trim().max(MAX_SYSTEM_PROMPT_LENGTH).nullable().optional(),
    model: z.string().min(1).max(120).optional(),
    /** The branch shown: the last message of it (`< 2 / 3 >` between siblings). */
    leafId: z.uuid().optional(),
  })
  .strict();

/** Renames, pins, files, re-prompts, changes the model of a conversation, or shows another branch of it. */
export async function updateConversation({
  db,
  models,
  userId,
  conversationId,
  input,
  admin = false,
  locale,
}: {
  db: Db;
  models: ModelRegistry;
  userId: string;
  conversationId: string;
  /** The language of a refusal's plan name. */
  locale?: Locale;
  input: unknown;
  admin?: boolean;
}) {
  checkConversationId(conversationId);
  const parsed = conversationChange.safeParse(input);
  if (!parsed.success) throw new AppError("bad_request", "not a change of a conversation");
  const { title, pinned, folderId, systemPrompt, model, leafId } = parsed.data;
  if (model !== undefined) {
    const chosen = models.findChat(model, { admin });
    if (!chosen) throw new AppError("unknown_model", `chat model ${model} is not offered`);
    await requireModelAllowed(db, { id: userId, role: admin ? "admin" : "user" }, chosen, locale);
  }
  if (folderId) {
    const [folder] = await db
      .select({ id: chatFolder.id })
      .from(chatFolder)
      .where(and(eq(chatFolder.id, folderId), eq(chatFolder.userId, userId)));
    if (!folder) throw new AppError("not_found", "no such folder");
  }
  if (leafId) {
    const [leaf] = await db
      .select({ id: chatMessage.id })
      .from(chatMessage)
      .where(and(eq(chatMessage.id, leafId), eq(chatMessage.conversationId, conversationId)));
    if (!leaf) throw new AppError("not_found", "no such message in this conversation");
  }
  const [updated] = await db
    .update(chatConversation)
    .set({
      ...(title !== undefined && { title }),
      ...(pinned !== undefined && { pinned }),
      ...(folderId !== undefined && { folderId }),
      ...(systemPrompt !== undefined && { systemPrompt: systemPrompt || null }),
      ...(model !== undefined && { modelId: model }),
      ...(leafId !== undefined && { leafId }),
      updatedAt: new Date(),
    })
    .where(and(eq(chatConversation.id, conversationId), eq(chatConversation.userId, userId)))
    .returning({ id: chatConversation.id });
  if (!updated) throw new AppError("not_found", "no such conversation");
}

/** Deletes a conversation with its messages. An answer still being written goes on and is charged, then gone. */
export async function deleteConversation({
  db,
  userId,
  conversationId,
}: {
  db: Db;
  userId: string;
  conversationId: string;
}) {
  checkConversationId(conversationId);
  const deleted = await db
    .delete(chatConversation)
    .where(and(eq(chatConversation.id, conversationId), eq(chatConversation.userId, userId)))
    .returning({ id: chatConversation.id });
  if (deleted.length === 0) throw new AppError("not_found", "no such conversation");
}

/**
 * The account's conversations, pinned first, then the latest; with `q`, those whose title or any message has every
 * word of it (PostgreSQL full-text search, `simple` configuration: any language, whole words).
 */
export async function listConversations({
  db,
  userId,
  q,
  folderId,
}: {
  db: Db;
  userId: string;
  q?: string;
  folderId?: string;
}) {
  // The API's conversations (one per request) are not the page's.
  const where = [eq(chatConversation.userId, userId), eq(chatConversation.source, "web")];
  if (folderId) where.push(eq(chatConversation.folderId, isUuid(folderId) ? folderId : sql`null`));
  const query = q?.trim().slice(0, 200);
  if (query) {
    const words = sql`plainto_tsquery('simple', ${query})`;
    where.push(
      or(
        sql`${chatConversation.search} @@ ${words}`,
        exists(
          db
            .select({ one: sql`1` })
            .from(chatMessage)
            .where(
              and(sql`${chatMessage.conversationId} = ${chatConversation.id}`, sql`${chatMessage.search} @@ ${words}`),
            ),
        ),
      )!,
    );
  }
  return db
    .select({
      id: chatConversation.id,
      title: chatConversation.title,
      modelId: chatConversation.modelId,
      pinned: chatConversation.pinned,
      folderId: chatConversation.folderId,
      updatedAt: chatConversation.updatedAt,
    })
    .from(chatConversation)
    .where(and(...where))
    .orderBy(desc(chatConversation.pinned), desc(chatConversation.updatedAt))
    .limit(200);
}

/** The messages from the conversation's first to `leafId`, following each message's parent. */
export async function branchTo(db: Db, conversationId: string, leafId: string) {
  const rows = await db.select().from(chatMessage).where(eq(chatMessage.conversationId, conversationId));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const branch: typeof rows = [];
  for (let m = byId.get(leafId); m; m = m.parentId ? byId.get(m.parentId) : undefined) branch.unshift(m);
  if (branch.length === 0) throw new AppError("not_found", "no such message");
  return branch;
}

const folderName = z.object({ name: z.string().trim().min(1).max(100) }).strict();

/** The account's folders, by name. */
export async function listFolders({ db, userId }: { db: Db; userId: string }) {
  return db
    .select({ id: chatFolder.id, name: chatFolder.name })
    .from(chatFolder)
    .where(eq(chatFolder.userId, userId))
    .orderBy(asc(chatFolder.name))
    .limit(100);
}

/** Folders to file conversations in. */
export async function createFolder({ db, userId, input }: { db: Db; userId: string; input: unknown }) {
  const parsed = folderName.safeParse(input);
  if (!parsed.success) throw new AppError("bad_request", "a folder needs a name");
  const [folder] = await db.insert(chatFolder).values({ userId, name: parsed.data.name }).returning();
  return folder!;
}

/** Renames a folder of the account's. */
export async function renameFolder({
  db,
  userId,
  folderId,
  input,
}: {
  db: Db;
  userId: string;
  folderId: string;
  input: unknown;
}) {
  if (!isUuid(folderId)) throw new AppError("not_found", "no such folder");
  const parsed = folderName.safeParse(input);
  if (!parsed.success) throw new AppError("bad_request", "a folder needs a name");
  const [row] = await db
    .update(chatFolder)
    .set({ name: parsed.data.name })
    .where(and(eq(chatFolder.id, folderId), eq(chatFolder.userId, userId)))
    .returning({ id: chatFolder.id });
  if (!row) throw new AppError("not_found", "no such folder");
}

/** Deletes a folder of the account's; its conversations stay, out of any folder. */
export async function deleteFolder({ db, userId, folderId }: { db: Db; userId: string; folderId: string }) {
  if (!isUuid(folderId)) throw new AppError("not_found", "no such folder");
  const [row] = await db
    .delete(chatFolder)
    .where(and(eq(chatFolder.id, folderId), eq(chatFolder.userId, userId)))
    .returning({ id: chatFolder.id });
  if (!row) throw new AppError("not_found", "no such folder");
}

/** A title from the first question, once the first answer has ended: its first words, up to 60 characters. */
export function titleFrom(question: string): string {
  const words = question.replace(/\s+/g, " ").trim();
  if (words.length <= 60) return words;
  const cut = words.slice(0, 60);
  const space = cut.lastIndexOf(" ");
  return `${space > 30 ? cut.slice(0, space) : cut}…`;
}

/** A message of a request to the OpenAI-compatible API, as saved. */
export interface ApiTurn {
  role: "user" | "assistant";
  text: string;
  parts: ChatPart[];
}

/**
 * Saves a request of the OpenAI-compatible API as a conversation of the account's (never listed on the page): its
 * instructions, and its messages as one branch ending with what is to be answered.
 */
export async function createApiConversation(options: {
  db: Db;
  userId: string;
  modelId: string;
  systemPrompt: string | null;
  turns: ApiTurn[];
  /** The API key that asked. */
  apiKeyId?: string;
}): Promise<{ conversationId: string; parentId: string }> {
  return options.db.transaction(async (tx) => {
    const [conversation] = await tx
      .insert(chatConversation)
      .values({
        userId: options.userId,
        modelId: options.modelId,
        systemPrompt: options.systemPrompt,
        source: "api",
        apiKeyId: options.apiKeyId ?? null,
      })
      .returning({ id: chatConversation.id });
    let parentId: string | null = null;
    for (const turn of options.turns) {
      const [row]: { id: string }[] = await tx
        .insert(chatMessage)
        .values({ conversationId: conversation!.id, parentId, ...turn, status: "done" })
        .returning({ id: chatMessage.id });
      parentId = row!.id;
    }
    await tx.update(chatConversation).set({ leafId: parentId }).where(eq(chatConversation.id, conversation!.id));
    return { conversationId: conversation!.id, parentId: parentId! };
  });
}

/** How long the OpenAI-compatible API's requests are kept as conversations of their account. */
export const API_CONVERSATION_DAYS = 30;

/**
 * Forgets the OpenAI-compatible API's conversations (one per request, never listed on the page) untouched for
 * `API_CONVERSATION_DAYS`, unless an answer is still being written. Their credits were settled when they ended.
 */
export async function purgeApiConversations({ db, now = new Date() }: { db: Db; now?: Date }): Promise<number> {
  const before = new Date(now.getTime() - API_CONVERSATION_DAYS * 24 * 60 * 60 * 1000);
  const deleted = await db
    .delete(chatConversation)
    .where(
      and(
        eq(chatConversation.source, "api"),
        sql`${chatConversation.updatedAt} < ${before.toISOString()}::timestamptz`,
        sql`not exists (select 1 from ${chatMessage} m where m.conversation_id = ${chatConversation.id} and m.status = 'streaming')`,
      ),
    )
    .returning({ id: chatConversation.id });
  return deleted.length;
}
