import type { PriceUnit } from "#common/model-parameters.ts";
import { canServe, type Connection } from "#server/modules/catalog/catalog.ts";
import {
  CATALOG_ID,
  modelDefinitionSchema,
  modelIdSchema,
  type ModelDefinition,
} from "#server/modules/catalog/model-definition.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import { isProviderId, providerDefinition } from "#server/providers/registry.ts";

/** Where the connections come from: the model registry, or anything listing them the same way. */
export interface ConnectionSource {
  connections(): Connection[];
}

export interface DescribeModelInput {
  connections: ConnectionSource;
  /** The provider's id (`fal`, `replicate`, `openai-compatible`). */
  provider: string;
  /** One connection of that provider; without it, the first enabled one that can serve. */
  connection?: string;
  /** The provider's id for the model, as pasted. */
  model: string;
  /** What it makes, where the provider's schema leaves it to a guess. */
  kind?: "image" | "video";
  /** The model itself, for a provider whose models are documents the operator uploads (a ComfyUI workflow). */
  document?: string;
}

/**
 * Reads a provider model from its own schema through one of the provider's connections (the one named, or the first
 * enabled one that can serve), or throws `DescribeRefusal`: the provider reads no schemas, no connection can serve, or
 * the provider's own refusal (an unknown id, a refused key, no answer, a schema it cannot read).
 */
export async function describeModel(input: DescribeModelInput, signal: AbortSignal): Promise<ModelDescription> {
  if (!isProviderId(input.provider))
    throw new DescribeRefusal("unsupported", `Atelier has no provider "${input.provider}"`);
  const definition = providerDefinition(input.provider);
  if (!definition.describe)
    throw new DescribeRefusal("unsupported", `${input.provider} models cannot be read by id; add them by hand`);
  const capability = input.kind ?? (definition.capabilities.includes("image") ? "image" : "video");
  const ofProvider = input.connections.connections().filter((c) => c.provider === input.provider);
  let connection: Connection | undefined;
  if (input.connection) {
    connection = ofProvider.find((c) => c.id === input.connection);
    if (!connection)
      throw new DescribeRefusal("no_connection", `${input.provider} has no connection "${input.connection}"`);
    if (!canServe(connection, capability))
      throw new DescribeRefusal(
        "no_connection",
        `the connection "${connection.id}" cannot serve: it is switched off or its settings are incomplete`,
      );
  } else {
    connection = ofProvider.find((c) => canServe(c, capability));
    if (!connection)
      throw new DescribeRefusal(
        "no_connection",
        `no ${input.provider} connection can serve: add one with its key, or switch one on`,
      );
  }
  return definition.describe(connection.settings, input.model, signal, {
    ...(input.kind && { kind: input.kind }),
    ...(input.document !== undefined && { document: input.document }),
  });
}

export interface ProposeOptions {
  /** Credits per unit. */
  credits: number;
  /** Per image, per video or per second of video ("second" too); by default per image or per video. */
  unit?: PriceUnit | "second";
  /** The catalog id; by default one derived from the provider's id (`catalogIdFor`). */
  id?: string;
  name?: string;
  /** Offer it now (only when nothing it requires is unmet). */
  enable?: boolean;
  /** Bind it to this connection only (else any connection of the provider). */
  connection?: string;
  /** Ids already in the catalog, for the derived id to avoid. */
  taken?: Iterable<string>;
}

/** How long a generation is expected to take, and the most it may, by kind (a schema says nothing of either). */
const TIMING = {
  image: { expectedSeconds: 20, timeoutSeconds: 180 },
  video: { expectedSeconds: 120, timeoutSeconds: 900 },
} as const;

/** The provider's billing units that match Atelier's price units (the cost is shown beside the price only then). */
const COST_UNITS: Record<PriceUnit, RegExp> = {
  image: /^(images?|megapixels?)$/i,
  video: /^videos?$/i,
  videoSecond: /^seconds?$/i,
};

/** A proposed model: its catalog id and its definition. */
export interface ProposedModel {
  id: string;
  definition: ModelDefinition;
}

/**
 * The catalog model a description proposes (what the console shows and the command line adds): one binding with the
 * read mapping, the description's tools, limits and settings, a price per unit, offered to everyone, switched on only
 * when asked and when nothing it requires is unmet. Valid for `modelDefinitionSchema`; its id is the one given, or one
 * derived from the provider's id (`catalogIdFor`).
 */
export function proposeDefinition(description: ModelDescription, options: ProposeOptions): ProposedModel {
  const unit: PriceUnit =
    options.unit === "second" ? "videoSecond" : (options.unit ?? (description.kind === "image" ? "image" : "video"));
  const hasMapping = Object.keys(description.mapping).length > 0;
  const cost =
    description.cost && COST_UNITS[unit].test(description.cost.unit) ? description.cost.unitPrice : undefined;
  const summary = description.description?.replace(/\s+/g, " ").trim();
  const id =
    options.id !== undefined ? modelIdSchema.parse(options.id) : catalogIdFor(description.providerModel, options.taken);
  const definition = modelDefinitionSchema.parse({
    kind: description.kind,
    name: clip(options.name?.trim() || description.name.trim() || description.providerModel, 100),
    ...(summary && { description: { en: clip(summary, 500) } }),
    enabled: Boolean(options.enable) && description.unmet.length === 0,
    visibility: "everyone",
    bindings: [
      {
        provider: description.provider,
        ...(options.connection && { connection: options.connection }),
        model: description.providerModel,
        ...(hasMapping && { mapping: description.mapping }),
        ...(description.workflow && { workflow: description.workflow }),
      },
    ],
    tools: description.tools,
    price: { unit, credits: options.credits },
    ...(cost !== undefined && cost <= 100_000 && { cost }),
    options: description.options,
    ...(description.parameters.length > 0 && { parameters: description.parameters }),
    ...TIMING[description.kind],
  });
  return { id, definition };
}

/**
 * A catalog id from a provider's model id: the owner dropped when a name follows it (`fal-ai/flux/dev` → `flux-dev`,
 * `black-forest-labs/flux-dev` → `flux-dev`), lower-cased, other characters as dashes, at most 100; with `-2`, `-3`…
 * when the catalog already has it.
 */
export function catalogIdFor(providerModel: string, taken: Iterable<string> = []): string {
  const parts = providerModel.trim().split("/").filter(Boolean);
  const named = parts.length > 1 ? parts.slice(1) : parts;
  const base =
    named
      .join("-")
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/-{2,}/g, "-")
      .replace(/^[^a-z0-9]+|[-._]+$/g, "")
      .slice(0, 90) || "model";
  const used = new Set(taken);
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  if (!CATALOG_ID.test(id)) throw new Error(`cannot derive a catalog id from "${providerModel}"`);
  return id;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
