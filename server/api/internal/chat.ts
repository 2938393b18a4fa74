import { and, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { createUIMessageStreamResponse, type UIMessageChunk } from "ai";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";
import type { Db } from "#server/db/client.ts";
import { chatConversation, chatMessage, type ChatPart } from "#server/db/schema/index.ts";
import { startAnswer, stopAnswer } from "#server/modules/chat/answer.ts";
import {
  addQuestion,
  branchTo,
  createConversation,
  createFolder,
  deleteConversation,
  deleteFolder,
  renameFolder,
  getConversation,
  listConversations,
  updateConversation,
} from "#server/modules/chat/conversations.ts";
import { settleToolCall } from "#server/modules/chat/tools.ts";
import { requestLocale } from "#server/http/api-error.ts";
import { exportConversation, shareConversation, unshareConversation } from "#server/modules/chat/share.ts";
import { AppError } from "#server/errors.ts";
import { limitAccountAction } from "#server/modules/rate-limits/account-actions.ts";
import { isLocale, type Locale } from "#common/locales.ts";
import { isUuid } from "#common/ids.ts";
import { jsonBody, signedIn, type SignedInEnv } from "./signed-in.ts";

/** How often a resumed answer is read again while it streams (it is saved about this often too). */
const RESUME_POLL_MS = 300;
const TEXT_ID = "text";

/**
 * The chat's internal API: the models offered, conversations, questions answered as an AI SDK UI message stream
 * (`text-delta` parts, then the answer's outcome as message metadata), an answer resumed after a refresh or a lost
 * connection, continuing an answer that was cut, and stopping an answer. An answer goes on when its connection closes: it is saved as it grows.
 */
export function chatRoutes(state: ServerState) {
  const guard = signedIn(state);
  return new Hono<AppEnv>()
    .get("/chat/models", guard, (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({
        models: c.var.runtime.models.chat({ admin: c.var.viewer.role === "admin" }).map((m) => ({
          id: m.id,
          name: m.name,
          price: m.price,
          maxOutputTokens: m.maxOutputTokens,
          vision: m.vision,
          tools: m.tools,
          offline: m.offline ?? false,
        })),
      });
    })
    .post("/chat/conversations", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "createConversation");
      const conversation = await createConversation({
        db: c.var.runtime.database.db,
        models: c.var.runtime.models,
        admin: c.var.viewer.role === "admin",
        userId: c.var.viewer.id,
        input: await jsonBody(c),
        locale: askedLocale(c),
      });
      return c.json({ conversation }, 201);
    })
    .get("/chat/conversations/:id", guard, async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json(
        await getConversation({
          db: c.var.runtime.database.db,
          userId: c.var.viewer.id,
          conversationId: c.req.param("id"),
        }),
      );
    })
    .get("/chat/conversations", guard, async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({
        conversations: await listConversations({
          db: c.var.runtime.database.db,
          userId: c.var.viewer.id,
          q: c.req.query("q"),
          folderId: c.req.query("folder"),
        }),
      });
    })
    .patch("/chat/conversations/:id", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "changeChat");
      await updateConversation({
        db: c.var.runtime.database.db,
        models: c.var.runtime.models,
        admin: c.var.viewer.role === "admin",
        userId: c.var.viewer.id,
        conversationId: c.req.param("id"),
        input: await jsonBody(c),
        locale: askedLocale(c),
      });
      return c.body(null, 204);
    })
    .delete("/chat/conversations/:id", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "changeChat");
      await deleteConversation({
        db: c.var.runtime.database.db,
        userId: c.var.viewer.id,
        conversationId: c.req.param("id"),
      });
      return c.body(null, 204);
    })
    .post("/chat/conversations/:id/share", guard, async (c) => {
      // A new read-only link up to the message shown now; the previous link, if any, stops working.
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "shareConversation");
      const { token, sharedAt } = await shareConversation({
        db: c.var.runtime.database.db,
        userId: c.var.viewer.id,
        conversationId: c.req.param("id"),
      });
      return c.json({ share: { path: `/share/chat/${token}`, sharedAt } }, 201);
    })
    .delete("/chat/conversations/:id/share", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "changeChat");
      await unshareConversation({
        db: c.var.runtime.database.db,
        userId: c.var.viewer.id,
        conversationId: c.req.param("id"),
      });
      return c.body(null, 204);
    })
    .get("/chat/conversations/:id/export", guard, async (c) => {
      const format = c.req.query("format") === "json" ? "json" : "markdown";
      const { viewer } = c.var;
      const asked = c.req.header("X-Locale") ?? c.req.query("locale");
      const file = await exportConversation({
        db: c.var.runtime.database.db,
        models: c.var.runtime.models,
        userId: viewer.id,
        conversationId: c.req.param("id"),
        format,
        locale: isLocale(asked) ? asked : isLocale(viewer.locale) ? viewer.locale : "en",
      });
      return c.body(file.body, 200, {
        "Content-Type": file.contentType,
        "Content-Disposition": `attachment; filename="${asciiName(file.filename)}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
        "Cache-Control": "no-store",
      });
    })
    .post("/chat/folders", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "createFolder");
      const folder = await createFolder({
        db: c.var.runtime.database.db,
        userId: c.var.viewer.id,
        input: await jsonBody(c),
      });
      return c.json({ folder }, 201);
    })
    .patch("/chat/folders/:id", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "changeChat");
      await renameFolder({
        db: c.var.runtime.database.db,
        userId: c.var.viewer.id,
        folderId: c.req.param("id"),
        input: await jsonBody(c),
      });
      return c.body(null, 204);
    })
    .delete("/chat/folders/:id", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "changeChat");
      await deleteFolder({ db: c.var.runtime.database.db, userId: c.var.viewer.id, folderId: c.req.param("id") });
      return c.body(null, 204);
    })
    .post("/chat/conversations/:id/messages", guard, async (c) => {
      const conversationId = c.req.param("id");
      // Counted before anything is saved: a refused question leaves nothing behind.
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "chat");
      // `answer: false` saves the question only (an edited question kept as a branch, to be answered later).
      const { answer = true, ...input } = ((await jsonBody(c)) ?? {}) as { answer?: unknown };
      const question = await addQuestion({
        db: c.var.runtime.database.db,
        models: c.var.runtime.models,
        userId: c.var.viewer.id,
        conversationId,
        input,
      });
      if (answer === false) return c.json({ message: { id: question.id } }, 201);
      return answerResponse(c, conversationId, question.id);
    })
    .post("/chat/messages/:id/regenerate", guard, async (c) => {
      // Another answer to the same question (a sibling of this one, shown in its place), or the first answer to a
      // question that has none yet.
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "chat");
      const db = c.var.runtime.database.db;
      const message = await ownMessage(db, c.var.viewer.id, c.req.param("id"));
      // A question left unanswered (credits ran out before it started) is answered itself; an answer's question is
      // the nearest one above it (above its continuations).
      const branch = await branchTo(db, message.conversationId, c.req.param("id"));
      const question = branch.findLast((m) => m.role === "user");
      if (!question) throw new AppError("not_found", "no such answer");
      return answerResponse(c, message.conversationId, question.id);
    })
    .post("/chat/messages/:id/continue", guard, async (c) => {
      // The rest of an answer that was stopped or ran out of credits, written as its continuation.
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "chat");
      const answer = await ownAnswer(c.var.runtime.database.db, c.var.viewer.id, c.req.param("id"));
      return answerResponse(c, answer.conversationId, c.req.param("id"));
    })
    .get("/chat/messages/:id/stream", guard, async (c) => {
      const db = c.var.runtime.database.db;
      const messageId = c.req.param("id");
      await ownAnswer(db, c.var.viewer.id, messageId);
      return createUIMessageStreamResponse({
        stream: resumed(db, messageId),
        headers: { "Cache-Control": "no-store" },
      });
    })
    .post("/chat/messages/:id/tools/:callId", guard, async (c) => {
      // Its author confirms (or declines) a tool call that costs more than the chat starts without asking.
      const { runtime, viewer } = c.var;
      const body = ((await jsonBody(c)) ?? {}) as { confirm?: unknown };
      if (typeof body.confirm !== "boolean") {
        throw new AppError("invalid_options", "confirm must be true or false", {
          key: "generation.errors.invalidField",
          values: { field: "confirm" },
        });
      }
      const messageId = c.req.param("id");
      await ownAnswer(runtime.database.db, viewer.id, messageId);
      // A confirmation starts a generation: counted as the studio counts its own.
      if (body.confirm) await limitAccountAction(runtime.database.db, viewer.id, "submit");
      const output = await settleToolCall(
        {
          db: runtime.database.db,
          env: runtime.env,
          boss: runtime.boss,
          storage: runtime.storage,
          settings: runtime.settings,
          models: runtime.models,
        },
        {
          userId: viewer.id,
          messageId,
          toolCallId: c.req.param("callId"),
          confirm: body.confirm,
          locale: requestLocale(c),
        },
      );
      return c.json({ output });
    })
    .post("/chat/messages/:id/stop", guard, async (c) => {
      const db = c.var.runtime.database.db;
      const messageId = c.req.param("id");
      await ownAnswer(db, c.var.viewer.id, messageId);
      if (!(await stopAnswer({ db, userId: c.var.viewer.id, messageId })))
        throw new AppError("conflict", "the answer has already ended");
      return c.body(null, 202);
    });
}

/** A file's name in ASCII (other characters as `_`), for clients that ignore `filename*`. */
const asciiName = (name: string) => name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");

/** The page's language as its request says it (`X-Locale`), else the account's. */
function askedLocale(c: Context<AppEnv & SignedInEnv>): Locale {
  const asked = c.req.header("X-Locale");
  const { locale } = c.var.viewer;
  return isLocale(asked) ? asked : isLocale(locale) ? locale : "en";
}

/** Starts the answer to a question (or the continuation of a cut answer) and streams it as the response. */
async function answerResponse(c: Context<AppEnv & SignedInEnv>, conversationId: string, parentId: string) {
  const { runtime, viewer } = c.var;
  const locale = askedLocale(c);
  const live = liveStream();
  const started = await startAnswer(
    {
      db: runtime.database.db,
      env: runtime.env,
      logger: c.var.logger,
      models: runtime.models,
      studio: { boss: runtime.boss, storage: runtime.storage, settings: runtime.settings, models: runtime.models },
    },
    { userId: viewer.id, role: viewer.role, conversationId, parentId, locale, onDelta: live.delta, onTool: live.tool },
  );
  const stream = live.open(
    { type: "start", messageId: started.messageId, messageMetadata: { parentId, creditsHeld: started.creditsHeld } },
    // The outcome without what the stream already carried (the text and the tools' parts).
    started.done.then(({ text: _text, parts: _parts, ...outcome }) => ({ ...outcome, messageId: started.messageId })),
  );
  return createUIMessageStreamResponse({ stream, headers: { "Cache-Control": "no-store" } });
}

/** A message of the account's conversations: where it is and what it is. */
async function ownMessage(db: Db, userId: string, messageId: string) {
  if (!isUuid(messageId)) throw new AppError("not_found", "no such message");
  const [message] = await db
    .select({
      conversationId: chatMessage.conversationId,
      parentId: chatMessage.parentId,
      role: chatMessage.role,
      status: chatMessage.status,
    })
    .from(chatMessage)
    .innerJoin(chatConversation, eq(chatConversation.id, chatMessage.conversationId))
    .where(and(eq(chatMessage.id, messageId), eq(chatConversation.userId, userId)));
  if (!message) throw new AppError("not_found", "no such message");
  return message;
}

/** An answer of the account's. */
async function ownAnswer(db: Db, userId: string, messageId: string) {
  const message = await ownMessage(db, userId, messageId);
  if (message.role !== "assistant") throw new AppError("not_found", "no such answer");
  return message;
}

/**
 * The stream of an answer being written here: deltas that come before the response's stream is read are kept and
 * sent first. A closed connection stops the sending only.
 */
function liveStream() {
  let controller: ReadableStreamDefaultController<UIMessageChunk> | undefined;
  let closed = false;
  const early: UIMessageChunk[] = [];
  const send = (chunk: UIMessageChunk) => {
    if (closed || !controller) return;
    try {
      controller.enqueue(chunk);
    } catch {
      closed = true;
    }
  };
  const queue = (chunks: UIMessageChunk[]) => {
    if (controller) chunks.forEach(send);
    else early.push(...chunks);
  };
  return {
    delta(text: string) {
      queue([{ type: "text-delta", id: TEXT_ID, delta: text }]);
    },
    tool(part: ChatPart) {
      queue(toolChunks(part));
    },
    open(start: UIMessageChunk, done: Promise<object>) {
      return new ReadableStream<UIMessageChunk>({
        start(c) {
          controller = c;
          send(start);
          send({ type: "text-start", id: TEXT_ID });
          for (const chunk of early.splice(0)) send(chunk);
          void done
            .then(
              (outcome) => finish(send, outcome),
              () => send({ type: "error", errorText: "error.unknown" }),
            )
            .finally(() => {
              if (!closed) c.close();
              closed = true;
            });
        },
        cancel() {
          closed = true;
        },
      });
    },
  };
}

/** A tool call and what it did, as the AI SDK's UI stream carries them (the page shows them as the message's parts). */
function toolChunks(part: ChatPart): UIMessageChunk[] {
  const toolCallId = String(part.toolCallId);
  const toolName = part.type.slice("tool-".length);
  return [
    { type: "tool-input-available", toolCallId, toolName, input: part.input },
    part.state === "output-error"
      ? { type: "tool-output-error", toolCallId, errorText: String(part.errorText) }
      : { type: "tool-output-available", toolCallId, output: part.output },
  ];
}

function finish(send: (chunk: UIMessageChunk) => void, outcome: object) {
  send({ type: "text-end", id: TEXT_ID });
  send({ type: "message-metadata", messageMetadata: outcome });
  send({ type: "finish" });
}

/**
 * An answer read back from the database: what is saved at once, then what is added, until it ends. It works whatever
 * process writes the answer.
 */
function resumed(db: Db, messageId: string): ReadableStream<UIMessageChunk> {
  let stopped = false;
  return new ReadableStream<UIMessageChunk>({
    async start(controller) {
      controller.enqueue({ type: "start", messageId });
      controller.enqueue({ type: "text-start", id: TEXT_ID });
      let sent = 0;
      let toolsSent = 0;
      while (!stopped) {
        const [row] = await db
          .select({
            text: chatMessage.text,
            parts: chatMessage.parts,
            status: chatMessage.status,
            inputTokens: chatMessage.inputTokens,
            outputTokens: chatMessage.outputTokens,
            creditsCharged: chatMessage.creditsCharged,
            errorCode: chatMessage.errorCode,
          })
          .from(chatMessage)
          .where(eq(chatMessage.id, messageId));
        if (!row) break;
        if (row.text.length > sent) {
          controller.enqueue({ type: "text-delta", id: TEXT_ID, delta: row.text.slice(sent) });
          sent = row.text.length;
        }
        for (const part of row.parts.filter((p) => p.type.startsWith("tool-")).slice(toolsSent)) {
          for (const chunk of toolChunks(part)) controller.enqueue(chunk);
          toolsSent++;
        }
        if (row.status !== "streaming") {
          const { parts: _parts, ...outcome } = row;
          finish((chunk) => controller.enqueue(chunk), { ...outcome, messageId });
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, RESUME_POLL_MS));
      }
      if (!stopped) controller.close();
    },
    cancel() {
      stopped = true;
    },
  });
}
