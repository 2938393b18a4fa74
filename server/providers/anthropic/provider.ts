import { z } from "zod";
import { defineProvider } from "#server/providers/definition.ts";
import { checkWithRead, invalidSettings, joinUrl } from "#server/providers/shared.ts";

const ANTHROPIC_URL = "https://api.anthropic.com";
/** The API version the AI SDK's Anthropic provider sends. */
const ANTHROPIC_VERSION = "2023-06-01";

const connectionSchema = z.object({
  apiKey: z.string().min(1).optional(),
  /** A proxy or a local stand-in. */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

/** The base URL as the AI SDK reads it: the versioned API unless set, a bare api.anthropic.com given its `/v1`. */
function apiBase(baseURL: string | undefined): string {
  const base = (baseURL ?? ANTHROPIC_URL).replace(/\/+$/, "");
  return base === ANTHROPIC_URL ? `${ANTHROPIC_URL}/v1` : base;
}

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
  // List models (GET /v1/models), one model asked for: authenticated and free.
  check: async (settings, signal) =>
    settings.apiKey
      ? checkWithRead(
          {
            url: joinUrl(apiBase(settings.baseURL), "/models?limit=1"),
            headers: { "x-api-key": settings.apiKey, "anthropic-version": ANTHROPIC_VERSION },
            secrets: [settings.apiKey],
          },
          signal,
        )
      : invalidSettings("no API key is set"),
});
