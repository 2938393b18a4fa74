import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Env } from "#server/env.ts";
import type { ChatBinding } from "#config/chat-models.ts";
import { createPromptHelperModel } from "#server/providers/demo/chat-model.ts";

// Passed explicitly: left unset, the SDKs would read process.env themselves.
const OPENAI_URL = "https://api.openai.com/v1";

/**
 * The AI SDK language model for one binding of a chat model. Each provider's package is loaded with its first
 * answer; OpenAI and compatible servers are spoken to through the chat completions API, which every compatible
 * server (Ollama, vLLM, LM Studio, OpenRouter) and proxy implements.
 */
export async function chatLanguageModel(binding: ChatBinding, env: Env): Promise<LanguageModelV4> {
  switch (binding.provider) {
    case "demo":
      return createPromptHelperModel();
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL ?? OPENAI_URL }).chat(
        binding.model,
      );
    }
    case "openai-compatible": {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: env.OPENAI_COMPATIBLE_BASE_URL!,
        apiKey: env.OPENAI_COMPATIBLE_API_KEY,
        includeUsage: true,
      }).chatModel(binding.model);
    }
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
