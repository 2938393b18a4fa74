import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ResolvedChatBinding } from "#config/chat-models.ts";
import { connectionOf, type ConnectionSource } from "#server/providers/index.ts";

/**
 * The AI SDK language model for one binding of a chat model, made by its provider's definition from the binding's
 * connection. Each provider's package is loaded with its first answer; OpenAI and compatible servers are spoken to
 * through the chat completions API, which every compatible server (Ollama, vLLM, LM Studio, OpenRouter) and proxy
 * implements.
 */
export async function chatLanguageModel(
  binding: ResolvedChatBinding,
  connections: ConnectionSource,
): Promise<LanguageModelV4> {
  const { definition, settings } = await connectionOf(connections, binding);
  if (!definition.chatModel) throw new Error(`${binding.provider} has no chat models`);
  return definition.chatModel(settings, binding.model);
}
