import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import type { GenerationTool } from "#common/generation.ts";
import { checkGeneration } from "./submit-generation.ts";

/**
 * What a generation request would cost now, without starting it: checked and priced by the code submitting uses
 * (`checkGeneration`), so the price quoted is the price held and charged. Holds nothing and writes nothing.
 */
export function quoteGeneration(
  deps: { models: Pick<ModelRegistry, "findMedia"> },
  options: { user: { id: string; role?: string | null }; input: unknown },
): { model: string; tool: GenerationTool; credits: number } {
  const { model, request, cost } = checkGeneration(deps.models, options.user, options.input);
  return { model: model.id, tool: request.tool, credits: cost };
}
