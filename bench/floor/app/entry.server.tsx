import { PassThrough } from "node:stream";
import type { EntryContext } from "react-router";
import { ServerRouter } from "react-router";
import { renderToPipeableStream } from "react-dom/server";

/** The whole document rendered before answering, as Atelier's entry does. */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
) {
  return new Promise<Response>((resolve, reject) => {
    const { pipe } = renderToPipeableStream(<ServerRouter context={routerContext} url={request.url} />, {
      onAllReady() {
        const sink = new PassThrough();
        const chunks: Buffer[] = [];
        sink.on("data", (chunk: Buffer) => chunks.push(chunk));
        sink.on("end", () => {
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(new Response(Buffer.concat(chunks), { headers: responseHeaders, status: responseStatusCode }));
        });
        pipe(sink);
      },
      onShellError: reject,
    });
  });
}
