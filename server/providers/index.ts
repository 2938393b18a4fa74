import type { Env } from "#server/env.ts";
import type { Binding, CatalogModel } from "#config/models.ts";
import type { GenerationParams, GenerationTool } from "#common/generation.ts";
import { createDemoImageModel, createDemoVideoModel } from "#server/providers/demo/index.ts";
import { externalImageModel, externalVideoModel } from "#server/providers/external.ts";
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

/** Runs a job on one of its model's bindings: the offline demo models here, any other provider over HTTP. */
export async function runBinding(r: BindingRun): Promise<Array<Output & { poster?: Uint8Array }>> {
  const { binding, params } = r;
  if (r.model.kind === "video") {
    if (binding.provider === "openai" || binding.provider === "openai-compatible") {
      throw new Error(`${binding.provider} has no video models in the catalog`);
    }
    const model =
      binding.provider === "demo"
        ? createDemoVideoModel({ onProgress: r.onProgress })
        : await externalVideoModel(binding.provider, binding.model, r.env);
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
  const model =
    binding.provider === "demo"
      ? createDemoImageModel()
      : await externalImageModel(binding.provider, providerModel, r.env);
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
