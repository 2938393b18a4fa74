import type { Env } from "#server/env.ts";
import type { Binding, CatalogModel } from "#config/models.ts";
import type { GenerationParams, GenerationTool } from "#common/generation.ts";
import { connectionFor, providerDefinition } from "#server/providers/registry.ts";
import { runImageModel, runVideoModel, type Output } from "#server/providers/generate.ts";

export interface BindingRun {
  env: Env;
  model: CatalogModel;
  binding: Binding;
  tool: GenerationTool;
  prompt: string;
  negativePrompt?: string;
  params: GenerationParams;
  inputImage?: { bytes: Uint8Array; mediaType: string };
  abortSignal: AbortSignal;
  /** Real progress (0–1), from models that report it. */
  onProgress?: (fraction: number) => void;
}

/**
 * Runs a job on one of its model's bindings, through its provider's definition: the offline demo models here, any
 * other provider over HTTP.
 */
export async function runBinding(r: BindingRun): Promise<Array<Output & { poster?: Uint8Array }>> {
  const { binding, params } = r;
  if (r.model.kind === "video") {
    if (!providerDefinition(binding.provider).videoModel) {
      throw new Error(`${binding.provider} has no video models in the catalog`);
    }
    const { definition, settings } = connectionFor(binding.provider, r.env);
    const model = await definition.videoModel!(settings, binding.model, { onProgress: r.onProgress });
    return runVideoModel(model, binding.provider, {
      prompt: r.prompt,
      negativePrompt: r.negativePrompt,
      style: params.style ?? "cinematic",
      duration: params.duration ?? 5,
      aspectRatio: params.aspectRatio as "16:9",
      seed: params.seed,
      abortSignal: r.abortSignal,
    });
  }
  const providerModel =
    r.tool === "image-to-image" && binding.imageToImageModel ? binding.imageToImageModel : binding.model;
  const { definition, settings } = connectionFor(binding.provider, r.env);
  if (!definition.imageModel) throw new Error(`${binding.provider} has no image models in the catalog`);
  const model = await definition.imageModel(settings, providerModel);
  return runImageModel(model, binding.provider, {
    prompt: r.prompt,
    negativePrompt: r.negativePrompt,
    n: params.count,
    aspectRatio: params.aspectRatio,
    seed: params.seed,
    inputImage: r.tool === "image-to-image" ? r.inputImage : undefined,
    strength: params.strength,
    abortSignal: r.abortSignal,
  });
}
