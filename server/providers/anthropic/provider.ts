import { z } from "zod";
import { defineProvider } from "#server/providers/definition.ts";

const connectionSchema = z.object({
  apiKey: z.string().min(1).optional(),
  /** A proxy or a local stand-in. */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

/** Anthropic: chat models (Claude). */
export const anthropicProvider = defineProvider({
  id: "anthropic",
  capabilities: ["chat"],
  connectionSchema,
  secrets: ["apiKey"],
  builtInConnection: (env): Settings => ({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL }),
  configured: (settings) => Boolean(settings.apiKey),
  chatModel: async (settings, modelId) => {
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    return createAnthropic({ apiKey: settings.apiKey, baseURL: settings.baseURL }).languageModel(modelId);
  },
});
