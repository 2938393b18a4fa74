import { z } from "zod";
import type { ImageAspectRatio } from "#server/providers/generate.ts";
import { defineProvider } from "#server/providers/definition.ts";
import { describeOpenAICompatible } from "#server/providers/openai-compatible/describe.ts";
import { checkWithRead, foldNegative, invalidSettings, joinUrl } from "#server/providers/shared.ts";

const connectionSchema = z.object({
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

// Servers behind OpenAI-compatible APIs mostly run SDXL-class models, which do best at their training resolutions.
const SDXL_SIZES: Record<ImageAspectRatio, `${number}x${number}`> = {
  "1:1": "1024x1024",
  "4:3": "1152x896",
  "3:4": "896x1152",
  "16:9": "1344x768",
  "9:16": "768x1344",
};

/** The OpenAI-compatible server of a connection (images and chat; a stream ends with its usage). */
async function compatibleClient(settings: Settings) {
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  return createOpenAICompatible({
    // Also the providerOptions key, camel-cased by the SDK: `openaiCompatible`.
    name: "openai-compatible",
    baseURL: settings.baseURL!,
    apiKey: settings.apiKey,
    includeUsage: true,
  });
}

/** Any server speaking OpenAI's API (Ollama, vLLM, LM Studio, OpenRouter, LocalAI): images and chat. */
export const openaiCompatibleProvider = defineProvider({
  id: "openai-compatible",
  optionsKey: "openaiCompatible",
  capabilities: ["image", "chat"],
  connectionSchema,
  secrets: ["apiKey"],
  builtInConnection: (env): Settings => ({
    baseURL: env.OPENAI_COMPATIBLE_BASE_URL,
    apiKey: env.OPENAI_COMPATIBLE_API_KEY,
  }),
  // Its models are those the catalog binds to it: the environment's lists, or models added on a connection.
  configured: (settings) => Boolean(settings.baseURL),
  imageModel: async (settings, modelId) => (await compatibleClient(settings)).imageModel(modelId),
  chatModel: async (settings, modelId) => (await compatibleClient(settings)).chatModel(modelId),
  // OpenAI's list models (GET /models), which Ollama, vLLM, LM Studio, LocalAI and OpenRouter all serve; the key
  // only when there is one.
  check: async (settings, signal) =>
    settings.baseURL
      ? checkWithRead(
          {
            url: joinUrl(settings.baseURL, "/models"),
            headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
            secrets: [settings.apiKey],
          },
          signal,
        )
      : invalidSettings("no base URL is set"),
  // Its model list: the id must be on it; the common fields only.
  describe: (settings, modelId, signal) =>
    describeOpenAICompatible({ url: settings.baseURL, apiKey: settings.apiKey }, modelId, signal),
  imageInputs: (_modelId, req) => ({
    prompt: foldNegative(req),
    size: req.aspectRatio ? SDXL_SIZES[req.aspectRatio] : undefined,
    providerOptions: req.providerOptions ?? {},
  }),
});
