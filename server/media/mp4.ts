/** Duration and picture size of an MP4 from its `moov` box (mvhd, and the first video track's tkhd), or null. */
export function mp4Info(bytes: Uint8Array): { durationMs: number; width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = (at: number) => String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
  /** The boxes directly inside [start, end): their type, where their content starts, and where they end. */
  const children = (start: number, end: number) => {
    const out: Array<{ type: string; body: number; end: number }> = [];
    for (let at = start; at + 8 <= end;) {
      let size = view.getUint32(at);
      let header = 8;
      if (size === 1 && at + 16 <= end) {
        size = Number(view.getBigUint64(at + 8));
        header = 16;
      } else if (size === 0) size = end - at;
      if (size < header || at + size > end) break;
      out.push({ type: type(at), body: at + header, end: at + size });
      at += size;
    }
    return out;
  };
  try {
    const moov = children(0, bytes.byteLength).find((b) => b.type === "moov");
    if (!moov) return null;
    const boxes = children(moov.body, moov.end);
    const mvhd = boxes.find((b) => b.type === "mvhd");
    if (!mvhd) return null;
    const version = bytes[mvhd.body]!;
    const timescale = view.getUint32(mvhd.body + (version === 1 ? 20 : 12));
    const duration = version === 1 ? Number(view.getBigUint64(mvhd.body + 24)) : view.getUint32(mvhd.body + 16);
    let width = 0;
    let height = 0;
    for (const trak of boxes.filter((b) => b.type === "trak")) {
      const tkhd = children(trak.body, trak.end).find((b) => b.type === "tkhd");
      if (!tkhd) continue;
      const v = bytes[tkhd.body]!;
      // Width and height are the last two fields, 16.16 fixed point; audio tracks have zeros.
      const sizeAt = tkhd.body + (v === 1 ? 88 : 76);
      const w = view.getUint32(sizeAt) >>> 16;
      const h = view.getUint32(sizeAt + 4) >>> 16;
      if (w > 0 && h > 0) {
        width = w;
        height = h;
        break;
      }
    }
    if (!timescale) return null;
    return { durationMs: Math.round((duration / timescale) * 1000), width, height };
  } catch {
    return null;
  }
}
