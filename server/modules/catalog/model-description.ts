import type { GenerationTool } from "#common/tools.ts";
import type { InputMapping } from "#common/input-mapping.ts";
import type { ParameterField } from "#common/model-parameters.ts";
import type { ModelOptions } from "#common/generation.ts";
import type { Workflow } from "#server/providers/comfyui/types.ts";

/**
 * A provider model as read from the provider's own schema (fal's OpenAPI document, Replicate's version schema,
 * an OpenAI-compatible server's model list): what Atelier proposes to offer, for the operator to correct.
 */
export interface ModelDescription {
  provider: string;
  /** The provider's id for it, as pasted. */
  providerModel: string;
  kind: "image" | "video";
  /** A product name (the provider's display name, or the id made readable). */
  name: string;
  description?: string;
  /** The tools its inputs serve (`inferTools`: an input image → image-to-image, a mask → editing, a scale → upscaling…). */
  tools: GenerationTool[];
  /** Where the common parameters go in its input. */
  mapping: InputMapping;
  /** The common parameters' limits as its schema declares them (ratios, counts, durations, resolutions…). */
  options: ModelOptions;
  /** Its remaining inputs, offered as advanced settings. */
  parameters: ParameterField[];
  /** Inputs it requires that Atelier cannot fill (a tool Atelier does not have yet): it cannot be offered. */
  unmet: string[];
  /** What the provider charges, where its API says (fal's pricing read): per unit, in its currency. */
  cost?: { unitPrice: number; unit: string; currency: string };
  /** Whether the schema was read (false: an OpenAI-compatible id, with the common fields only). */
  fromSchema: boolean;
  /** The workflow read, for a provider whose models are workflows (ComfyUI): the binding keeps it. */
  workflow?: Workflow;
  /** What the operator should know before offering it (a server that did not answer to be checked). */
  notes?: string[];
}

/**
 * Why a model could not be described: the id is unknown, the provider could not be reached or refused the key, the
 * schema is not one we read (or the provider reads none), or no connection of the provider can serve.
 */
export class DescribeRefusal extends Error {
  readonly code: "unknown_model" | "unreachable" | "unauthorized" | "unsupported" | "no_connection";
  constructor(code: DescribeRefusal["code"], message: string) {
    super(message);
    this.code = code;
  }
}
