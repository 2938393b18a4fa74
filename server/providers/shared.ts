import type { Experimental_VideoModelV4 as VideoModelV4, JSONValue } from "@ai-sdk/provider";
import type { ImageRequest, ProviderOptions, VideoRequest } from "#server/providers/generate.ts";

/** Lays the engine's defaults, then the catalog's options, then the request's values (unset ones left out). */
export function merge(
  options: ProviderOptions,
  key: string,
  defaults: Record<string, JSONValue>,
  values: Record<string, JSONValue | undefined>,
): ProviderOptions {
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<
    string,
    JSONValue
  >;
  return { ...options, [key]: { ...defaults, ...options[key], ...set } };
}

/**
 * For APIs without a negative prompt the model is told in words, which beats dropping the user's wish. One line:
 * multipart bodies (image edits) turn line breaks into CRLF.
 */
export function foldNegative(req: ImageRequest): string {
  const negative = req.negativePrompt?.trim();
  return negative ? `${req.prompt.trim().replace(/[\s.]+$/, "")}. Avoid: ${negative}.` : req.prompt;
}

/** The style folded into the prompt, for providers without a style parameter. */
export function foldStyle(req: VideoRequest): string {
  return `${req.prompt.trim().replace(/[\s.]+$/, "")}, ${req.style} style`;
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

export function trustOutputsFrom(model: VideoModelV4, baseURL: string | undefined): VideoModelV4 {
  if (baseURL) trustedOrigins.set(model, new URL(baseURL).origin);
  return model;
}
