import type { InputMapping } from "#common/input-mapping.ts";
import type { GenerationTool } from "#common/tools.ts";
import type { Binding } from "#config/models.ts";

/**
 * The provider's id and input mapping a binding runs one tool with: the tool's own (`toolModels`) when the provider
 * serves that tool at another endpoint (fal's Kling has one for text-to-video and one for image-to-video), for
 * image-to-image the older `imageToImageModel`, otherwise the binding's. A tool's own model without a mapping keeps
 * the binding's.
 */
export function providerModelFor(
  binding: Pick<Binding, "model" | "mapping" | "imageToImageModel" | "toolModels">,
  tool: GenerationTool,
): { model: string; mapping?: InputMapping } {
  const own = binding.toolModels?.[tool];
  const model = own?.model ?? (tool === "image-to-image" ? binding.imageToImageModel : undefined) ?? binding.model;
  const mapping = own?.mapping ?? binding.mapping;
  return mapping ? { model, mapping } : { model };
}
