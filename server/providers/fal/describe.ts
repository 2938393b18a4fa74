import { mapSchema, type SchemaObject } from "#server/modules/catalog/map-schema.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import { joinUrl, readForDescribe } from "#server/providers/shared.ts";

/** A fal endpoint id: owner, app and an optional path (`fal-ai/flux/dev`). */
const ENDPOINT_ID = /^[\w.-]+\/[\w.-]+(\/[\w.-]+)*$/;

/** fal's categories of the models Atelier can run, by what they make. */
const IMAGE_CATEGORIES = new Set(["text-to-image", "image-to-image"]);
const VIDEO_CATEGORIES = new Set(["text-to-video", "image-to-video", "video-to-video"]);

interface FalModel {
  endpoint_id?: unknown;
  metadata?: { display_name?: unknown; category?: unknown; description?: unknown };
  openapi?: unknown;
}

/**
 * Reads a fal endpoint from the Platform API: the model search by id with its OpenAPI document (the request body of
 * its POST operation is the input schema; its category, else its result, tells images from videos), then its price,
 * which the key may not be allowed to read (left out then).
 */
export async function describeFal(
  api: { url: string; apiKey?: string },
  endpointId: string,
  signal: AbortSignal,
  options: { kind?: "image" | "video" } = {},
): Promise<ModelDescription> {
  const id = endpointId.trim();
  if (!ENDPOINT_ID.test(id))
    throw new DescribeRefusal("unknown_model", `"${id}" is not a fal endpoint id (owner/app, as fal-ai/flux/dev)`);
  const headers: Record<string, string> = api.apiKey ? { authorization: `Key ${api.apiKey}` } : {};
  const secrets = [api.apiKey];
  const found = (await readForDescribe(
    {
      url: joinUrl(api.url, `/v1/models?endpoint_id=${encodeURIComponent(id)}&expand=openapi-3.0`),
      headers,
      secrets,
    },
    signal,
  )) as { models?: unknown } | null;
  const model = (Array.isArray(found?.models) ? (found.models as FalModel[]) : []).find((m) => m?.endpoint_id === id);
  if (!model) throw new DescribeRefusal("unknown_model", `fal has no endpoint "${id}"`);

  const document = isObject(model.openapi) ? model.openapi : undefined;
  const components = isObject(document?.components) ? document.components : undefined;
  const schemas = isObject(components?.schemas) ? components.schemas : undefined;
  const operation = document ? postOperation(document, id) : undefined;
  const input = operation ? requestSchema(operation) : undefined;
  if (!document || !input)
    throw new DescribeRefusal("unsupported", `fal gave no input schema for "${id}" (its OpenAPI document has none)`);

  const category = typeof model.metadata?.category === "string" ? model.metadata.category : undefined;
  const kind = options.kind ?? kindOf(category, document, schemas);
  if (!kind)
    throw new DescribeRefusal(
      "unsupported",
      `"${id}" is a ${category ?? "fal"} model: Atelier runs models that make images or videos`,
    );

  const mapped = mapSchema(input, schemas, kind);
  const name = typeof model.metadata?.display_name === "string" ? model.metadata.display_name.trim() : "";
  const description = typeof model.metadata?.description === "string" ? model.metadata.description.trim() : "";
  const cost = api.apiKey ? await priceOf(api, id, signal) : undefined;
  return {
    provider: "fal",
    providerModel: id,
    kind,
    name: name || readable(id),
    ...(description && { description }),
    ...mapped,
    ...(cost && { cost }),
    fromSchema: true,
  };
}

/** What fal charges for the endpoint, or undefined where the key may not read prices or fal has none. */
async function priceOf(
  api: { url: string; apiKey?: string },
  id: string,
  signal: AbortSignal,
): Promise<ModelDescription["cost"]> {
  try {
    const answer = (await readForDescribe(
      {
        url: joinUrl(api.url, `/v1/models/pricing?endpoint_id=${encodeURIComponent(id)}`),
        headers: { authorization: `Key ${api.apiKey}` },
        secrets: [api.apiKey],
      },
      signal,
    )) as { prices?: unknown } | null;
    const price = (Array.isArray(answer?.prices) ? (answer.prices as Record<string, unknown>[]) : []).find(
      (p) => p?.endpoint_id === id,
    );
    if (typeof price?.unit_price !== "number" || typeof price.unit !== "string" || typeof price.currency !== "string")
      return undefined;
    return { unitPrice: price.unit_price, unit: price.unit, currency: price.currency };
  } catch (error) {
    if (signal.aborted) throw error;
    return undefined;
  }
}

/** Images or videos, by fal's category, or else by what the endpoint's result holds (`images` or `video`). */
function kindOf(
  category: string | undefined,
  document: SchemaObject,
  schemas: Record<string, unknown> | undefined,
): "image" | "video" | undefined {
  if (category && IMAGE_CATEGORIES.has(category)) return "image";
  if (category && VIDEO_CATEGORIES.has(category)) return "video";
  const output = resultSchema(document, schemas);
  const properties = isObject(output?.properties) ? output.properties : {};
  if ("video" in properties || "videos" in properties) return "video";
  if ("images" in properties || "image" in properties) return "image";
  return undefined;
}

/** The POST operation of the endpoint (the path that is its id, else the only one with a JSON request body). */
function postOperation(document: SchemaObject, id: string): SchemaObject | undefined {
  const paths = isObject(document.paths) ? document.paths : {};
  const own = paths[`/${id}`];
  if (isObject(own) && isObject(own.post) && requestSchema(own.post)) return own.post;
  for (const item of Object.values(paths)) {
    if (isObject(item) && isObject(item.post) && requestSchema(item.post)) return item.post;
  }
  return undefined;
}

function requestSchema(operation: SchemaObject): SchemaObject | undefined {
  const body = isObject(operation.requestBody) ? operation.requestBody : undefined;
  const content = isObject(body?.content) ? body.content : undefined;
  const json = isObject(content?.["application/json"]) ? content["application/json"] : undefined;
  return isObject(json?.schema) ? json.schema : undefined;
}

/** The schema of the queue's result (`GET …/requests/{request_id}`), resolved. */
function resultSchema(document: SchemaObject, schemas: Record<string, unknown> | undefined): SchemaObject | undefined {
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!/\/requests\/\{request_id\}$/.test(path) || !isObject(item) || !isObject(item.get)) continue;
    const responses = isObject(item.get.responses) ? item.get.responses : {};
    const ok = isObject(responses["200"]) ? responses["200"] : undefined;
    const content = isObject(ok?.content) ? ok.content : undefined;
    const json = isObject(content?.["application/json"]) ? content["application/json"] : undefined;
    const schema = isObject(json?.schema) ? json.schema : undefined;
    const ref = typeof schema?.$ref === "string" ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
    const target = ref ? schemas?.[ref] : schema;
    if (isObject(target)) return target;
  }
  return undefined;
}

/** The id's last parts made readable (`fal-ai/flux/dev` → "flux dev"). */
function readable(id: string): string {
  return id.split("/").slice(1).join(" ").replace(/[-_]+/g, " ");
}

function isObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
