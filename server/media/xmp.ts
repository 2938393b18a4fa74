import { crc32 } from "node:zlib";

/**
 * Provenance as XMP, written into a file's own container without decoding or re-encoding it: an `iTXt` chunk in a
 * PNG, an APP1 segment in a JPEG, an `XMP ` chunk in a WebP (made extended when it was not), a top-level `uuid` box
 * in an MP4. Each writer replaces an XMP packet the file had, so a file is never marked twice, and leaves every other
 * byte as it was: pixels, sample offsets and any other metadata are untouched.
 */

/** IPTC's digital source types for what a trained model made, alone or with media a person gave it. */
export const DIGITAL_SOURCE_TYPES = {
  trainedAlgorithmicMedia: "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia",
  compositeWithTrainedAlgorithmicMedia:
    "http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia",
} as const;
export type DigitalSourceType = keyof typeof DIGITAL_SOURCE_TYPES;

/** What an output says about itself. */
export interface Provenance {
  sourceType: DigitalSourceType;
  /** The site's name: the creator tool. */
  site: string;
  /** The generation's public id. */
  generationId: string;
  /** The model's name, as the AI system used. */
  model?: string;
  createdAt: Date;
}

export type XmpContainer = "png" | "jpeg" | "webp" | "mp4";

const escape = (text: string) =>
  text.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);

