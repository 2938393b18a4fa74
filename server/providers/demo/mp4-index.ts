/**
 * The WASM encoder writes `ftyp, mdat, moov` with no sync-sample table (`stss`). Without one, every frame counts as
 * a keyframe, so a browser that seeks starts decoding from a predicted frame and shows the wrong picture; and with
 * the index at the end, playback cannot start until the end of the file has arrived. This rewrites the file as
 * `ftyp, moov, mdat` with an `stss` listing the IDR frames. Anything it does not recognise is returned unchanged.
 */

interface Box {
  type: string;
  start: number;
  end: number;
}

const CONTAINERS = ["moov", "trak", "mdia", "minf", "stbl"];

function boxes(bytes: Uint8Array, start: number, end: number): Box[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Box[] = [];
  for (let at = start; at < end;) {
    if (at + 8 > end) return null;
    const size = view.getUint32(at);
    // 64-bit and to-the-end sizes never come out of this encoder for clips this short.
    if (size < 8 || at + size > end) return null;
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    out.push({ type, start: at, end: at + size });
    at += size;
  }
  return out;
}

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, size);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  let at = 8;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Rebuilds a container along the moov → trak → mdia → minf → stbl path, letting `edit` change the stbl's children. */
function rebuild(bytes: Uint8Array, container: Box, edit: (children: Box[]) => Uint8Array[] | null): Uint8Array | null {
  const children = boxes(bytes, container.start + 8, container.end);
  if (!children) return null;
  let parts: Uint8Array[] | null;
  if (container.type === "stbl") {
    parts = edit(children);
  } else {
    const next = children.filter((c) => CONTAINERS.includes(c.type));
    if (next.length !== 1) return null;
    parts = [];
    for (const child of children) {
      if (child === next[0]) {
        const inner = rebuild(bytes, child, edit);
        if (!inner) return null;
        parts.push(inner);
      } else {
        parts.push(bytes.subarray(child.start, child.end));
      }
    }
  }
  return parts && box(container.type, ...parts);
}

function isKeyframe(bytes: Uint8Array, offset: number, size: number, lengthSize: number): boolean {
  let at = offset;
  const end = offset + size;
  while (at + lengthSize < end) {
    let length = 0;
    for (let i = 0; i < lengthSize; i++) length = length * 256 + bytes[at + i]!;
    const nalType = bytes[at + lengthSize]! & 0x1f;
    if (nalType === 5) return true;
    at += lengthSize + length;
  }
  return false;
}

export function indexMp4(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const top = boxes(bytes, 0, bytes.byteLength);
  const ftyp = top?.find((b) => b.type === "ftyp");
  const mdat = top?.find((b) => b.type === "mdat");
  const moov = top?.find((b) => b.type === "moov");
  if (!top || !ftyp || !mdat || !moov || moov.start < mdat.start) return bytes;

  const newMoov = rebuild(bytes, moov, (children) => {
    const find = (type: string) => children.find((c) => c.type === type);
    const stsz = find("stsz");
    const stsc = find("stsc");
    const stco = find("stco");
    const stsd = find("stsd");
    if (!stsz || !stsc || !stco || !stsd || find("stss")) return null;

    // avcC's lengthSizeMinusOne: how many bytes prefix each NAL unit in the samples. The avc1 entry has 78 bytes
    // of fields before its child boxes.
    const avc1 = boxes(bytes, stsd.start + 16, stsd.end)?.find((b) => b.type === "avc1");
    const avcC = avc1 && boxes(bytes, avc1.start + 86, avc1.end)?.find((b) => b.type === "avcC");
    if (!avcC) return null;
    const lengthSize = (bytes[avcC.start + 12]! & 3) + 1;

    const fixedSize = view.getUint32(stsz.start + 12);
    const count = view.getUint32(stsz.start + 16);
    const sizeOf = (i: number) => (fixedSize !== 0 ? fixedSize : view.getUint32(stsz.start + 20 + i * 4));
    const chunks = view.getUint32(stco.start + 12);
    const runs = view.getUint32(stsc.start + 12);
    const keyframes: number[] = [];
    let sample = 0;
    for (let run = 0; run < runs; run++) {
      const entry = stsc.start + 16 + run * 12;
      const firstChunk = view.getUint32(entry);
      const perChunk = view.getUint32(entry + 4);
      const lastChunk = run + 1 < runs ? view.getUint32(entry + 12) - 1 : chunks;
      for (let chunk = firstChunk; chunk <= lastChunk; chunk++) {
        let offset = view.getUint32(stco.start + 16 + (chunk - 1) * 4);
        for (let k = 0; k < perChunk && sample < count; k++, sample++) {
          const size = sizeOf(sample);
          if (offset + size > bytes.byteLength) return null;
          if (isKeyframe(bytes, offset, size, lengthSize)) keyframes.push(sample + 1);
          offset += size;
        }
      }
    }
    if (sample !== count || keyframes[0] !== 1) return null;

    const table = new Uint8Array(8 + keyframes.length * 4);
    const tableView = new DataView(table.buffer);
    tableView.setUint32(4, keyframes.length);
    keyframes.forEach((n, i) => tableView.setUint32(8 + i * 4, n));
    const stss = box("stss", table);

    if (!children.some((c) => c.type === "stts")) return null;
    return children.flatMap((child) => {
      const part = bytes.subarray(child.start, child.end);
      return child.type === "stts" ? [part, stss] : [part];
    });
  });
  if (!newMoov) return bytes;

  const moovView = new DataView(newMoov.buffer, newMoov.byteOffset, newMoov.byteLength);
  let at: Box = { type: "moov", start: 0, end: newMoov.byteLength };
  let stco: Box | undefined;
  for (const type of [...CONTAINERS.slice(1), "stco"]) {
    const inside = boxes(newMoov, at.start + 8, at.end) ?? [];
    // The encoder stamps the wall-clock time into these headers; zero it so a request always gives the same bytes.
    for (const header of inside.filter((b) => b.type === "mvhd" || b.type === "tkhd" || b.type === "mdhd")) {
      const wide = newMoov[header.start + 8] === 1;
      newMoov.fill(0, header.start + 12, header.start + 12 + (wide ? 16 : 8));
    }
    const next = inside.find((b) => b.type === type);
    if (!next) return bytes;
    if (type === "stco") stco = next;
    else at = next;
  }
  if (!stco) return bytes;

  // The media moves back by the new index's size: every chunk offset moves with it.
  const stcoStart = stco.start;
  const ftypSize = ftyp.end - ftyp.start;
  const shift = ftypSize + newMoov.byteLength - mdat.start;
  const chunks = moovView.getUint32(stcoStart + 12);
  for (let i = 0; i < chunks; i++) {
    const at = stcoStart + 16 + i * 4;
    moovView.setUint32(at, moovView.getUint32(at) + shift);
  }

  const out = new Uint8Array(ftypSize + newMoov.byteLength + (mdat.end - mdat.start));
  out.set(bytes.subarray(ftyp.start, ftyp.end), 0);
  out.set(newMoov, ftypSize);
  out.set(bytes.subarray(mdat.start, mdat.end), ftypSize + newMoov.byteLength);
  return out;
}
