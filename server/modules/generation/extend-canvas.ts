import sharp from "sharp";
import type { ExtendPadding } from "#common/generation.ts";

/**
 * Extending the canvas as a mask edit: the image on a larger canvas (the new area filled with its edge pixels, so a
 * model sees colours that continue it) and a mask of the same size, white over the new area. Any model that edits
 * with a mask can then fill it.
 */
export async function extendCanvas(
  image: { bytes: Uint8Array },
  padding: ExtendPadding,
): Promise<{ image: { bytes: Uint8Array; mediaType: string }; mask: { bytes: Uint8Array; mediaType: string } }> {
  const source = sharp(image.bytes).removeAlpha();
  const { width, height } = await source.metadata();
  const canvas = await source
    .extend({ ...padding, extendWith: "copy" })
    .png()
    .toBuffer();
  const mask = await sharp({
    create: {
      width: width + padding.left + padding.right,
      height: height + padding.top + padding.bottom,
      channels: 3,
      background: "#ffffff",
    },
  })
    .composite([
      {
        input: { create: { width, height, channels: 3, background: "#000000" } },
        left: padding.left,
        top: padding.top,
      },
    ])
    .greyscale()
    .png()
    .toBuffer();
  return {
    image: { bytes: new Uint8Array(canvas), mediaType: "image/png" },
    mask: { bytes: new Uint8Array(mask), mediaType: "image/png" },
  };
}

/** A mask at an image's exact size (a mask of the same shape drawn at another resolution is scaled to it). */
export async function fitMask(
  mask: { bytes: Uint8Array; mediaType: string },
  image: { bytes: Uint8Array },
): Promise<{ bytes: Uint8Array; mediaType: string }> {
  const [m, i] = await Promise.all([sharp(mask.bytes).metadata(), sharp(image.bytes).metadata()]);
  if (m.width === i.width && m.height === i.height) return mask;
  const png = await sharp(mask.bytes).resize(i.width, i.height, { fit: "fill" }).greyscale().png().toBuffer();
  return { bytes: new Uint8Array(png), mediaType: "image/png" };
}
