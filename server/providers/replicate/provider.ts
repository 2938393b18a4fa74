import { z } from "zod";
import { defineProvider } from "#server/providers/definition.ts";
import { describeReplicate } from "#server/providers/replicate/describe.ts";
import {
  checkWithRead,
  foldStyle,
  invalidSettings,
  joinUrl,
  merge,
  trustOutputsFrom,
} from "#server/providers/shared.ts";

// Passed explicitly: left unset, the SDK would read process.env itself.
const REPLICATE_URL = "https://api.replicate.com/v1";

// The SDK's defaults (500 ms, 240 polls) give up on a slow Replicate prediction after two minutes; the engine's
// own deadline, through the abort signal, is the one that should end a run.
const REPLICATE_POLLING = { pollIntervalMillis: 1000, maxPollAttempts: 3600 };

const connectionSchema = z.object({
  apiToken: z.string().min(1).optional(),
  /** A proxy or a local stand-in; video outputs are trusted from its host. */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

async function replicateClient(settings: Settings) {
  const { createReplicate } = await import("@ai-sdk/replicate");
  return createReplicate({ apiToken: settings.apiToken, baseURL: settings.baseURL ?? REPLICATE_URL });
}

/** Replicate: image and video models, by owner/name. */
export const replicateProvider = defineProvider({
  id: "replicate",
  capabilities: ["image", "video"],
  connectionSchema,
  secrets: ["apiToken"],
  builtInConnection: (env): Settings => ({ apiToken: env.REPLICATE_API_TOKEN, baseURL: env.REPLICATE_BASE_URL }),
  configured: (settings) => Boolean(settings.apiToken),
  imageModel: async (settings, modelId) => (await replicateClient(settings)).image(modelId),
  videoModel: async (settings, modelId) =>
    trustOutputsFrom((await replicateClient(settings)).video(modelId), settings.baseURL),
  // The authenticated account (GET /account): whose the token is, at no cost.
  check: async (settings, signal) =>
    settings.apiToken
      ? checkWithRead(
          {
            url: joinUrl(settings.baseURL ?? REPLICATE_URL, "/account"),
            headers: { authorization: `Bearer ${settings.apiToken}` },
            secrets: [settings.apiToken],
            describe: (account) => {
              const username = (account as { username?: unknown } | null)?.username;
              return typeof username === "string" ? `account ${username}` : undefined;
            },
          },
          signal,
        )
      : invalidSettings("no API token is set"),
  // The model's latest version and its OpenAPI schema.
  describe: (settings, modelId, signal, options) =>
    describeReplicate(
      { url: settings.baseURL ?? REPLICATE_URL, apiToken: settings.apiToken },
      modelId,
      signal,
      options,
    ),
  // The aspect ratio, the seed, and the negative prompt and strength as model inputs.
  imageInputs: (_modelId, req) => ({
    prompt: req.prompt,
    aspectRatio: req.aspectRatio,
    seed: req.seed,
    providerOptions: merge(req.providerOptions ?? {}, "replicate", REPLICATE_POLLING, {
      negative_prompt: req.negativePrompt,
      // Replicate's img2img models (Flux dev, SDXL, SD 3.5) call it prompt_strength, not the SDK's `strength`.
      prompt_strength: req.inputImage ? req.strength : undefined,
    }),
  }),
  videoInputs: (_modelId, req) => ({
    prompt: foldStyle(req),
    providerOptions: merge(req.providerOptions ?? {}, "replicate", {}, { negative_prompt: req.negativePrompt }),
  }),
});
