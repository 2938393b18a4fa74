import type { Experimental_VideoModelV4 as VideoModelV4, ImageModelV4, LanguageModelV4 } from "@ai-sdk/provider";
import type { z } from "zod";
import type { Env } from "#server/env.ts";
import type { ImageAspectRatio, ImageRequest, ProviderOptions, VideoRequest } from "#server/providers/generate.ts";

/** What a provider can make. */
export type Capability = "image" | "video" | "chat";

/** Atelier's image request as one provider's API takes it: the text it reads and the SDK call's settings. */
export interface ImageInputs {
  prompt: string;
  size?: `${number}x${number}`;
  aspectRatio?: ImageAspectRatio;
  seed?: number;
  providerOptions: ProviderOptions;
}

/** Atelier's video request as one provider's API takes it. */
export interface VideoInputs {
  prompt: string;
  providerOptions: ProviderOptions;
}

/** Hooks a model may report through while it runs. */
export interface ModelHooks {
  /** Real progress (0–1), from models that report it. */
  onProgress?: (fraction: number) => void;
}

/**
 * One provider adapter: everything Atelier knows of a provider lives in its folder, `server/providers/<id>/`, and
 * reaches the rest of the code through this object, listed once in the registry.
 */
export interface ProviderDefinition<Id extends string = string, Settings = unknown> {
  id: Id;
  /** What its models make. */
  capabilities: readonly Capability[];
  /** Its connection settings: a key, a base URL, and whatever else the provider needs. */
  connectionSchema: z.ZodType<Settings>;
  /** The settings that are secrets (never shown, never logged). */
  secrets: readonly (keyof Settings & string)[];
  /** The built-in connection, read from the environment. */
  builtInConnection(env: Env): Settings;
  /** Whether a connection can serve (a capability): its credential, or what else the provider needs, is set. */
  configured(settings: Settings, capability?: Capability): boolean;
  /** Runs on this machine: its models are made without asking whether a connection is configured. */
  local?: boolean;
  imageModel?(settings: Settings, providerModelId: string): Promise<ImageModelV4>;
  videoModel?(settings: Settings, providerModelId: string, hooks: ModelHooks): Promise<VideoModelV4>;
  chatModel?(settings: Settings, providerModelId: string): Promise<LanguageModelV4>;
  /** Maps Atelier's common image parameters onto the provider's inputs. */
  imageInputs?(providerModelId: string, req: ImageRequest): ImageInputs;
  /** Maps Atelier's common video parameters onto the provider's inputs. */
  videoInputs?(providerModelId: string, req: VideoRequest): VideoInputs;
}

/** Declares a provider, keeping its id's literal type (the registry derives the provider-id union from it). */
export function defineProvider<const Id extends string, Settings>(
  definition: ProviderDefinition<Id, Settings>,
): ProviderDefinition<Id, Settings> {
  return definition;
}
