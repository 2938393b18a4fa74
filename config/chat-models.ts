import type { ProviderWith } from "#server/providers/registry.ts";
import type { ChatPrice } from "#config/chat-costs.ts";
import { compatibleId, type ModelPresentation } from "#config/models.ts";

export * from "#config/chat-costs.ts";

/** A registered provider that has chat models. */
export type ChatProvider = ProviderWith<"chat">;

/**
 * One way to run a chat model: a provider and its id for the model, on one connection or on each of the provider's.
 * Tried in order; a provider failure fails over.
 */
export interface ChatBinding {
  provider: ChatProvider;
  model: string;
  connection?: string;
  options?: Record<string, unknown>;
}

export type ResolvedChatBinding = ChatBinding & { connection: string };

export interface ChatModel<B extends ChatBinding = ResolvedChatBinding> extends ModelPresentation {
  kind: "chat";
  bindings: B[];
  price: ChatPrice;
  /** The most tokens the model reads (the conversation sent is cut to fit) and writes in one answer. */
  contextTokens: number;
  maxOutputTokens: number;
  /** Reads images attached to a question. */
  vision: boolean;
  /** Calls tools: the chat offers it the studio's (an image, a video). */
  tools: boolean;
}

/** The chat catalog; a model is offered only when at least one of its providers is configured. */
export const chatCatalog: ChatModel<ChatBinding>[] = [
  {
    kind: "chat",
    id: "prompt-helper",
    name: "Atelier Prompt Helper",
    bindings: [{ provider: "demo", model: "prompt-helper" }],
    price: { inputPerMillion: 1_000, outputPerMillion: 4_000 },
    contextTokens: 8_000,
    maxOutputTokens: 1_000,
    vision: false,
    tools: true,
    offline: true,
  },
  {
    kind: "chat",
    id: "gpt-4o-mini",
    name: "GPT-4o mini",
    bindings: [{ provider: "openai", model: "gpt-4o-mini" }],
    price: { inputPerMillion: 50, outputPerMillion: 200 },
    contextTokens: 128_000,
    maxOutputTokens: 4_096,
    vision: true,
    tools: true,
  },
  {
    kind: "chat",
    id: "gpt-4.1",
    name: "GPT-4.1",
    bindings: [{ provider: "openai", model: "gpt-4.1" }],
    price: { inputPerMillion: 600, outputPerMillion: 2_400 },
    contextTokens: 128_000,
    maxOutputTokens: 8_192,
    vision: true,
    tools: true,
  },
  {
    kind: "chat",
    id: "claude-sonnet-4",
    name: "Claude Sonnet 4",
    bindings: [{ provider: "anthropic", model: "claude-sonnet-4-20250514" }],
    price: { inputPerMillion: 900, outputPerMillion: 4_500 },
    contextTokens: 200_000,
    maxOutputTokens: 8_192,
    vision: true,
    tools: true,
  },
  {
    kind: "chat",
    id: "gemini-2.5-flash",
    name: "Gemini 2.5 Flash",
    bindings: [{ provider: "google", model: "gemini-2.5-flash" }],
    price: { inputPerMillion: 100, outputPerMillion: 800 },
    contextTokens: 1_000_000,
    maxOutputTokens: 8_192,
    vision: true,
    tools: true,
  },
];

/** Chat models of the OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter) the environment names. */
export function compatibleChatModels(chatModels: readonly string[]): ChatModel<ChatBinding>[] {
  return chatModels.map((model) => ({
    kind: "chat" as const,
    id: compatibleId(model),
    name: model,
    bindings: [{ provider: "openai-compatible" as const, model }],
    price: { inputPerMillion: 100, outputPerMillion: 400 },
    contextTokens: 32_000,
    maxOutputTokens: 4_096,
    vision: false,
    // Not every model such a server runs calls tools; none is offered them.
    tools: false,
  }));
}
