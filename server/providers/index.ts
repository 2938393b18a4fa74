import type { ResolvedBinding } from "#config/models.ts";
import type { GenerationKind, GenerationParams, GenerationTool } from "#common/generation.ts";
import type { ProviderDefinition } from "#server/providers/definition.ts";
import { ConnectionUnavailable } from "#server/providers/errors.ts";
import { runImageModel, runVideoModel, type Output } from "#server/providers/generate.ts";
import { mappedInputs } from "#server/providers/map-inputs.ts";

/** Finds a connection that can serve by its id (the model registry). */
export interface ConnectionSource {
  connection(id: string): { definition: ProviderDefinition; settings: unknown } | undefined;
  /** Reads the connections again (one added in another process a moment ago). */
  refresh?(): Promise<void>;
}

/**
 * The connection a binding runs on, or `ConnectionUnavailable`. One this process does not know yet (added in
 * another process since it last read them) is looked for again once.
 */
export async function connectionOf(source: ConnectionSource, binding: { connection: string }) {
  let found = source.connection(binding.connection);
  if (!found && source.refresh) {
    await source.refresh();
    found = source.connection(binding.connection);
  }
  if (!found) throw new ConnectionUnavailable(`the connection ${binding.connection} cannot serve`);
  return found;
}

export interface BindingRun {
  connections: ConnectionSource;
  model: { kind: GenerationKind };
  binding: ResolvedBinding;
  tool: GenerationTool;
  prompt: string;
  negativePrompt?: string;
  params: GenerationParams;
  inputImage?: { bytes: Uint8Array; mediaType: string };
  abortSignal: AbortSignal;
  /** Real progress (0–1), from models that report it. */
  onProgress?: (fraction: number) => void;
  /** How often to ask an asynchronous provider whether a video is ready (default 5 s). */
  pollIntervalMs?: number;
}

/**
 * Runs a job on one of its model's bindings, through its provider's definition: the offline demo models here, any
 * other provider over HTTP.
 */
export async function runBinding(r: BindingRun): Promise<Array<Output & { poster?: Uint8Array }>> {
  const { binding, params } = r;
  if (r.model.kind === "video") {
    const { definition, settings } = await connectionOf(r.connections, binding);
    if (!definition.videoModel) throw new Error(`${binding.provider} has no video models`);
    const model = await definition.videoModel!(settings, binding.model, { onProgress: r.onProgress });
    return runVideoModel(model, binding.provider, {
      prompt: r.prompt,
      negativePrompt: r.negativePrompt,
      style: params.style ?? "cinematic",
      duration: params.duration ?? 5,
      aspectRatio: params.aspectRatio as "16:9",
      seed: params.seed,
      providerOptions: fixedOptions(definition, binding),
      providerInputs: (prompt) =>
        mappedInputs(
          binding.mapping,
          {
            prompt,
            seed: params.seed,
            aspectRatio: params.aspectRatio,
            duration: params.duration ?? 5,
            resolution: params.resolution,
            audio: params.audio,
          },
          params.options,
        ),
      abortSignal: r.abortSignal,
      pollIntervalMs: r.pollIntervalMs,
    });
  }
  const providerModel =
    r.tool === "image-to-image" && binding.imageToImageModel ? binding.imageToImageModel : binding.model;
  const { definition, settings } = await connectionOf(r.connections, binding);
  if (!definition.imageModel) throw new Error(`${binding.provider} has no image models`);
  const model = await definition.imageModel(settings, providerModel);
  return runImageModel(model, binding.provider, {
    prompt: r.prompt,
    negativePrompt: r.negativePrompt,
    n: params.count,
    aspectRatio: params.aspectRatio,
    seed: params.seed,
    inputImage: r.tool === "image-to-image" ? r.inputImage : undefined,
    strength: params.strength,
    providerOptions: fixedOptions(definition, binding),
    providerInputs: (prompt) =>
      mappedInputs(
        binding.mapping,
        {
          prompt,
          negativePrompt: r.negativePrompt,
          seed: params.seed,
          // The count is left to the SDK: with more images than one call makes (fal's and Replicate's make one), it
          // makes several calls, each sending its own count in the provider's field; a mapped count would be sent
          // with every call and multiply the images.
          aspectRatio: params.aspectRatio,
          inputImage: r.tool === "image-to-image" ? r.inputImage : undefined,
          strength: params.strength,
          resolution: params.resolution,
        },
        params.options,
      ),
    abortSignal: r.abortSignal,
  });
}

/** The binding's fixed inputs, under its provider's name as the AI SDK reads provider options. */
function fixedOptions(definition: ProviderDefinition, binding: ResolvedBinding) {
  return binding.options ? ({ [definition.optionsKey ?? binding.provider]: binding.options } as never) : undefined;
}
