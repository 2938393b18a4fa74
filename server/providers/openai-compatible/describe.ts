import { IMAGE_ASPECT_RATIOS } from "#common/generation.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import { joinUrl, readForDescribe } from "#server/providers/shared.ts";

/**
 * Finds a model on an OpenAI-compatible server (`GET /models`, OpenAI's list that Ollama, vLLM, LM Studio and
 * LocalAI serve). The list gives ids only, so the model is proposed with the common fields this adapter sends for any
 * image model (a size from the ratio, the negative prompt folded into the text): text-to-image, up to four images.
 */
export async function describeOpenAICompatible(
  api: { url?: string; apiKey?: string },
  modelId: string,
  signal: AbortSignal,
): Promise<ModelDescription> {
  const id = modelId.trim();
  if (!api.url) throw new DescribeRefusal("unreachable", "the connection has no base URL");
  if (!id) throw new DescribeRefusal("unknown_model", "no model id was given");
  const list = (await readForDescribe(
    {
      url: joinUrl(api.url, "/models"),
      headers: api.apiKey ? { authorization: `Bearer ${api.apiKey}` } : {},
      secrets: [api.apiKey],
    },
    signal,
  )) as { data?: unknown } | null;
  if (!Array.isArray(list?.data))
    throw new DescribeRefusal("unsupported", `${new URL(api.url).host} did not answer with a list of models`);
  const listed = (list.data as { id?: unknown }[]).some((m) => m?.id === id);
  if (!listed) throw new DescribeRefusal("unknown_model", `${new URL(api.url).host} lists no model "${id}"`);
  return {
    provider: "openai-compatible",
    providerModel: id,
    kind: "image",
    name: id,
    tools: ["text-to-image"],
    mapping: {},
    options: {
      aspectRatios: [...IMAGE_ASPECT_RATIOS],
      maxCount: 4,
      negativePrompt: false,
      seed: false,
      strength: false,
    },
    parameters: [],
    unmet: [],
    fromSchema: false,
  };
}
