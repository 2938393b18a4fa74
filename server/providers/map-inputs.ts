import type { JSONValue } from "@ai-sdk/provider";
import { RATIO_SIZES, type InputMapping } from "#common/input-mapping.ts";
import type { AspectRatio, VideoStyle } from "#common/generation.ts";
import type { ParameterValues } from "#common/model-parameters.ts";
import { dataUrl } from "#server/providers/shared.ts";

/** A request in Atelier's common terms, as a binding's mapping reads it. */
export interface CommonInputs {
  /** The text as the provider's adapter made it (a video's style folded in). */
  prompt: string;
  negativePrompt?: string;
  seed?: number;
  count?: number;
  /** Absent for tools whose output takes the input image's shape. */
  aspectRatio?: AspectRatio;
  /** The image to start from: to edit, extend, upscale or cut out, or a video's first frame. */
  inputImage?: { bytes: Uint8Array; mediaType: string };
  /** The painted mask of the input image (white changes, black stays), as fal's and Replicate's models take it. */
  mask?: { bytes: Uint8Array; mediaType: string };
  /** A video's last frame. */
  endImage?: { bytes: Uint8Array; mediaType: string };
  /** The upscale factor. */
  scale?: number;
  strength?: number;
  duration?: number;
  resolution?: string;
  audio?: boolean;
  style?: VideoStyle;
}

/**
 * The provider's input fields for a request: the common parameters where the binding's mapping puts them, then the
 * model's advanced settings under their own names (they are the provider's). Sent over what the adapter sends for
 * any model, so a mapped field wins.
 */
export function mappedInputs(
  mapping: InputMapping | undefined,
  r: CommonInputs,
  advanced: ParameterValues | undefined,
): Record<string, JSONValue> {
  const out: Record<string, JSONValue> = {};
  const set = (field: string | undefined, value: JSONValue | undefined) => {
    if (field && value !== undefined) out[field] = value;
  };
  if (mapping) {
    // No text leaves the model's own default prompt (an upscaler's "best quality, highres") in place.
    set(mapping.prompt, r.prompt || undefined);
    set(mapping.negativePrompt, r.negativePrompt?.trim() || undefined);
    set(mapping.seed, r.seed);
    set(mapping.count, r.count);
    if (mapping.aspectRatio && r.aspectRatio) {
      const { field, values, sizeObject } = mapping.aspectRatio;
      set(field, sizeObject ? { ...RATIO_SIZES[r.aspectRatio] } : (values?.[r.aspectRatio] ?? r.aspectRatio));
    }
    if (mapping.width && mapping.height && r.aspectRatio) {
      set(mapping.width, RATIO_SIZES[r.aspectRatio].width);
      set(mapping.height, RATIO_SIZES[r.aspectRatio].height);
    }
    if (r.inputImage && mapping.inputImage) {
      const url = dataUrl(r.inputImage);
      set(mapping.inputImage.field, mapping.inputImage.list ? [url] : url);
    }
    if (r.mask) set(mapping.mask, dataUrl(r.mask));
    if (r.endImage) set(mapping.endImage, dataUrl(r.endImage));
    set(mapping.scale, r.scale);
    set(mapping.strength, r.inputImage ? r.strength : undefined);
    if (mapping.duration && r.duration !== undefined) {
      const { field, as, suffix } = mapping.duration;
      set(field, as === "integer" ? r.duration : `${r.duration}${suffix ?? ""}`);
    }
    set(mapping.resolution, r.resolution);
    set(mapping.audio, r.audio);
  }
  for (const [name, value] of Object.entries(advanced ?? {})) out[name] = value;
  return out;
}
