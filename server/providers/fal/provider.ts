import type { Experimental_VideoModelV4 as VideoModelV4 } from "@ai-sdk/provider";
import { z } from "zod";
import type { VideoRequest } from "#server/providers/generate.ts";
import { defineProvider } from "#server/providers/definition.ts";
import { ProviderHttpError } from "#server/providers/errors.ts";
import { describeFal } from "#server/providers/fal/describe.ts";
import {
  checkWithRead,
  foldStyle,
  invalidSettings,
  joinUrl,
  merge,
  trustOutputsFrom,
} from "#server/providers/shared.ts";

const FAL_URL = "https://fal.run";
const FAL_QUEUE_URL = "https://queue.fal.run";
/** fal's Platform API (model search, pricing, usage). */
const FAL_API_URL = "https://api.fal.ai";
/** An endpoint whose price the connection check reads: one of the built-in catalog's, long on fal. */
const CHECK_ENDPOINT = "fal-ai/flux/schnell";

const connectionSchema = z.object({
  apiKey: z.string().min(1).optional(),
  /**
   * Replaces fal's hosts: synchronous calls go to it, queued ones (video) to `<baseURL>/queue`, the Platform API
   * (the connection check) to `<baseURL>/api`; video outputs are trusted from its host.
   */
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

/** The inputs fal's image model renames from camelCase (its own list). */
const CAMEL_CASED: Record<string, string> = {
  image_url: "imageUrl",
  mask_url: "maskUrl",
  guidance_scale: "guidanceScale",
  num_inference_steps: "numInferenceSteps",
  enable_safety_checker: "enableSafetyChecker",
  output_format: "outputFormat",
  sync_mode: "syncMode",
  safety_tolerance: "safetyTolerance",
};

/** fal.ai: image and video models, by endpoint id. */
export const falProvider = defineProvider({
  id: "fal",
  capabilities: ["image", "video"],
  connectionSchema,
  secrets: ["apiKey"],
  builtInConnection: (env): Settings => ({ apiKey: env.FAL_KEY, baseURL: env.FAL_BASE_URL }),
  configured: (settings) => Boolean(settings.apiKey),
  // fal's image model takes a few inputs under camelCase names (it warns on their snake_case names) and passes every
  // other name through as it is; its video model passes them all as they are.
  inputFields: (fields, kind) =>
    kind === "video"
      ? fields
      : Object.fromEntries(Object.entries(fields).map(([name, value]) => [CAMEL_CASED[name] ?? name, value])),
  imageModel: async (settings, modelId) => {
    const { createFal } = await import("@ai-sdk/fal");
    return createFal({ apiKey: settings.apiKey, baseURL: settings.baseURL ?? FAL_URL }).image(modelId);
  },
  videoModel: async (settings, modelId) => {
    const { createFal } = await import("@ai-sdk/fal");
    const model = createFal({ apiKey: settings.apiKey, fetch: falQueueFetch(settings.baseURL) }).video(modelId);
    // @ai-sdk/fal is typed against an older @ai-sdk/provider whose webhook JSONValue predates readonly objects;
    // nothing else differs and Atelier does not use webhooks.
    return trustOutputsFrom(model as unknown as VideoModelV4, settings.baseURL);
  },
  // The Platform API's pricing read (GET /v1/models/pricing), which requires a valid key and costs nothing; its
  // model search takes a key but does not require one, so it would not tell a wrong key.
  check: async (settings, signal) =>
    settings.apiKey
      ? checkWithRead(
          {
            url: joinUrl(platformApi(settings), `/v1/models/pricing?endpoint_id=${encodeURIComponent(CHECK_ENDPOINT)}`),
            headers: { authorization: `Key ${settings.apiKey}` },
            secrets: [settings.apiKey],
          },
          signal,
        )
      : invalidSettings("no API key is set"),
  // The Platform API's model search with the endpoint's OpenAPI document, and its price.
  describe: (settings, modelId, signal, options) =>
    describeFal({ url: platformApi(settings), apiKey: settings.apiKey }, modelId, signal, options),
  // The aspect ratio, the seed, and the negative prompt and strength as model inputs.
  imageInputs: (_modelId, req) => ({
    prompt: req.prompt,
    aspectRatio: req.aspectRatio,
    seed: req.seed,
    // snake_case because the fal model passes unknown keys through as they are; `strength` it maps itself.
    providerOptions: merge(
      req.providerOptions ?? {},
      "fal",
      {},
      { negative_prompt: req.negativePrompt, strength: req.inputImage ? req.strength : undefined },
    ),
  }),
  videoInputs: (modelId, req) => ({
    prompt: foldStyle(req),
    providerOptions: merge(
      req.providerOptions ?? {},
      "fal",
      {},
      { negativePrompt: req.negativePrompt, duration: falDuration(modelId, req) },
    ),
  }),
});

/** fal's Platform API, or its stand-in under a base URL. */
function platformApi(settings: Settings): string {
  return settings.baseURL ? joinUrl(settings.baseURL, "/api") : FAL_API_URL;
}

/**
 * The fal model sends the duration as "5s", the form Luma and Veo take. Kling, Wan, MiniMax and most other fal
 * video models declare "5" | "10" or an integer (fal coerces "5"), so send the bare number unless it is one of those.
 */
function falDuration(modelId: string, req: VideoRequest): string | undefined {
  return /luma|veo/i.test(modelId) ? undefined : String(req.duration);
}

/**
 * The fetch behind fal's video model, which always calls https://queue.fal.run (it ignores `baseURL`) and trusts
 * only URLs on the origin it submitted to. With a base URL set, queue calls go to `${baseURL}/queue` and say
 * which public host they were meant for (X-Forwarded-Host), so the status and result URLs the server answers with
 * stay on queue.fal.run and come back through here. It also raises result-endpoint errors with their status and body,
 * which the model would reduce to a status text.
 */
function falQueueFetch(baseURL: string | undefined): typeof fetch {
  return async (input, init) => {
    if (typeof input !== "string" && !(input instanceof URL)) return fetch(input, init);
    const requested = String(input);
    let target = requested;
    const headers = new Headers(init?.headers);
    if (baseURL && requested.startsWith(`${FAL_QUEUE_URL}/`)) {
      target = `${baseURL.replace(/\/+$/, "")}/queue${requested.slice(FAL_QUEUE_URL.length)}`;
      headers.set("x-forwarded-host", new URL(FAL_QUEUE_URL).host);
      headers.set("x-forwarded-proto", "https");
    }
    const response = await fetch(target, { ...init, headers });
    const isResultPoll = (init?.method ?? "GET") === "GET" && /\/requests\/[^/]+$/.test(new URL(requested).pathname);
    if (isResultPoll && !response.ok) {
      const body = await response.clone().text();
      if (!isStillInProgress(body))
        throw new ProviderHttpError({ url: requested, statusCode: response.status, responseBody: body });
    }
    return response;
  };
}

/** fal's result endpoint answers an unfinished request with an error status and this detail; the model polls on. */
function isStillInProgress(body: string): boolean {
  try {
    return (JSON.parse(body) as { detail?: unknown }).detail === "Request is still in progress";
  } catch {
    return false;
  }
}
