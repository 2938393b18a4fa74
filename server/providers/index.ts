import type { ResolvedBinding } from "#config/models.ts";
import type { GenerationKind, GenerationParams, GenerationTool } from "#common/generation.ts";
import type { ProviderDefinition } from "#server/providers/definition.ts";
import { ConnectionUnavailable } from "#server/providers/errors.ts";
import { runImageModel, runVideoModel, type Origin, type Output } from "#server/providers/generate.ts";
import { mappedInputs } from "#server/providers/map-inputs.ts";
import { takes, toolSpec } from "#common/tools.ts";
import { providerModelFor } from "#server/providers/tool-model.ts";

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

type Image = { bytes: Uint8Array; mediaType: string };

export interface BindingRun {
  connections: ConnectionSource;
  model: { kind: GenerationKind };
  binding: ResolvedBinding;
  tool: GenerationTool;
  prompt: string;
  negativePrompt?: string;
  params: GenerationParams;
  /** The image the tool starts from (a video's first frame). */
  inputImage?: Image;
  /** The mask of the input image (white: what changes); an extension's is made from its padding. */
  mask?: Image;
  /** A video's last frame. */
  endImage?: Image;
  /** When the input image is a result: what drew it (the offline demo model finds its own subject again). */
  origin?: Origin;
  abortSignal: AbortSignal;
  /** Real progress (0–1), from models that report it. */
  onProgress?: (fraction: number) => void;
  /** How often to ask an asynchronous provider whether a video is ready (default 5 s). */
  pollIntervalMs?: number;
}

/**
 * Runs a job on one of its model's bindings, through its provider's definition: the offline demo models here, any
 * other provider over HTTP. What the tool's row takes is sent; the rest is left to the provider.
 */
export async function runBinding(r: BindingRun): Promise<Array<Output & { poster?: Uint8Array }>> {
  const { binding, params, tool } = r;
  const spec = toolSpec(tool);
  const aspectRatio = takes(tool, "aspectRatio") ? params.aspectRatio : undefined;
  const inputImage = spec.image ? r.inputImage : undefined;
  const { definition, settings } = await connectionOf(r.connections, binding);
  const { model: providerModel, mapping } = providerModelFor(binding, tool);
  const hooks = { onProgress: r.onProgress, ...(binding.workflow && { workflow: binding.workflow }) };
  if (r.model.kind === "video") {
    if (!definition.videoModel) throw new Error(`${binding.provider} has no video models`);
    const model = await definition.videoModel!(settings, providerModel, hooks);
    return runVideoModel(model, binding.provider, {
      tool,
      prompt: r.prompt,
      negativePrompt: r.negativePrompt,
      style: params.style ?? "cinematic",
      duration: params.duration ?? 5,
      aspectRatio: params.aspectRatio as "16:9",
      seed: params.seed,
      startImage: inputImage,
      endImage: spec.endImage ? r.endImage : undefined,
      providerOptions: fixedOptions(definition, binding),
      providerInputs: (prompt) =>
        mappedInputs(
          mapping,
          {
            prompt,
            seed: params.seed,
            aspectRatio: params.aspectRatio,
            duration: params.duration ?? 5,
            resolution: params.resolution,
            audio: params.audio,
            inputImage,
            endImage: spec.endImage ? r.endImage : undefined,
          },
          params.options,
        ),
      abortSignal: r.abortSignal,
      pollIntervalMs: r.pollIntervalMs,
    });
  }
  if (!definition.imageModel) throw new Error(`${binding.provider} has no image models`);
  const model = await definition.imageModel(settings, providerModel, hooks);
  const mask = spec.mask || spec.extend ? r.mask : undefined;
  return runImageModel(model, binding.provider, {
    tool: spec.extend ? "inpaint" : tool,
    prompt: r.prompt,
    negativePrompt: r.negativePrompt,
    n: params.count,
    aspectRatio,
    seed: params.seed,
    inputImage,
    mask,
    scale: params.scale,
    strength: params.strength,
    origin: r.origin,
    providerOptions: fixedOptions(definition, binding),
    providerInputs: (prompt) =>
      mappedInputs(
        mapping,
        {
          prompt,
          negativePrompt: r.negativePrompt,
          seed: params.seed,
          // The count is left to the SDK: with more images than one call makes (fal's and Replicate's make one), it
          // makes several calls, each sending its own count in the provider's field; a mapped count would be sent
          // with every call and multiply the images.
          aspectRatio,
          inputImage,
          mask,
          scale: params.scale,
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
