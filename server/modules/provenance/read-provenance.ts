import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { isUuid } from "#common/ids.ts";
import { DIGITAL_SOURCE_TYPES, readXmp } from "#server/media/xmp.ts";
import { readC2pa, type C2paReading } from "#server/media/c2pa.ts";

/** What a file says about how it was made, as `/verify` shows it. */
export interface ProvenanceReading {
  /** The container, from the file's first bytes. */
  format: "png" | "jpeg" | "webp" | "mp4" | "other";
  /** It holds an XMP packet at all. */
  hasXmp: boolean;
  /** IPTC's digital source type, as written (a URL of IPTC's vocabulary, or anything else a tool put there). */
  sourceType: string | null;
  /** The source type read: made by a trained model, a composite with such media, or neither said. */
  aiMade: "trained" | "composite" | null;
  creatorTool: string | null;
  model: string | null;
  createdAt: string | null;
  generationId: string | null;
  /** A generation of this site has that id. */
  known: boolean;
  /** …and anyone may see it: its share page's path. */
  sharePath: string | null;
  /** Its C2PA manifest, validated (signature and hashes; who signed is not checked against a trust list). */
  c2pa: C2paReading;
}

function formatOf(bytes: Uint8Array): ProvenanceReading["format"] {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16));
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (head[0] === 0xff && head[1] === 0xd8) return "jpeg";
  if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "webp";
  if (head.toString("latin1", 4, 8) === "ftyp") return "mp4";
  return "other";
}

const unescape = (text: string) =>
  text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&")
    .trim();

/**
 * A simple property of an XMP packet, written as an attribute (`ns:Name="…"`) or an element (`<ns:Name>…</ns:Name>`,
 * a language alternative's first item, or a bag's or sequence's first item), as XMP writers do either.
 */
export function xmpProperty(xmp: string, name: string): string | null {
  const attribute = new RegExp(`\\s${name}="([^"]*)"`).exec(xmp);
  if (attribute) return unescape(attribute[1]!);
  const element = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xmp);
  if (!element) return null;
  const item = /<rdf:li(?:\s[^>]*)?>([\s\S]*?)<\/rdf:li>/.exec(element[1]!);
  const value = unescape((item ? item[1]! : element[1]!).replace(/<[^>]+>/g, ""));
  return value === "" ? null : value;
}

/**
 * Reads what a file says about its making: the XMP packet's IPTC digital source type, creator tool, AI system,
 * creation date and identifier; whether the identifier is one of this site's generations, and its public page when
 * anyone may see it; its C2PA manifest, if any, and whether it still validates. Nothing is decoded or kept.
 */
export async function readProvenance({ db, bytes }: { db: Db; bytes: Uint8Array }): Promise<ProvenanceReading> {
  const xmp = readXmp(bytes);
  const sourceType = xmp ? xmpProperty(xmp, "Iptc4xmpExt:DigitalSourceType") : null;
  const generationId = xmp ? xmpProperty(xmp, "dc:identifier") : null;
  let known = false;
  let sharePath: string | null = null;
  if (generationId && isUuid(generationId)) {
    const [row] = await db
      .select({ visibility: generation.visibility, hiddenAt: generation.hiddenAt, status: generation.status })
      .from(generation)
      .where(eq(generation.id, generationId));
    known = Boolean(row);
    if (row && row.visibility === "public" && !row.hiddenAt && row.status === "succeeded")
      sharePath = `/share/${generationId}`;
  }
  return {
    format: formatOf(bytes),
    hasXmp: xmp !== null,
    sourceType,
    aiMade:
      sourceType === DIGITAL_SOURCE_TYPES.trainedAlgorithmicMedia
        ? "trained"
        : sourceType === DIGITAL_SOURCE_TYPES.compositeWithTrainedAlgorithmicMedia
          ? "composite"
          : null,
    creatorTool: xmp ? xmpProperty(xmp, "xmp:CreatorTool") : null,
    model: xmp ? xmpProperty(xmp, "Iptc4xmpExt:AISystemUsed") : null,
    createdAt: xmp ? xmpProperty(xmp, "xmp:CreateDate") : null,
    generationId,
    known,
    sharePath,
    c2pa: await readC2pa(bytes),
  };
}
