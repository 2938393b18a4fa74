import { z } from "zod";
import { defineProvider } from "#server/providers/definition.ts";

const connectionSchema = z.object({
  apiKey: z.string().min(1).optional(),
  /** A proxy or a local stand-in. */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

/** Google's Gemini API: chat models (Gemini). */
export const googleProvider = defineProvider({
  id: "google",
  capabilities: ["chat"],
  connectionSchema,
  secrets: ["apiKey"],
  builtInConnection: (env): Settings => ({ apiKey: env.GOOGLE_GENERATIVE_AI_API_KEY, baseURL: env.GOOGLE_BASE_URL }),
  configured: (settings) => Boolean(settings.apiKey),
  chatModel: async (settings, modelId) => {
    const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
    return createGoogleGenerativeAI({ apiKey: settings.apiKey, baseURL: settings.baseURL }).languageModel(modelId);
  },
});
