import type { Experimental_VideoModelV4 as VideoModelV4, ImageModelV4 } from "@ai-sdk/provider";
import type { Env } from "#server/env.ts";
import { connectionFor, providerConfigured, type ProviderWith } from "#server/providers/registry.ts";

export { trustedOutputOrigin } from "#server/providers/shared.ts";

/** Providers reached over the network that make images. */
export type ExternalProvider = Exclude<ProviderWith<"image">, "demo">;

/** Providers with a video model. */
export type ExternalVideoProvider = Exclude<ProviderWith<"video">, "demo">;

export function externalProviderConfigured(provider: ExternalProvider, env: Env): boolean {
  return providerConfigured(provider, env);
}

/** The AI SDK image model of a provider's built-in connection (its SDK is loaded with the first job). */
export async function externalImageModel(
  provider: ExternalProvider,
  providerModelId: string,
  env: Env,
): Promise<ImageModelV4> {
  const { definition, settings } = connectionFor(provider, env);
  return definition.imageModel!(settings, providerModelId, {});
}

/** The AI SDK video model of a provider's built-in connection. */
export async function externalVideoModel(
  provider: ExternalVideoProvider,
  providerModelId: string,
  env: Env,
): Promise<VideoModelV4> {
  const { definition, settings } = connectionFor(provider, env);
  return definition.videoModel!(settings, providerModelId, {});
}
