import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Env } from "#server/env.ts";
import type { ChatBinding } from "#config/chat-models.ts";
import { createPromptHelperModel } from "#server/providers/demo/chat-model.ts";
import { openaiCompatibleProvider, openaiProvider } from "#server/providers/external.ts";

/**
 * The AI SDK language model for one binding of a chat model. Each provider's package is loaded with its first
 * answer; OpenAI and compatible servers are spoken to through the chat completions API, which every compatible
 * server (Ollama, vLLM, LM Studio, OpenRouter) and proxy implements.
 */
export async function chatLanguageModel(binding: ChatBinding, env: Env): Promise<LanguageModelV4> {
  switch (binding.provider) {
    case "demo":
      return createPromptHelperModel();
    case "openai":
      return (await openaiProvider(env)).chat(binding.model);
    case "openai-compatible":
      return (await openaiCompatibleProvider(env)).chatModel(binding.model);
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL }).languageModel(
        binding.model,
      );
    }
    case "google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return createGoogleGenerativeAI({
        apiKey: env.GOOGLE_GENERATIVE_AI_API_KEY,
        baseURL: env.GOOGLE_BASE_URL,
      }).languageModel(binding.model);
    }
  }
}
