import { mapSchema, type SchemaObject } from "#server/modules/catalog/map-schema.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import { joinUrl, readForDescribe } from "#server/providers/shared.ts";

/** A Replicate model id: owner and name (`black-forest-labs/flux-dev`). */
const MODEL_ID = /^([\w.-]+)\/([\w.-]+)$/;

/** Inputs only a video model takes. */
const VIDEO_INPUTS = ["duration", "fps", "num_frames", "frames_per_second", "generate_audio"];

/**
 * Reads a Replicate model (`GET /models/{owner}/{name}`): its latest version's OpenAPI schema holds the `Input` it
 * takes. Replicate says nothing of what a model makes (an image and a video are both URIs), so the kind is guessed
 * (`kindOf`) unless the caller says it.
 */
export async function describeReplicate(
  api: { url: string; apiToken?: string },
  modelId: string,
  signal: AbortSignal,
  options: { kind?: "image" | "video" } = {},
): Promise<ModelDescription> {
  const id = modelId.trim();
  const match = MODEL_ID.exec(id);
  if (!match)
    throw new DescribeRefusal(
      "unknown_model",
      `"${id}" is not a Replicate model id (owner/name, as black-forest-labs/flux-dev)`,
    );
  const model = (await readForDescribe(
    {
      url: joinUrl(api.url, `/models/${encodeURIComponent(match[1]!)}/${encodeURIComponent(match[2]!)}`),
      headers: api.apiToken ? { authorization: `Bearer ${api.apiToken}` } : {},
      secrets: [api.apiToken],
    },
    signal,
  )) as Record<string, unknown> | null;
  const version = isObject(model?.latest_version) ? model.latest_version : undefined;
  const document = isObject(version?.openapi_schema) ? version.openapi_schema : undefined;
  const components = isObject(document?.components) ? document.components : undefined;
  const schemas = isObject(components?.schemas) ? components.schemas : undefined;
  const input = isObject(schemas?.Input) ? schemas.Input : undefined;
  if (!input)
    throw new DescribeRefusal("unsupported", `Replicate's model "${id}" has no published version with an input schema`);

  const description = typeof model?.description === "string" ? model.description.trim() : "";
  const kind = options.kind ?? kindOf(id, description, input, schemas);
  return {
    provider: "replicate",
    providerModel: id,
    kind,
    name: readable(match[2]!),
    ...(description && { description }),
    ...mapSchema(input, schemas, kind),
    fromSchema: true,
  };
}

/**
 * Whether a Replicate model makes videos, by a heuristic (the caller can override it): its output schema names a
 * video (a title, a description or an example ending in .mp4/.webm/.mov), or its inputs are ones only video models
 * take (duration, fps, frames, generated audio), or its id or description says video. Anything else is an image
 * model, as most of Replicate's are.
 */
export function kindOf(
  id: string,
  description: string,
  input: SchemaObject,
  schemas: Record<string, unknown> | undefined,
): "image" | "video" {
  const output = JSON.stringify(schemas?.Output ?? {});
  if (/video|\.(mp4|webm|mov)\b/i.test(output)) return "video";
  const properties = isObject(input.properties) ? input.properties : {};
  if (VIDEO_INPUTS.some((name) => name in properties)) return "video";
  if (/video/i.test(id) || /\bvideos?\b/i.test(description)) return "video";
  return "image";
}

/** A model's name made readable (`flux-dev` → "Flux Dev"). */
function readable(name: string): string {
  return name
    .split(/[-_]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
}

function isObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
