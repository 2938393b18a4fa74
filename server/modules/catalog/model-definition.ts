import { SAFETY_LEVELS } from "#common/safety.ts";
import { z } from "zod";
import { LOCALES } from "#common/locales.ts";
import { IMAGE_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_STYLES } from "#common/generation.ts";
import { GENERATION_TOOLS } from "#common/tools.ts";
import { isProviderId } from "#server/providers/registry.ts";
import { parameterFieldSchema, priceSchema } from "#common/model-parameters.ts";
import { inputMappingSchema } from "#common/input-mapping.ts";
import { workflowSchema } from "#server/providers/comfyui/workflow-schema.ts";

/** A model's or a connection's id: what URLs, the APIs and the command line name it by. */
export const CATALOG_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const id = z.string().regex(CATALOG_ID, "lower-case letters, digits, dots, dashes and underscores (1 to 100)");

const perLocale = z.partialRecord(z.enum(LOCALES), z.string().trim().min(1).max(500));

/** One way to run a model: a provider (any of its connections, in order) or one connection, and its model id there. */
export const bindingSchema = z.strictObject({
  provider: z.string().refine(isProviderId, "a provider Atelier has an adapter for"),
  /** One connection only; without it, every connection of the provider, in failover order. */
  connection: id.optional(),
  model: z.string().trim().min(1).max(300),
  /** The provider's id for image-to-image, when it differs (the same as `toolModels["image-to-image"].model`). */
  imageToImageModel: z.string().trim().min(1).max(300).optional(),
  /** The provider's id and mapping for a tool, when they differ from the binding's (fal's Kling: one per tool). */
  toolModels: z
    .partialRecord(
      z.enum(GENERATION_TOOLS),
      z.strictObject({ model: z.string().trim().min(1).max(300), mapping: inputMappingSchema.optional() }),
    )
    .optional(),
  /** Fixed inputs sent to the provider with every request (its own names). */
  options: z.record(z.string().min(1).max(100), z.json()).optional(),
  /** Where the common parameters go in the provider's input (read from its schema). */
  mapping: inputMappingSchema.optional(),
  /** The workflow it runs, for a provider whose models are the operator's workflows (ComfyUI). */
  workflow: workflowSchema.optional(),
});

const presentation = {
  /** A product name, shown as is in every language unless `names` has one for the language. */
  name: z.string().trim().min(1).max(100),
  names: perLocale.optional(),
  description: perLocale.optional(),
  tags: z.array(z.string().trim().min(1).max(40)).max(12).optional(),
  /** An image shown with the model: a path on this site or an https URL. */
  cover: z
    .string()
    .max(500)
    .regex(/^(\/[^/\\]|https:\/\/)/, "a path on this site or an https URL")
    .optional(),
  /** The content checks its requests get; unset follows the console's level. */
  safety: z.enum(SAFETY_LEVELS).optional(),
  /** Offered at all (off: kept in the catalog, offered nowhere). */
  enabled: z.boolean(),
  /** Who is offered it: everyone, or administrators only (to try a model before the users). */
  visibility: z.enum(["everyone", "admins"]),
  /** Order in every list (lower first; unset after the ordered ones, in the catalog's order). */
  position: z.number().int().min(0).max(100_000).optional(),
  bindings: z.array(bindingSchema).min(1).max(10),
};

const options = z.strictObject({
  aspectRatios: z.array(z.enum(IMAGE_ASPECT_RATIOS)).min(1),
  maxCount: z.number().int().min(1).max(10),
  durations: z
    .array(z.union(VIDEO_DURATIONS.map((d) => z.literal(d))))
    .min(1)
    .optional(),
  styles: z.array(z.enum(VIDEO_STYLES)).min(1).optional(),
  negativePrompt: z.boolean(),
  seed: z.boolean(),
  strength: z.boolean(),
  resolutions: z.array(z.string().trim().min(1).max(40)).min(1).max(20).optional(),
  audio: z.boolean().optional(),
});

const media = {
  ...presentation,
  tools: z.array(z.enum(GENERATION_TOOLS)).min(1),
  price: priceSchema,
  /** What the provider charges per unit, in the currency of the credit packs (for the margin; never billed). */
  cost: z.number().min(0).max(100_000).optional(),
  options,
  /** Its own settings beyond the common ones (the provider's input names), offered as advanced controls. */
  parameters: z
    .array(parameterFieldSchema)
    .max(60)
    .refine((fields) => new Set(fields.map((f) => f.name)).size === fields.length, "each setting once")
    .optional(),
  expectedSeconds: z.number().min(0.1).max(86_400),
  timeoutSeconds: z.number().int().min(1).max(86_400),
};

export const imageModelSchema = z.strictObject({
  kind: z.literal("image"),
  ...media,
  /** Its images carry the visible label when the console's label is on for "models that ask for it". */
  label: z.boolean().optional(),
});
export const videoModelSchema = z.strictObject({ kind: z.literal("video"), ...media });
export const chatModelSchema = z.strictObject({
  kind: z.literal("chat"),
  ...presentation,
  price: z.strictObject({
    inputPerMillion: z.number().int().min(0).max(100_000_000),
    outputPerMillion: z.number().int().min(0).max(100_000_000),
  }),
  contextTokens: z.number().int().min(256).max(100_000_000),
  maxOutputTokens: z.number().int().min(16).max(10_000_000),
  vision: z.boolean(),
  tools: z.boolean(),
});

/** A whole model, as an added one is kept and as `models export` writes each. */
export const modelDefinitionSchema = z.discriminatedUnion("kind", [
  imageModelSchema,
  videoModelSchema,
  chatModelSchema,
]);
export type ModelDefinition = z.output<typeof modelDefinitionSchema>;

/** What a row keeps of a built-in model: any of its fields, the kind excepted. */
export const builtInPatchSchema = z.record(z.string(), z.unknown());

export const modelIdSchema = id;
