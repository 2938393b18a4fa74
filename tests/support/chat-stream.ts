/** Reading the chat's answers as the page does: an AI SDK UI message stream of server-sent events. */
export interface Chunk {
  type: string;
  delta?: string;
  messageId?: string;
  messageMetadata?: Record<string, unknown>;
}

/** Reads a UI message stream (server-sent events) until it ends, or until `stopAfter` says so; then closes it. */
export async function readStream(response: Response, stopAfter?: (chunks: Chunk[]) => boolean): Promise<Chunk[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const chunks: Chunk[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.replace(/^data: /, "");
      if (data !== "[DONE]") chunks.push(JSON.parse(data) as Chunk);
    }
    if (stopAfter?.(chunks)) {
      await reader.cancel();
      break;
    }
  }
  return chunks;
}
export const textOf = (chunks: Chunk[]) =>
  chunks
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta)
    .join("");
export const outcomeOf = (chunks: Chunk[]) => chunks.find((c) => c.type === "message-metadata")?.messageMetadata;