/** The XMP packet of an output: IPTC's digital source type, the creator tool, the generation's id, the model. */
export function provenanceXmp(p: Provenance): string {
  const attributes = [
    `Iptc4xmpExt:DigitalSourceType="${DIGITAL_SOURCE_TYPES[p.sourceType]}"`,
    ...(p.model ? [`Iptc4xmpExt:AISystemUsed="${escape(p.model)}"`] : []),
    `xmp:CreatorTool="${escape(p.site)}"`,
    `xmp:CreateDate="${p.createdAt.toISOString()}"`,
    `dc:identifier="${escape(p.generationId)}"`,
  ];
  return (
    `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>` +
    `<x:xmpmeta xmlns:x="adobe:ns:meta/">` +
    `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" ` +
    `xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" ${attributes.join(" ")}/>` +
    `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
  );
}

/** Why a file could not be marked: it is not the container it claims to be, or is cut short. */
export class XmpWriteError extends Error {}

/** The file with `xmp` as its XMP packet, in its own container. */
export function embedXmp(bytes: Uint8Array, container: XmpContainer, xmp: string): Uint8Array {
  const packet = Buffer.from(xmp, "utf8");
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (container) {
    case "png":
      return pngWithXmp(file, packet);
    case "jpeg":
      return jpegWithXmp(file, packet);
    case "webp":
      return webpWithXmp(file, packet);
    case "mp4":
      return mp4WithXmp(file, packet);
  }
}

/** The XMP packet a file holds, if any: every container here stores it as plain UTF-8. */
export function readXmp(bytes: Uint8Array): string | null {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = file.indexOf("<x:xmpmeta");
  if (start < 0) return null;
  const end = file.indexOf("</x:xmpmeta>", start);
  return end < 0 ? null : file.subarray(start, end + "</x:xmpmeta>".length).toString("utf8");
}

// PNG: an iTXt chunk keyed `XML:com.adobe.xmp`, uncompressed, right after IHDR (before the image data, where
// readers look first).

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_XMP_KEY = Buffer.from("XML:com.adobe.xmp\0", "latin1");

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4, 8))), 0);
  return Buffer.concat([head, data, crc]);
}

function pngWithXmp(file: Buffer, packet: Buffer): Buffer {
  if (file.length < 33 || !file.subarray(0, 8).equals(PNG_SIGNATURE) || file.toString("latin1", 12, 16) !== "IHDR")
    throw new XmpWriteError("not a PNG");
  // keyword, compression flag and method (none), empty language tag and translated keyword, the text.
  const chunk = pngChunk("iTXt", Buffer.concat([PNG_XMP_KEY, Buffer.from([0, 0, 0, 0]), packet]));
  const parts: Buffer[] = [file.subarray(0, 8)];
  let at = 8;
  while (at + 12 <= file.length) {
    const length = file.readUInt32BE(at);
    const end = at + 12 + length;
    if (end > file.length) throw new XmpWriteError("a PNG chunk runs past the end");
    const type = file.toString("latin1", at + 4, at + 8);
    const isXmp = type === "iTXt" && file.subarray(at + 8, at + 8 + PNG_XMP_KEY.length).equals(PNG_XMP_KEY);
    if (!isXmp) parts.push(file.subarray(at, end));
    if (type === "IHDR") parts.push(chunk);
    at = end;
    if (type === "IEND") break;
  }
  return Buffer.concat(parts);
}

// JPEG: an APP1 segment opening with Adobe's XMP namespace, after the APP0/APP1 segments a file starts with.

const JPEG_XMP_HEADER = Buffer.from("http://ns.adobe.com/xap/1.0/\0", "latin1");

function jpegWithXmp(file: Buffer, packet: Buffer): Buffer {
  if (file.length < 4 || file[0] !== 0xff || file[1] !== 0xd8) throw new XmpWriteError("not a JPEG");
  const body = Buffer.concat([JPEG_XMP_HEADER, packet]);
  if (body.length + 2 > 0xffff) throw new XmpWriteError("the XMP packet is too large for a JPEG segment");
  const segment = Buffer.alloc(4);
  segment.writeUInt16BE(0xffe1, 0);
  segment.writeUInt16BE(body.length + 2, 2);
  const parts: Buffer[] = [file.subarray(0, 2)];
  let at = 2;
  let placed = false;
  // The header segments: kept as they are, an XMP one left out; ours after the APP0 (JFIF) and APP1 (Exif) ones.
  while (at + 4 <= file.length && file[at] === 0xff) {
    const marker = file[at + 1]!;
    if (marker === 0xda || marker === 0xd9) break;
    const length = file.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (end > file.length) throw new XmpWriteError("a JPEG segment runs past the end");
    const isXmp = marker === 0xe1 && file.subarray(at + 4, at + 4 + JPEG_XMP_HEADER.length).equals(JPEG_XMP_HEADER);
    if (!placed && marker !== 0xe0 && marker !== 0xe1) {
      parts.push(segment, body);
      placed = true;
    }
    if (!isXmp) parts.push(file.subarray(at, end));
    at = end;
  }
  if (!placed) parts.push(segment, body);
  parts.push(file.subarray(at));
  return Buffer.concat(parts);
}

// WebP: the extended format's `XMP ` chunk at the end, its flag set in VP8X; a simple (VP8 or VP8L) file gains the
// VP8X header first, with its canvas size and, for a lossless one, whether it has alpha.

const VP8X_XMP = 0x04;
const VP8X_ALPHA = 0x10;

function riffChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, "latin1");
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function webpWithXmp(file: Buffer, packet: Buffer): Buffer {
  if (file.length < 20 || file.toString("latin1", 0, 4) !== "RIFF" || file.toString("latin1", 8, 12) !== "WEBP")
    throw new XmpWriteError("not a WebP");
  const chunks: Array<{ type: string; data: Buffer }> = [];
  let at = 12;
  while (at + 8 <= file.length) {
    const type = file.toString("latin1", at, at + 4);
    const size = file.readUInt32LE(at + 4);
    if (at + 8 + size > file.length) throw new XmpWriteError("a WebP chunk runs past the end");
    chunks.push({ type, data: file.subarray(at + 8, at + 8 + size) });
    at += 8 + size + (size % 2);
  }
  const first = chunks[0];
  if (!first) throw new XmpWriteError("a WebP without image data");
  let header: Buffer;
  if (first.type === "VP8X") {
    header = Buffer.from(first.data);
    header[0] = header[0]! | VP8X_XMP;
    chunks.shift();
  } else {
    const { width, height, alpha } = webpSize(first.type, first.data);
    header = Buffer.alloc(10);
    header[0] = VP8X_XMP | (alpha ? VP8X_ALPHA : 0);
    header.writeUIntLE(width - 1, 4, 3);
    header.writeUIntLE(height - 1, 7, 3);
  }
  const body = Buffer.concat([
    riffChunk("VP8X", header),
    ...chunks.filter((c) => c.type !== "XMP ").map((c) => riffChunk(c.type, c.data)),
    riffChunk("XMP ", packet),
  ]);
  const riff = Buffer.alloc(12);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(body.length + 4, 4);
  riff.write("WEBP", 8, "latin1");
  return Buffer.concat([riff, body]);
}

/** A simple WebP's canvas: from the VP8 key frame's header, or the VP8L header's packed bits. */
function webpSize(type: string, data: Buffer): { width: number; height: number; alpha: boolean } {
  if (type === "VP8 " && data.length >= 10 && data[3] === 0x9d && data[4] === 0x01 && data[5] === 0x2a)
    return { width: data.readUInt16LE(6) & 0x3fff, height: data.readUInt16LE(8) & 0x3fff, alpha: false };
  if (type === "VP8L" && data.length >= 5 && data[0] === 0x2f) {
    const bits = data.readUInt32LE(1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, alpha: ((bits >>> 28) & 1) === 1 };
  }
  throw new XmpWriteError(`a WebP starting with ${type.trim() || "nothing"}`);
}

// MP4: a top-level `uuid` box of XMP's UUID, appended at the end, so no sample offset moves. A packet the file had in
// such a box is blanked and turned into a `free` box of the same size.

const XMP_UUID = Buffer.from("be7acfcb97a942e89c71999491e3afac", "hex");

function mp4WithXmp(file: Buffer, packet: Buffer): Buffer {
  if (file.length < 8 || file.toString("latin1", 4, 8) !== "ftyp") throw new XmpWriteError("not an MP4");
  const out = Buffer.from(file);
  let at = 0;
  while (at + 8 <= out.length) {
    let size = out.readUInt32BE(at);
    const type = out.toString("latin1", at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > out.length) throw new XmpWriteError("an MP4 box runs past the end");
      size = Number(out.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      // The last box runs to the end of the file: given its size, so that a box can follow it.
      size = out.length - at;
      if (size > 0xffffffff) throw new XmpWriteError("an MP4 whose last box is too large to size");
      out.writeUInt32BE(size, at);
    }
    if (size < header || at + size > out.length) throw new XmpWriteError("an MP4 box runs past the end");
    if (type === "uuid" && out.subarray(at + header, at + header + 16).equals(XMP_UUID)) {
      out.write("free", at + 4, "latin1");
      out.fill(0x20, at + header, at + size);
    }
    at += size;
  }
  const box = Buffer.alloc(24);
  box.writeUInt32BE(24 + packet.length, 0);
  box.write("uuid", 4, "latin1");
  XMP_UUID.copy(box, 8);
  return Buffer.concat([out.subarray(0, at), box, packet]);
}
