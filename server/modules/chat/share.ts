import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { chatConversation, type ChatPart } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { serverT } from "#server/i18n/translations.ts";
import type { Locale } from "#common/locales.ts";
import { isTool, kindOfTool } from "#common/tools.ts";
import { branchTo, checkConversationId, getConversation } from "./conversations.ts";
import type { ChatToolOutput } from "./tools.ts";

/** A share link's secret: 192 random bits, base64url. Only its hash is stored. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
const ownConversation = (userId: string, conversationId: string) =>
  and(eq(chatConversation.id, conversationId), eq(chatConversation.userId, userId));

/**
 * Shares a conversation of the account's as a read-only link, up to the message shown now (what is written after
 * stays private until it is shared again). A new link replaces the previous one, which stops working. The link's
 * secret is returned once; only its hash is kept.
 */
export async function shareConversation({
  db,
  userId,
  conversationId,
}: {
  db: Db;
  userId: string;
  conversationId: string;
}): Promise<{ token: string; sharedAt: Date }> {
  checkConversationId(conversationId);
  const token = randomBytes(24).toString("base64url");
  const sharedAt = new Date();
  const [row] = await db
    .update(chatConversation)
    .set({ shareTokenHash: hashToken(token), sharedLeafId: sql`${chatConversation.leafId}`, sharedAt })
    // A conversation with nothing in it yet has nothing to show: no link is made.
    .where(and(ownConversation(userId, conversationId), isNotNull(chatConversation.leafId)))
    .returning({ id: chatConversation.id });
  if (row) return { token, sharedAt };
  const [exists] = await db
    .select({ id: chatConversation.id })
    .from(chatConversation)
    .where(ownConversation(userId, conversationId));
  if (!exists) throw new AppError("not_found", "no such conversation");
  throw new AppError("conflict", "an empty conversation is not shared");
}

/** Stops sharing: the link answers 404 from now on. */
export async function unshareConversation({
  db,
  userId,
  conversationId,
}: {
  db: Db;
  userId: string;
  conversationId: string;
}) {
  checkConversationId(conversationId);
  const [row] = await db
    .update(chatConversation)
    .set({ shareTokenHash: null, sharedLeafId: null, sharedAt: null })
    .where(ownConversation(userId, conversationId))
    .returning({ id: chatConversation.id });
  if (!row) throw new AppError("not_found", "no such conversation");
}

/** What a turn shows: its texts, and the images and videos its tools started (named, not shown: they stay private). */
export type SharedSegment =
  { type: "text"; text: string } | { type: "tool"; tool: string; model: string; prompt: string };

export interface SharedTurn {
  role: "user" | "assistant";
  segments: SharedSegment[];
}

/**
 * The turns of a branch as read: an answer and its continuations are one answer, its texts and the generations
 * its tools started in order; an answer with nothing to show is left out.
 */
export function turnsOfBranch(branch: { role: "user" | "assistant"; parts: ChatPart[] }[]): SharedTurn[] {
  const turns: SharedTurn[] = [];
  for (const m of branch) {
    const segments: SharedSegment[] = [];
    for (const part of m.parts) {
      const output = part.output as ChatToolOutput | undefined;
      if (part.type === "text" && part.text) segments.push({ type: "text", text: part.text as string });
      else if (part.type.startsWith("tool-") && output && output.status === "started")
        segments.push({ type: "tool", tool: output.tool, model: output.model, prompt: output.prompt });
    }
    if (segments.length === 0) continue;
    const previous = turns.at(-1);
    if (m.role === "assistant" && previous?.role === "assistant") {
      // A continuation runs on from where its answer was cut.
      const [first, ...rest] = segments;
      const last = previous.segments.at(-1);
      if (first?.type === "text" && last?.type === "text") last.text += first.text;
      else if (first) previous.segments.push(first);
      previous.segments.push(...rest);
    } else turns.push({ role: m.role, segments });
  }
  return turns;
}

const modelName = (models: ModelRegistry, modelId: string) => models.nameOf(modelId);

