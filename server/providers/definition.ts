import type {
  Experimental_VideoModelV4 as VideoModelV4,
  ImageModelV4,
  JSONValue,
  LanguageModelV4,
} from "@ai-sdk/provider";
import type { z } from "zod";
import type { Env } from "#server/env.ts";
import type { ModelDescription } from "#server/modules/catalog/model-description.ts";
import type { Workflow } from "#server/providers/comfyui/types.ts";
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

/** What a model is made with beyond its id: hooks it reports through while it runs, and its workflow. */
export interface ModelHooks {
  /** Real progress (0–1), from models that report it. */
  onProgress?: (fraction: number) => void;
  /** The workflow the binding runs, for providers whose models are workflows the operator uploaded (ComfyUI). */
  workflow?: Workflow;
}

/**
 * Whether a connection works, found without generating anything or spending money. A failure's code says what to do
 * about it: `unauthorized` (the provider refused the key), `unreachable` (no answer, a timeout, or the provider's own
 * error), `refused` (an answer that is not a yes: a bad base URL, a path the server does not know, the demo switched
 * off), `invalid` (settings that cannot be tried). The detail is for the operator's eyes and never holds the key.
 */
export type ConnectionCheck =
  | { ok: true; detail?: string }
  | { ok: false; code: "unauthorized" | "unreachable" | "refused" | "invalid"; detail: string };

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
  /** The key its SDK models read provider options under, when it is not the provider's id. */
  optionsKey?: string;
  /** The provider's own input fields as its SDK models take them in provider options (when they rename some). */
  inputFields?(fields: Record<string, JSONValue>, kind: "image" | "video"): Record<string, JSONValue>;
  /** Its image edits take a mask whose transparent pixels are what changes (OpenAI's), not a white-on-black one. */
  maskAsAlpha?: boolean;
  /** Its video models read a last frame from the AI SDK's `frameImages` (others take it through their mapping). */
  frameImages?: boolean;
  /** Runs on this machine: its models are made without asking whether a connection is configured. */
  local?: boolean;
  /**
   * Its servers are the operator's own (ComfyUI's GPUs): a connection's addresses may be private or plain http
   * without the operator's allowing it one by one.
   */
  ownNetwork?: boolean;
  /**
   * Its connections are a pool of the operator's own machines, shared fairly: a job waits in the queue (and others
   * go first) while its account has `perAccount` jobs running on the connection, or while the pool is `full`.
   * `down` (nothing answers) lets the job run and fail over or fail, refunded.
   */
  pool?: {
    perAccount(settings: Settings): number;
    /** Whether it has room for a job, waiting up to `waitMs` for some. */
    room(settings: Settings, signal: AbortSignal, waitMs: number): Promise<"room" | "full" | "down">;
  };
  /**
   * What stands in the way of a binding's model being offered, asked before it is switched on (a server of the pool
   * that lacks a node type or a model file of its workflow), one line each.
   */
  ready?(settings: Settings, binding: { model: string; workflow?: Workflow }, signal: AbortSignal): Promise<string[]>;
  /**
   * Its models are documents the operator made and uploads (a ComfyUI workflow), read by `describe` from the file:
   * `models add <id>:<file>`, named by the file's base name.
   */
  documentModels?: boolean;
  /** The addresses a connection reaches, checked when it is saved (by default its `baseURL`). */
  addresses?(settings: Settings): string[];
  imageModel?(settings: Settings, providerModelId: string, hooks: ModelHooks): Promise<ImageModelV4>;
  videoModel?(settings: Settings, providerModelId: string, hooks: ModelHooks): Promise<VideoModelV4>;
  chatModel?(settings: Settings, providerModelId: string): Promise<LanguageModelV4>;
  /** Tries the connection's key and base URL with the provider's cheapest authenticated read. */
  check?(settings: Settings, signal: AbortSignal): Promise<ConnectionCheck>;
  /**
   * Reads one of its models from the provider's own schema (`ModelDescription`), or throws `DescribeRefusal`.
   * Used to add a model by id, on the console and the command line. `kind` overrides what the provider's schema is
   * guessed to make, where a guess is all there is (Replicate's outputs are URIs either way).
   */
  describe?(
    settings: Settings,
    providerModelId: string,
    signal: AbortSignal,
    options?: { kind?: "image" | "video"; document?: string },
  ): Promise<ModelDescription>;
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
