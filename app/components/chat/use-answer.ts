import { useCallback, useEffect, useMemo, useState } from "react";
import { Chat, useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { api } from "#app/lib/api.ts";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import type { ChatMessageView } from "#app/lib/chat-tree.ts";
import type { ToolPartView } from "#app/components/chat/tool-card.tsx";

/** How an answer ended, as the server says in its last message metadata. */
export interface AnswerOutcome {
  status: ChatMessageView["status"];
  creditsCharged?: number;
  outputTokens?: number;
  errorCode?: string | null;
}

/** How long the page waits before reconnecting to an answer after its connection was lost. */
const RECONNECT_DELAY_MS = 1_000;

type AnswerMessage = UIMessage<{ parentId?: string; creditsHeld?: number } & Partial<AnswerOutcome>>;

/** What is being written now and where it goes in the tree (see `useAnswer`). */
export interface Live {
  conversationId: string;
  /** The message the live ones follow: the question's parent when asking, the question when answering again, the
   * cut answer when continuing; null for a conversation's first question. */
  base: string | null;
  /** The question being sent, and the images it shows, shown at once. */
  question?: string;
  images: string[];
  /** The answer as it streams: the server's id (once it said it), its text, and how it ended. */
  answerId?: string;
  text: string;
  /** The tools it called, with what they did, as they come. */
  tools: ToolPartView[];
  outcome?: AnswerOutcome;
}

/** A refusal as the server said it: its code, and its message in the page's language. */
export interface Refusal {
  code?: string;
  message?: string;
}

function refusalOf(error: Error): Refusal {
  try {
    const body = JSON.parse(error.message) as { error?: { code?: string; message?: string } };
    if (body.error) return { code: body.error.code, message: body.error.message };
  } catch {
    // Not the server's answer (a lost connection): said as such by the page.
  }
  return {};
}

/** What the page is told as an answer streams and ends. */
interface Listeners {
  onRefusal: (refusal: Refusal | null) => void;
  onOutcome: (outcome: AnswerOutcome) => void;
  onEnded: () => Promise<void>;
  onCleared: () => void;
}

/**
 * The AI SDK chat behind the page, with what it needs outside React: the answer to reconnect to, and the page's
 * listeners (set again on each render).
 */
class AnswerSession {
  reconnectTo: string | null = null;
  listeners: Listeners | null = null;
  /** Counts the streams started here: what an earlier one does once it ended must not undo a later one. */
  run = 0;
  /** Answers shown to their end here: the page's data may still say they stream until it is read again. */
  readonly ended = new Set<string>();
  readonly chat = new Chat<AnswerMessage>({
    transport: new DefaultChatTransport({
      api: "/api/chat",
      credentials: "same-origin",
      headers: () => ({ "X-Locale": document.documentElement.lang || "en" }),
      // Each request names its own endpoint and body (see `useAnswer`).
      prepareSendMessagesRequest: ({ body }) => ({
        api: String(body?.endpoint),
        body: (body?.payload ?? {}) as object,
      }),
      prepareReconnectToStreamRequest: () => ({ api: `/api/chat/messages/${this.reconnectTo}/stream` }),
    }),
    onError: (error) => this.listeners?.onRefusal(refusalOf(error)),
    onFinish: ({ message, isAbort, isDisconnect }) => {
      // Left for another conversation: the answer goes on on the server, nothing to show here.
      if (isAbort) return;
      // The connection was lost while the answer was written: it goes on on the server; read it from there.
      const run = this.run;
      if (isDisconnect && message.role === "assistant" && message.id) {
        const answerId = message.id;
        this.listeners?.onRefusal(null);
        setTimeout(() => {
          // Unless another question was asked (or another conversation opened) meanwhile.
          if (this.run === run) void this.reconnect(answerId);
        }, RECONNECT_DELAY_MS);
        return;
      }
      const outcome = message.metadata?.status ? (message.metadata as AnswerOutcome) : undefined;
      if (outcome) this.listeners?.onOutcome(outcome);
      if (message.id) this.ended.add(message.id);
      // The credits moved (charged, or released); a refused question may have been saved unanswered.
      void refreshCredits();
      // The page's data is read again. An answer the server saved gives way to it when the page shows it ended
      // (see `useAnswer`), not before: until the new data is rendered, the page still holds the old one. A request
      // refused before any answer was saved is cleared once the data was read, unless another stream started.
      const saved = this.chat.messages.some((m) => m.id === message.id);
      void this.listeners?.onEnded().then(() => {
        if (!saved && this.run === run) this.clear();
      });
    },
  });

  listen(listeners: Listeners) {
    this.listeners = listeners;
  }

  /** A new stream starts here: earlier ones' endings leave it shown. */
  begin() {
    this.run += 1;
    this.clear();
  }

  clear() {
    this.chat.messages = [];
    this.listeners?.onCleared();
  }

  reconnect(answerId: string) {
    this.run += 1;
    this.reconnectTo = answerId;
    this.chat.messages = [];
    return this.chat.resumeStream();
  }
}

/**
 * Streams answers with the AI SDK's chat hook: a question (new, or an edited one that makes a branch), another answer
 * to a question, the rest of a cut answer, or an answer being written that the page reconnects to (after a refresh
 * or a lost connection). The server's stream carries the answer's id first and its outcome (status, credits, tokens)
 * last; `onEnded` is called when it is over, for the page to read the saved tree again. The page stops showing `live`
 * once its data has the answer ended (`endedIn`).
 */
export function useAnswer({ locale, onEnded }: { locale: string; onEnded: () => Promise<void> }) {
  const [live, setLive] = useState<Live | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [session] = useState(() => new AnswerSession());
  useEffect(() => {
    session.listen({
      onRefusal: setRefusal,
      onOutcome: (outcome) => setLive((current) => current && { ...current, outcome }),
      onEnded,
      onCleared: () => setLive(null),
    });
  }, [session, onEnded]);
  const { messages, status } = useChat({ chat: session.chat, experimental_throttle: 50 });

  const busy = status === "submitted" || status === "streaming";
  const answer = messages.findLast((m) => m.role === "assistant");
  const shown: Live | null = useMemo(
    () =>
      live && {
        ...live,
        answerId: answer?.id ?? live.answerId,
        text: answer ? answer.parts.map((p) => (p.type === "text" ? p.text : "")).join("") : live.text,
        tools: answer
          ? answer.parts.flatMap((p) =>
              p.type.startsWith("tool-") && "state" in p && p.state === "output-available"
                ? [{ type: p.type, toolCallId: p.toolCallId, output: p.output } as ToolPartView]
                : [],
            )
          : live.tools,
      },
    [live, answer],
  );

  const start = useCallback(
    async (next: Omit<Live, "text" | "tools">, endpoint: string, payload: object, question?: string) => {
      setRefusal(null);
      session.begin();
      setLive({ ...next, text: "", tools: [] });
      const options = { body: { endpoint, payload }, headers: { "X-Locale": locale } };
      if (question !== undefined) await session.chat.sendMessage({ text: question }, options);
      else await session.chat.sendMessage(undefined, options);
    },
    [session, locale],
  );

  return {
    live: shown,
    busy,
    refusal,
    clearRefusal: () => setRefusal(null),
    /** Asks `text` after `parentId` (null: as a new first question). */
    ask(
      conversationId: string,
      base: string | null,
      text: string,
      parentId: string | null,
      attachments: { assetId: string; preview: string }[] = [],
    ) {
      return start(
        { conversationId, base, question: text, images: attachments.map((a) => a.preview) },
        `/api/chat/conversations/${conversationId}/messages`,
        { text, parentId, ...(attachments.length > 0 && { attachments: attachments.map((a) => a.assetId) }) },
        text,
      );
    },
    /** Another answer to the question above `messageId` (or the first answer to a question left unanswered). */
    regenerate(conversationId: string, base: string, messageId: string) {
      return start({ conversationId, base, images: [] }, `/api/chat/messages/${messageId}/regenerate`, {});
    },
    /** The rest of an answer that was stopped or ran out of credits. */
    continueAnswer(conversationId: string, answerId: string) {
      return start({ conversationId, base: answerId, images: [] }, `/api/chat/messages/${answerId}/continue`, {});
    },
    /** Shows an answer still being written (by this process or another), from what is saved so far. */
    reconnect: useCallback(
      (conversationId: string, base: string | null, answerId: string) => {
        setRefusal(null);
        setLive({ conversationId, base, answerId, text: "", tools: [], images: [] });
        return session.reconnect(answerId);
      },
      [session],
    ),
    /** Asks the server to stop the answer: what it wrote is kept and charged, and the stream ends with it. */
    stop: useCallback(async () => {
      const id = shown?.answerId;
      if (!id) return;
      await api(`/chat/messages/${id}/stop`, { method: "POST" }).catch(() => undefined);
    }, [shown?.answerId]),
    /** Whether this answer was shown to its end here (the page's data may not say so yet). */
    hasEnded: useCallback((answerId: string) => session.ended.has(answerId), [session]),
    /** Leaves the answer being shown (another conversation is opened): it goes on being written on the server. */
    leave: useCallback(() => {
      void session.chat.stop();
      session.begin();
    }, [session]),
  };
}

/** Whether the page's data has the answer being shown live as ended: the saved one is shown instead. */
export function endedIn(messages: readonly ChatMessageView[], answerId: string | undefined): boolean {
  return answerId !== undefined && messages.some((m) => m.id === answerId && m.status !== "streaming");
}
