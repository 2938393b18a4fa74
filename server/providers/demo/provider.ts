import { z } from "zod";
import { defineProvider } from "#server/providers/definition.ts";
import { createPromptHelperModel } from "#server/providers/demo/chat-model.ts";
import { createDemoImageModel, demoSeedOf } from "#server/providers/demo/image-model.ts";
import { createDemoVideoModel } from "#server/providers/demo/video-model.ts";
import { merge } from "#server/providers/shared.ts";

const connectionSchema = z.object({
  /** DEMO_MODELS: the offline models are offered. */
  enabled: z.boolean(),
});
type Settings = z.infer<typeof connectionSchema>;

/** The offline demo: images, videos and a prompt helper made on this machine, with no key and no network. */
export const demoProvider = defineProvider({
  id: "demo",
  capabilities: ["image", "video", "chat"],
  connectionSchema,
  secrets: [],
  builtInConnection: (env): Settings => ({ enabled: env.DEMO_MODELS }),
  configured: (settings) => settings.enabled,
  local: true,
  // The demo's video model animates towards a last frame given as the SDK's frame image.
  frameImages: true,
  imageModel: async () => createDemoImageModel(),
  videoModel: async (_settings, _modelId, hooks) => createDemoVideoModel({ onProgress: hooks.onProgress }),
  chatModel: async () => createPromptHelperModel(),
  // Nothing to reach: the models run here whenever the demo is on.
  check: async (settings) =>
    settings.enabled
      ? { ok: true, detail: "the demo models run on this machine" }
      : { ok: false, code: "refused", detail: "the demo models are switched off (DEMO_MODELS)" },
  // Everything as the user gave it: the demo model reads the tool, the negative prompt, the strength, the scale and
  // what drew its input (when a demo result is the input) itself.
  imageInputs: (_modelId, req) => ({
    prompt: req.prompt,
    aspectRatio: req.aspectRatio,
    seed: req.seed,
    providerOptions: merge(
      req.providerOptions ?? {},
      "demo",
      {},
      {
        tool: req.tool,
        negativePrompt: req.negativePrompt,
        strength: req.strength,
        scale: req.scale,
        // Only its own results can be drawn again: the prompt and the exact seed that drew that image.
        origin:
          req.origin?.provider === "demo"
            ? {
                prompt: req.origin.prompt,
                ...(req.origin.negativePrompt ? { negativePrompt: req.origin.negativePrompt } : {}),
                seed: demoSeedOf(req.origin.prompt, req.origin.seed, req.origin.position),
              }
            : undefined,
      },
    ),
  }),
  // The prompt as the user wrote it; the model reads the style and the negative prompt from its options.
  videoInputs: (_modelId, req) => ({
    prompt: req.prompt,
    providerOptions: merge(
      req.providerOptions ?? {},
      "demo",
      {},
      { style: req.style, negativePrompt: req.negativePrompt },
    ),
  }),
});
