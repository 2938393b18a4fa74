import { z } from "zod";
import type { VideoRequest } from "#server/providers/generate.ts";
import { defineProvider } from "#server/providers/definition.ts";
import {
  checkWithRead,
  foldNegative,
  foldStyle,
  invalidSettings,
  joinUrl,
  merge,
  trustOutputsFrom,
} from "#server/providers/shared.ts";

// Passed explicitly: left unset, the SDK would read process.env itself.
const GOOGLE_URL = "https://generativelanguage.googleapis.com/v1beta";

const connectionSchema = z.object({
  apiKey: z.string().min(1).optional(),
  /** A proxy or a local stand-in, up to the API version (`…/v1beta`); video outputs are trusted from its host. */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

// The SDK is loaded with the first job: an installation uses one or two providers, or none.
async function googleClient(settings: Settings, fetch?: typeof globalThis.fetch) {
  const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
  return createGoogleGenerativeAI({ apiKey: settings.apiKey, baseURL: settings.baseURL ?? GOOGLE_URL, fetch });
}

interface VeoOperation {
  done?: boolean;
  response?: {
    generateVideoResponse?: {
      generatedSamples?: unknown[];
      raiMediaFilteredCount?: number;
      raiMediaFilteredReasons?: string[];
    };
  };
}

/**
 * The fetch behind Veo's model. A video Google's filters held back ends as a finished operation with
 * `raiMediaFilteredReasons` and no samples; the SDK's schema drops those reasons and reports a bare "no videos",
 * which reads as a broken answer. This raises the refusal, with Google's reason, instead.
 */
async function veoFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  if (!response.ok || (init?.method ?? "GET") !== "GET" || !/\/operations\/[^/]+$/.test(new URL(url).pathname))
    return response;
  const operation = (await response
    .clone()
    .json()
    .catch(() => undefined)) as VeoOperation | undefined;
  const answer = operation?.done ? operation.response?.generateVideoResponse : undefined;
  const filtered = Boolean(answer?.raiMediaFilteredCount) || Boolean(answer?.raiMediaFilteredReasons?.length);
  if (answer && filtered && !answer.generatedSamples?.length) {
    const reason = answer.raiMediaFilteredReasons?.join(" ") || "no reason given";
    throw new Error(`Veo's safety filters held the video back: ${reason}`);
  }
  return response;
}

/** The clip lengths Veo 3 makes, in seconds. */
const VEO_SECONDS = [4, 6, 8] as const;
const VEO_LONGEST = 8;

/** The shortest clip Veo makes that is at least as long as the one asked for, or its longest. */
export function veoDuration(req: Pick<VideoRequest, "duration">): number {
  return VEO_SECONDS.find((s) => s >= req.duration) ?? VEO_LONGEST;
}

/**
 * Google's Gemini API: chat (Gemini), images (Gemini's image models, "Nano Banana", through `generateContent`) and
 * videos (Veo, through `predictLongRunning` and its operation). Imagen was shut down on this API and the SDK no
 * longer speaks to it.
 */
export const googleProvider = defineProvider({
  id: "google",
  capabilities: ["image", "video", "chat"],
  connectionSchema,
  secrets: ["apiKey"],
  builtInConnection: (env): Settings => ({ apiKey: env.GOOGLE_GENERATIVE_AI_API_KEY, baseURL: env.GOOGLE_BASE_URL }),
  configured: (settings) => Boolean(settings.apiKey),
  chatModel: async (settings, modelId) => (await googleClient(settings)).languageModel(modelId),
  // One image a call: `n` above one makes parallel calls.
  imageModel: async (settings, modelId) => (await googleClient(settings)).image(modelId),
  videoModel: async (settings, modelId) =>
    trustOutputsFrom((await googleClient(settings, veoFetch)).video(modelId), settings.baseURL),
  // Gemini's image models take the aspect ratio and the seed; they have no negative prompt (told in words) and no
  // strength (an input image is edited as the prompt says).
  imageInputs: (_modelId, req) => ({
    prompt: foldNegative(req),
    aspectRatio: req.aspectRatio,
    seed: req.seed,
    providerOptions: req.providerOptions ?? {},
  }),
  // Veo takes the negative prompt as a parameter and clips of its own lengths, sent over the SDK's duration.
  videoInputs: (_modelId, req) => ({
    prompt: foldStyle(req),
    providerOptions: merge(
      req.providerOptions ?? {},
      "google",
      {},
      { negativePrompt: req.negativePrompt, durationSeconds: veoDuration(req) },
    ),
  }),
  // models.list (GET /v1beta/models; the default base URL is the AI SDK's), one model asked for. Google refuses a
  // wrong key with 400 INVALID_ARGUMENT and the reason API_KEY_INVALID, a missing one with 403.
  check: async (settings, signal) =>
    settings.apiKey
      ? checkWithRead(
          {
            url: joinUrl(settings.baseURL ?? GOOGLE_URL, "/models?pageSize=1"),
            headers: { "x-goog-api-key": settings.apiKey },
            secrets: [settings.apiKey],
            unauthorized: (status, body) => status === 400 && body.includes('"API_KEY_INVALID"'),
          },
          signal,
        )
      : invalidSettings("no API key is set"),
});
