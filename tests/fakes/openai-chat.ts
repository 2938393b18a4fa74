import type { IncomingMessage, ServerResponse } from "node:http";
import { listen, readBody, sendJson } from "#tests/fakes/replicate.ts";

interface ChatRequest {
  model: string;
  messages: { role: string; content: unknown }[];
  stream?: boolean;
  max_tokens?: number;
  stream_options?: { include_usage?: boolean };
  tools?: { type: string; function: { name: string } }[];
  tool_choice?: unknown;
}

export interface FakeChatRequest {
  body: ChatRequest;
  authorization: string | undefined;
  /** True when the caller closed the connection before the answer ended (a stop reached the provider). */
  closedEarly: boolean;
}

export interface FakeOpenAIChat {
  /** Base URL of the API, for OPENAI_COMPATIBLE_BASE_URL (or OPENAI_BASE_URL). */
  apiUrl: string;
  requests: FakeChatRequest[];
  /** The answer to a request; by default a few sentences naming the last question. */
  reply: (body: ChatRequest) => string;
  /** The pause between two chunks of an answer, in milliseconds. */
  chunkDelayMs: number;
  /** The next N requests fail before answering, with this status and OpenAI's error body. */
  failNext: number;
  failStatus: number;
  /** The next N answers break off after this many chunks: the connection is cut without a final chunk. */
  breakNext: number;
  breakAfterChunks: number;
  /** When it gives a call (and tools were offered), the answer is that call of a tool instead of words. */
  toolCall: ((body: ChatRequest) => { name: string; arguments: string } | null) | null;
  close(): Promise<void>;
}

/** The fake's answer once a tool's result was sent back. */
export const fakeToolReply = (result: string) => `The tool said ${result}. That settles it.`;

/** The tokens a text counts as here: one per word and punctuation mark, so that tests can predict the usage. */
export const fakeTokens = (text: string) => (text.match(/\w+|[^\s\w]/gu) ?? []).length;

const lastQuestion = (body: ChatRequest) => {
  const last = body.messages.findLast((m) => m.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content as { type: string; text?: string }[])
    .map((p) => p.text ?? "")
    .join(" ")
    .trim();
};

/** The fake's default answer to a question. */
export const fakeReply = (question: string) =>
  `You asked about ${question}. Here is a first thought about it. And a second one, a little longer, to stream. That is all.`;

/**
 * A local OpenAI-compatible chat completions server, `POST /v1/chat/completions`, streaming as OpenAI does: one
 * `chat.completion.chunk` per word or two, a last chunk with the finish reason (`length` when `max_tokens` cut the
 * answer), a usage chunk when `stream_options.include_usage` is set, then `[DONE]`. It can fail before answering,
 * break an answer off mid-stream (the connection cut), and notes when its caller hung up early.
 */
export async function startFakeOpenAIChat(): Promise<FakeOpenAIChat> {
  const fake: Omit<FakeOpenAIChat, "apiUrl" | "close"> = {
    requests: [],
    reply: (body) => {
      const last = body.messages.at(-1);
      return last?.role === "tool" ? fakeToolReply(String(last.content)) : fakeReply(lastQuestion(body));
    },
    toolCall: null,
    chunkDelayMs: 5,
    failNext: 0,
    failStatus: 500,
    breakNext: 0,
    breakAfterChunks: 3,
  };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      sendJson(res, 404, { error: { message: "Not found", type: "invalid_request_error" } });
      return;
    }
    const body = JSON.parse((await readBody(req)).toString("utf8")) as ChatRequest;
    const recorded: FakeChatRequest = { body, authorization: req.headers.authorization, closedEarly: false };
    fake.requests.push(recorded);
    if (fake.failNext > 0) {
      fake.failNext--;
      sendJson(res, fake.failStatus, {
        error: { message: "The server had an error while processing your request.", type: "server_error" },
      });
      return;
    }
    const call = body.tools?.length && fake.toolCall ? fake.toolCall(body) : null;
    if (call) {
      const toolCall = { id: "call_fake_1", type: "function", function: call };
      const usage = { prompt_tokens: promptTokens(body), completion_tokens: 7, total_tokens: promptTokens(body) + 7 };
      if (!body.stream) {
        sendCompletion(res, body.model, {
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: null, tool_calls: [toolCall] },
              finish_reason: "tool_calls",
            },
          ],
          usage,
        });
        return;
      }
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
      const send = chunkWriter(res, body.model);
      send({ choices: [{ index: 0, delta: { role: "assistant", content: null }, finish_reason: null }] });
      send({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, ...toolCall, function: { name: call.name, arguments: "" } }] },
            finish_reason: null,
          },
        ],
      });
      send({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: call.arguments } }] },
            finish_reason: null,
          },
        ],
      });
      send({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
      if (body.stream_options?.include_usage) send({ choices: [], usage });
      res.end("data: [DONE]\n\n");
      return;
    }
    const whole = fake.reply(body);
    const words = whole.match(/\S+\s*/g) ?? [];
    const limit = body.max_tokens ?? Infinity;
    // Words are written while they fit in max_tokens, counted the way fakeTokens counts them.
    const chunks: string[] = [];
    let used = 0;
    let finishReason = "stop";
    for (const word of words) {
      const cost = fakeTokens(word);
      if (used + cost > limit) {
        finishReason = "length";
        break;
      }
      used += cost;
      chunks.push(word);
    }
    if (!body.stream) {
      sendCompletion(res, body.model, {
        choices: [{ index: 0, message: { role: "assistant", content: chunks.join("") }, finish_reason: finishReason }],
        usage: { prompt_tokens: promptTokens(body), completion_tokens: used, total_tokens: promptTokens(body) + used },
      });
      return;
    }
    const breaking = fake.breakNext > 0;
    if (breaking) fake.breakNext--;
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.on("close", () => {
      if (!res.writableFinished) recorded.closedEarly = true;
    });
    const send = chunkWriter(res, body.model);
    send({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    for (const [i, word] of chunks.entries()) {
      if (res.destroyed) return;
      if (breaking && i === fake.breakAfterChunks) {
        // A provider failing mid-answer: the connection is cut, with no final chunk.
        res.destroy();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, fake.chunkDelayMs));
      send({ choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
    }
    if (res.destroyed) return;
    send({ choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
    if (body.stream_options?.include_usage)
      send({
        choices: [],
        usage: { prompt_tokens: promptTokens(body), completion_tokens: used, total_tokens: promptTokens(body) + used },
      });
    res.end("data: [DONE]\n\n");
  };

  const server = await listen(handler);
  return Object.assign(fake, { apiUrl: `${server.url}/v1`, close: server.close });
}

/** A whole answer, `chat.completion`. */
function sendCompletion(res: ServerResponse, model: string, answer: Record<string, unknown>) {
  sendJson(res, 200, {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    ...answer,
  });
}

/** Writes a stream's `chat.completion.chunk`s, as server-sent events. */
function chunkWriter(res: ServerResponse, model: string) {
  const created = Math.floor(Date.now() / 1000);
  return (chunk: Record<string, unknown>) =>
    res.write(
      `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created, model, ...chunk })}\n\n`,
    );
}

/** The prompt's tokens, counted like the answer's. */
function promptTokens(body: ChatRequest) {
  return body.messages.reduce(
    (sum, m) => sum + 4 + fakeTokens(typeof m.content === "string" ? m.content : JSON.stringify(m.content)),
    0,
  );
}