/** A shared conversation as its link shows it, or null when the link is unknown or no longer shared. */
export async function getSharedConversation({ db, models, token }: { db: Db; models: ModelRegistry; token: string }) {
  if (!TOKEN.test(token)) return null;
  const [conversation] = await db
    .select({
      id: chatConversation.id,
      title: chatConversation.title,
      modelId: chatConversation.modelId,
      sharedLeafId: chatConversation.sharedLeafId,
      sharedAt: chatConversation.sharedAt,
    })
    .from(chatConversation)
    .where(eq(chatConversation.shareTokenHash, hashToken(token)));
  if (!conversation?.sharedLeafId || !conversation.sharedAt) return null;
  const branch = await branchTo(db, conversation.id, conversation.sharedLeafId);
  return {
    title: conversation.title,
    model: modelName(models, conversation.modelId),
    sharedAt: conversation.sharedAt.toISOString(),
    turns: turnsOfBranch(branch.filter((m) => m.status !== "streaming" && m.status !== "failed")),
  };
}

/**
 * A conversation of the account's as a file: Markdown (the branch shown, as read, with the reader's words for who
 * speaks) or JSON (the whole tree: every message with its parent, status, tokens and credits).
 */
export async function exportConversation({
  db,
  models,
  userId,
  conversationId,
  format,
  locale,
}: {
  db: Db;
  models: ModelRegistry;
  userId: string;
  conversationId: string;
  format: "markdown" | "json";
  locale: Locale;
}): Promise<{ filename: string; contentType: string; body: string }> {
  const { conversation, messages } = await getConversation({ db, userId, conversationId });
  const t = serverT(locale, ["chat"]);
  const title = conversation.title ?? t("chat:page.untitled");
  // The title's letters and digits in any script; the response also names the file in ASCII for old clients.
  const slug =
    title
      .normalize("NFC")
      .replace(/[^\p{L}\p{N}\s-]/gu, "")
      .trim()
      .replace(/\s+/g, "-")
      .toLowerCase()
      .slice(0, 60) || "conversation";
  if (format === "json") {
    const document = {
      id: conversation.id,
      title: conversation.title,
      model: { id: conversation.modelId, name: modelName(models, conversation.modelId) },
      systemPrompt: conversation.systemPrompt,
      createdAt: conversation.createdAt.toISOString(),
      updatedAt: conversation.updatedAt.toISOString(),
      leafId: conversation.leafId,
      messages: messages.map((m) => ({
        id: m.id,
        parentId: m.parentId,
        role: m.role,
        text: textOf(m.parts),
        parts: m.parts,
        status: m.status,
        model: m.modelId,
        inputTokens: m.inputTokens,
        outputTokens: m.outputTokens,
        creditsCharged: m.creditsCharged,
        errorCode: m.errorCode,
        createdAt: m.createdAt.toISOString(),
      })),
    };
    return {
      filename: `${slug}.json`,
      contentType: "application/json; charset=utf-8",
      body: `${JSON.stringify(document, null, 2)}\n`,
    };
  }
  const branch = conversation.leafId ? await branchTo(db, conversation.id, conversation.leafId) : [];
  const turns = turnsOfBranch(branch.filter((m) => m.status !== "failed"));
  const lines = [`# ${title}`, "", `_${modelName(models, conversation.modelId)}_`, ""];
  if (conversation.systemPrompt) lines.push(`> ${conversation.systemPrompt.replace(/\n/g, "\n> ")}`, "");
  for (const turn of turns) {
    lines.push(`## ${turn.role === "user" ? t("chat:export.you") : t("chat:export.assistant")}`, "");
    for (const segment of turn.segments)
      if (segment.type === "text") lines.push(segment.text, "");
      else {
        const kind = isTool(segment.tool) ? kindOfTool(segment.tool) : "image";
        const what = t(`chat:tools.names.${segment.tool}`, {
          defaultValue: t(kind === "video" ? "chat:tools.video" : "chat:tools.image"),
        });
        lines.push(`> **${what}** · ${segment.model}: ${segment.prompt}`, "");
      }
  }
  return {
    filename: `${slug}.md`,
    contentType: "text/markdown; charset=utf-8",
    body: `${lines.join("\n").trimEnd()}\n`,
  };
}

const textOf = (parts: { type: string; [key: string]: unknown }[]) =>
  parts
    .filter((p) => p.type === "text")
    .map((p) => p.text as string)
    .join("");
