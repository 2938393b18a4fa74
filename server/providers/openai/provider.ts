import { z } from "zod";
import type { ImageAspectRatio } from "#server/providers/generate.ts";
import { defineProvider } from "#server/providers/definition.ts";
import { checkWithRead, foldNegative, invalidSettings, joinUrl } from "#server/providers/shared.ts";

// Passed explicitly: left unset, the SDK would read process.env itself.
const OPENAI_URL = "https://api.openai.com/v1";

const connectionSchema = z.object({
  apiKey: z.string().min(1).optional(),
  /** A proxy or a local stand-in. */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

type Size = `${number}x${number}`;

const GPT_IMAGE_SIZES: Record<ImageAspectRatio, Size> = {
  "1:1": "1024x1024",
  "4:3": "1536x1024",
  "16:9": "1536x1024",
  "3:4": "1024x1536",
  "9:16": "1024x1536",
};
const DALL_E_3_SIZES: Record<ImageAspectRatio, Size> = {
  "1:1": "1024x1024",
  "4:3": "1792x1024",
  "16:9": "1792x1024",
  "3:4": "1024x1792",
  "9:16": "1024x1792",
};

function openaiSize(modelId: string, aspectRatio: ImageAspectRatio): Size {
  if (modelId.startsWith("dall-e-2")) return "1024x1024";
  if (modelId.startsWith("dall-e-3")) return DALL_E_3_SIZES[aspectRatio];
  return GPT_IMAGE_SIZES[aspectRatio];
}

// The SDK is loaded with the first job: an installation uses one or two providers, or none.
/** OpenAI's API (images, and chat through chat completions), at the connection's base URL when set. */
async function openaiClient(settings: Settings) {
  const { createOpenAI } = await import("@ai-sdk/openai");
  return createOpenAI({ apiKey: settings.apiKey, baseURL: settings.baseURL ?? OPENAI_URL });
}

/** OpenAI: images (GPT Image, DALL·E) and chat, through chat completions. */
export const openaiProvider = defineProvider({
  id: "openai",
  capabilities: ["image", "chat"],
  connectionSchema,
  secrets: ["apiKey"],
  builtInConnection: (env): Settings => ({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL }),
  configured: (settings) => Boolean(settings.apiKey),
  imageModel: async (settings, modelId) => (await openaiClient(settings)).image(modelId),
  chatModel: async (settings, modelId) => (await openaiClient(settings)).chat(modelId),
  // List models (GET /models): authenticated, free, and generates nothing.
  check: async (settings, signal) =>
    settings.apiKey
      ? checkWithRead(
          {
            url: joinUrl(settings.baseURL ?? OPENAI_URL, "/models"),
            headers: { authorization: `Bearer ${settings.apiKey}` },
            secrets: [settings.apiKey],
          },
          signal,
        )
      : invalidSettings("no API key is set"),
  // Its edits read a mask's transparent pixels as the area to change.
  maskAsAlpha: true,
  // GPT image models take neither seed nor aspect ratio, and have no strength or negative prompt.
  imageInputs: (modelId, req) => ({
    prompt: foldNegative(req),
    size: req.aspectRatio ? openaiSize(modelId, req.aspectRatio) : undefined,
    providerOptions: req.providerOptions ?? {},
  }),
});
