import type { ModelRegistry } from "./model-registry.ts";
import type { ModelDefinition } from "./model-definition.ts";
import { DescribeRefusal, type ModelDescription } from "./model-description.ts";
import { describeModel, proposeDefinition } from "./describe-model.ts";
import { providerDefinition } from "#server/providers/registry.ts";

/** A connection a model can be added on by its id: it can serve, and its provider reads a model's own schema. */
export interface DescribableConnection {
  id: string;
  name: string;
  provider: string;
  source: "builtin" | "custom";
  /** Its provider's models are files the operator uploads (a ComfyUI workflow), not ids. */
  documents: boolean;
}

/** The connections the console offers to add a model by id on, in the registry's order. */
export function describableConnections(models: ModelRegistry): DescribableConnection[] {
  return models
    .connections()
    .filter((c) => models.connection(c.id) !== undefined && providerDefinition(c.provider).describe !== undefined)
    .map((c) => ({
      id: c.id,
      name: c.name,
      provider: c.provider,
      source: c.source,
      documents: providerDefinition(c.provider).documentModels === true,
    }));
}

/** A model read from its provider's schema, and the catalog model Atelier proposes for it (switched off). */
export interface ModelProposal {
  connection: DescribableConnection;
  description: ModelDescription;
  /** A catalog id no model has yet. */
  id: string;
  definition: Exclude<ModelDefinition, { kind: "chat" }>;
}

/**
 * Reads a provider's model on one connection and proposes a catalog model for it, switched off until it is tested:
 * the connection must be one the console offers (`describableConnections`), or `DescribeRefusal` ("no_connection")
 * is thrown. A connection an operator added is the model's only binding; the environment's connection of a provider
 * binds it to the provider, as the built-in models are.
 */
export async function proposeModel(
  {
    models,
    connection: connectionId,
    model,
    document,
    credits = 1,
  }: {
    models: ModelRegistry;
    connection: string;
    model: string;
    /** The model itself, for a provider whose models are uploaded files (a workflow's JSON). */
    document?: string;
    credits?: number;
  },
  signal: AbortSignal,
): Promise<ModelProposal> {
  const connection = describableConnections(models).find((c) => c.id === connectionId);
  if (!connection) throw new DescribeRefusal("no_connection", `${connectionId} cannot read a model's schema`);
  const description = await describeModel(
    {
      connections: models,
      provider: connection.provider,
      connection: connection.id,
      model,
      ...(document !== undefined && { document }),
    },
    signal,
  );
  const { id, definition } = proposeDefinition(description, {
    credits,
    enable: false,
    ...(connection.source === "custom" ? { connection: connection.id } : {}),
    taken: models.entries().map((e) => e.id),
  });
  if (definition.kind === "chat") throw new DescribeRefusal("unsupported", `${model} is not an image or video model`);
  return { connection, description, id, definition };
}
