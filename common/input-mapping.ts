import { z } from "zod";
import { IMAGE_ASPECT_RATIOS, type AspectRatio } from "./generation.ts";
import { PARAMETER_NAME } from "./model-parameters.ts";

/**
 * Where Atelier's common parameters go in one provider model's input, as read from its schema and corrected by the
 * operator: each names the provider's field. A parameter the mapping leaves out is sent the way the provider's
 * adapter sends it for any model.
 */
export interface InputMapping {
  prompt?: string;
  negativePrompt?: string;
  seed?: string;
  /** How many images. */
  count?: string;
  /**
   * The aspect ratio: a field taking ratios ("16:9"), or named sizes ("landscape_16_9") through `values`, or
   * `{width, height}` objects (`values` absent and `sizeObject`).
   */
  aspectRatio?: { field: string; values?: Partial<Record<AspectRatio, string>>; sizeObject?: boolean };
  /** Width and height as two fields, from the ratio at about a megapixel. */
  width?: string;
  height?: string;
  /** The input image (a data URL; a list when `list`). */
  inputImage?: { field: string; list?: boolean };
  mask?: string;
  /** A video's last frame. */
  endImage?: string;
  /** The upscale factor (a number: 2 or 4). */
  scale?: string;
  strength?: string;
  /** A video's length: sent as a number, or as a string ("5", or with a suffix: "5s"). */
  duration?: { field: string; as: "integer" | "string"; suffix?: string };
  resolution?: string;
  /** Sound with a video. */
  audio?: string;
}

const field = z.string().regex(PARAMETER_NAME, "a provider input name");

export const inputMappingSchema = z.strictObject({
  prompt: field.optional(),
  negativePrompt: field.optional(),
  seed: field.optional(),
  count: field.optional(),
  aspectRatio: z
    .strictObject({
      field,
      values: z.partialRecord(z.enum(IMAGE_ASPECT_RATIOS), z.string().min(1).max(100)).optional(),
      sizeObject: z.boolean().optional(),
    })
    .optional(),
  width: field.optional(),
  height: field.optional(),
  inputImage: z.strictObject({ field, list: z.boolean().optional() }).optional(),
  mask: field.optional(),
  endImage: field.optional(),
  scale: field.optional(),
  strength: field.optional(),
  duration: z
    .strictObject({ field, as: z.enum(["integer", "string"]), suffix: z.string().max(10).optional() })
    .optional(),
  resolution: field.optional(),
  audio: field.optional(),
});

/** The pixel size of a ratio at about one megapixel, in multiples of 64 (what width/height models take). */
export const RATIO_SIZES: Record<AspectRatio, { width: number; height: number }> = {
  "1:1": { width: 1024, height: 1024 },
  "4:3": { width: 1152, height: 896 },
  "3:4": { width: 896, height: 1152 },
  "16:9": { width: 1344, height: 768 },
  "9:16": { width: 768, height: 1344 },
};
