import type { Experimental_VideoModelV4 as VideoModelV4, ImageModelV4 } from "@ai-sdk/provider";
import type { Env } from "#server/env.ts";
import { ProviderHttpError } from "#server/providers/errors.ts";

export type ExternalProvider = "openai" | "replicate" | "fal" | "openai-compatible";

/** Providers whose SDK package has a video model (`@ai-sdk/openai` has none). */
export type ExternalVideoProvider = "replicate" | "fal";

// Passed explicitly: left unset, the OpenAI and Replicate SDKs would read process.env themselves.
const OPENAI_URL = "https://api.openai.com/v1";
const REPLICATE_URL = "https://api.replicate.com/v1";
const FAL_URL = "https://fal.run";
const FAL_QUEUE_URL = "https://queue.fal.run";

export function externalProviderConfigured(provider: ExternalProvider, env: Env): boolean {
  switch (provider) {
    case "openai":
      return Boolean(env.OPENAI_API_KEY);
    case "replicate":
      return Boolean(env.REPLICATE_API_TOKEN);
    case "fal":
      return Boolean(env.FAL_KEY);
    case "openai-compatible":
      return Boolean(env.OPENAI_COMPATIBLE_BASE_URL);
  }
}

// Each provider's SDK is loaded with its first job: an installation uses one or two of them, or none.

/** OpenAI's API (images, and chat through chat completions), at OPENAI_BASE_URL when set. */
export async function openaiProvider(env: Env) {
  const { createOpenAI } = await import("@ai-sdk/openai");
  return createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL ?? OPENAI_URL });
}

/** The OpenAI-compatible server of OPENAI_COMPATIBLE_BASE_URL (images and chat; a stream ends with its usage). */
export async function openaiCompatibleProvider(env: Env) {
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  return createOpenAICompatible({
    // Also the providerOptions key, camel-cased by the SDK: `openaiCompatible`.
    name: "openai-compatible",
    baseURL: env.OPENAI_COMPATIBLE_BASE_URL!,
    apiKey: env.OPENAI_COMPATIBLE_API_KEY,
    includeUsage: true,
  });
}

export async function externalImageModel(
  provider: ExternalProvider,
  providerModelId: string,
  env: Env,
): Promise<ImageModelV4> {
  assertConfigured(provider, env);
  switch (provider) {
    case "openai":
      return (await openaiProvider(env)).image(providerModelId);
    case "replicate": {
      const { createReplicate } = await import("@ai-sdk/replicate");
      return createReplicate({
        apiToken: env.REPLICATE_API_TOKEN,
        baseURL: env.REPLICATE_BASE_URL ?? REPLICATE_URL,
      }).image(providerModelId);
    }
    case "fal": {
      const { createFal } = await import("@ai-sdk/fal");
      return createFal({ apiKey: env.FAL_KEY, baseURL: env.FAL_BASE_URL ?? FAL_URL }).image(providerModelId);
    }
    case "openai-compatible":
      return (await openaiCompatibleProvider(env)).imageModel(providerModelId);
  }
}

export async function externalVideoModel(
  provider: ExternalVideoProvider,
  providerModelId: string,
  env: Env,
): Promise<VideoModelV4> {
  assertConfigured(provider, env);
  switch (provider) {
    case "replicate": {
      const { createReplicate } = await import("@ai-sdk/replicate");
      const model = createReplicate({
        apiToken: env.REPLICATE_API_TOKEN,
        baseURL: env.REPLICATE_BASE_URL ?? REPLICATE_URL,
      }).video(providerModelId);
      return trustOutputsFrom(model, env.REPLICATE_BASE_URL);
    }
    case "fal": {
      const { createFal } = await import("@ai-sdk/fal");
      const model = createFal({ apiKey: env.FAL_KEY, fetch: falQueueFetch(env.FAL_BASE_URL) }).video(providerModelId);
      // @ai-sdk/fal is typed against an older @ai-sdk/provider whose webhook JSONValue predates readonly objects;
      // nothing else differs and Atelier does not use webhooks.
      return trustOutputsFrom(model as unknown as VideoModelV4, env.FAL_BASE_URL);
    }
  }
}

const trustedOrigins = new WeakMap<object, string>();

/**
 * The origin a video model's output URLs may be downloaded from even when it is a private address. The SDK's
 * download refuses private and loopback hosts (against a provider answer pointing inside our network); an operator
 * who set a base URL override (a local stand-in, a proxy on the LAN) has vouched for that host.
 */
export function trustedOutputOrigin(model: VideoModelV4): string | undefined {
  return trustedOrigins.get(model);
}

function trustOutputsFrom(model: VideoModelV4, baseURL: string | undefined): VideoModelV4 {
  if (baseURL) trustedOrigins.set(model, new URL(baseURL).origin);
  return model;
}

function assertConfigured(provider: ExternalProvider, env: Env): void {
  if (!externalProviderConfigured(provider, env)) throw new Error(`Provider ${provider} is not configured`);
}

/**
 * The fetch behind fal's video model, which always calls https://queue.fal.run (it ignores `baseURL`) and trusts
 * only URLs on the origin it submitted to. With FAL_BASE_URL set, queue calls go to `${FAL_BASE_URL}/queue` and say
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
