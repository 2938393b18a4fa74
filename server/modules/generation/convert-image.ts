import sharp from "sharp";
import { signC2pa, type C2paSigner } from "#server/media/c2pa.ts";
import { DIGITAL_SOURCE_TYPES, readXmp, type DigitalSourceType } from "#server/media/xmp.ts";
import { xmpProperty } from "#server/modules/provenance/read-provenance.ts";
import type { LinkFormat } from "./media-links.ts";

/**
 * An image in another format: PNG, JPEG or WebP, at `quality` (0–100) for the lossy ones. JPEG has no transparency,
 * so what was transparent becomes white. The image's XMP (its provenance) is kept; given the operator's signer, a PNG
 * or JPEG made from an output is signed with C2PA again (encoding drops the manifest the stored file had), saying
 * what its XMP says.
 */
export async function convertImage(
  bytes: Uint8Array,
  format: LinkFormat,
  quality = 90,
  c2pa?: C2paSigner | null,
): Promise<Uint8Array> {
  // The stored image's provenance (its XMP) travels into the new format.
  const image = sharp(bytes, { limitInputPixels: 64_000_000 }).keepXmp();
  switch (format) {
    case "png":
      return signed(await image.png().toBuffer(), "png", bytes, c2pa);
    case "jpg":
    case "jpeg":
      return signed(
        await image
          .flatten({ background: "#ffffff" })
          .jpeg({ quality: Math.max(1, quality) })
          .toBuffer(),
        "jpeg",
        bytes,
        c2pa,
      );
    case "webp":
      return image.webp({ quality: Math.max(1, quality) }).toBuffer();
  }
}

/** The converted file signed with what the source's XMP says, when it is an output's (an AI made it, on a site); else as it is. */
async function signed(
  converted: Uint8Array,
  container: "png" | "jpeg",
  source: Uint8Array,
  c2pa: C2paSigner | null | undefined,
): Promise<Uint8Array> {
  if (!c2pa) return converted;
  const xmp = readXmp(source);
  const written = xmp ? xmpProperty(xmp, "Iptc4xmpExt:DigitalSourceType") : null;
  const sourceType = (Object.keys(DIGITAL_SOURCE_TYPES) as DigitalSourceType[]).find(
    (key) => DIGITAL_SOURCE_TYPES[key] === written,
  );
  const site = xmp ? xmpProperty(xmp, "xmp:CreatorTool") : null;
  if (!xmp || !sourceType || !site) return converted;
  return signC2pa(
    converted,
    container,
    {
      sourceType,
      model: xmpProperty(xmp, "Iptc4xmpExt:AISystemUsed") ?? undefined,
      site,
    },
    c2pa,
  );
}
