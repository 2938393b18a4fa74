import sharp from "sharp";
import type { LabelPosition } from "#common/label.ts";

export interface VisibleLabel {
  text: string;
  position: LabelPosition;
}

const escapeMarkup = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);

/**
 * The image with the operator's label drawn in one of its corners: white text on a semi-transparent rounded box,
 * sized to the image (about 3.5% of its shorter side, never under 10 px), so it reads the same on a thumbnail and on
 * a poster-sized output. The image is encoded again in its own format (PNG without loss); its colour profile is kept,
 * its other metadata is not (the provenance is written afterwards).
 */
export async function drawLabel(
  bytes: Uint8Array,
  format: "png" | "jpeg" | "webp",
  label: VisibleLabel,
): Promise<Uint8Array> {
  const image = sharp(bytes, { limitInputPixels: 100_000_000 });
  const { width = 0, height = 0 } = await image.metadata();
  const size = Math.max(10, Math.round(Math.min(width, height) * 0.035));
  const text = await sharp({
    text: {
      text: `<span foreground="white">${escapeMarkup(label.text)}</span>`,
      font: `sans ${size}`,
      dpi: 72,
      rgba: true,
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  const padding = Math.round(size * 0.5);
  const margin = Math.round(size * 0.75);
  // A label wider or taller than the picture (a tiny image, a long text) is not drawn rather than cut.
  const boxWidth = text.info.width + 2 * padding;
  const boxHeight = text.info.height + 2 * padding;
  if (boxWidth + 2 * margin > width || boxHeight + 2 * margin > height) return bytes;
  const left = label.position.endsWith("left") ? margin : width - margin - boxWidth;
  const top = label.position.startsWith("top") ? margin : height - margin - boxHeight;
  const box = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${boxWidth}" height="${boxHeight}">` +
      `<rect width="${boxWidth}" height="${boxHeight}" rx="${padding}" fill="#000" fill-opacity="0.55"/></svg>`,
  );
  const drawn = image.composite([
    { input: box, left, top },
    { input: text.data, left: left + padding, top: top + padding },
  ]);
  const out = drawn.keepIccProfile();
  return format === "png"
    ? out.png().toBuffer()
    : format === "jpeg"
      ? out.jpeg({ quality: 95 }).toBuffer()
      : out.webp({ quality: 95 }).toBuffer();
}
