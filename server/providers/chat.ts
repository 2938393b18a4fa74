import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Env } from "#server/env.ts";
import type { ChatBinding } from "#config/chat-models.ts";
import { providerDefinition } from "#server/providers/registry.ts";

/**
 * The AI SDK language model for one binding of a chat model, made by its provider's definition from the provider's
 * built-in connection. Each provider's package is loaded with its first answer; OpenAI and compatible servers are
 * spoken to through the chat completions API, which every compatible server (Ollama, vLLM, LM Studio, OpenRouter)
 * and proxy implements.
 */
export async function chatLanguageModel(binding: ChatBinding, env: Env): Promise<LanguageModelV4> {
  const definition = providerDefinition(binding.provider);
  if (!definition.chatModel) throw new Error(`${binding.provider} has no chat models`);
  return definition.chatModel(definition.builtInConnection(env), binding.model);
}
