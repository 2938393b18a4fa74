import { z } from "zod";
import { defineProvider } from "#server/providers/definition.ts";
import { checkWithRead, invalidSettings, joinUrl } from "#server/providers/shared.ts";

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
  // models.list (GET /v1beta/models; the default base URL is the AI SDK's), one model asked for. Google refuses a
  // wrong key with 400 INVALID_ARGUMENT and the reason API_KEY_INVALID, a missing one with 403.
  check: async (settings, signal) =>
    settings.apiKey
      ? checkWithRead(
          {
            url: joinUrl(settings.baseURL ?? "https://generativelanguage.googleapis.com/v1beta", "/models?pageSize=1"),
            headers: { "x-goog-api-key": settings.apiKey },
            secrets: [settings.apiKey],
            unauthorized: (status, body) => status === 400 && body.includes('"API_KEY_INVALID"'),
          },
          signal,
        )
      : invalidSettings("no API key is set"),
  chatModel: async (settings, modelId) => {
    const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
    return createGoogleGenerativeAI({ apiKey: settings.apiKey, baseURL: settings.baseURL }).languageModel(modelId);
  },
});
