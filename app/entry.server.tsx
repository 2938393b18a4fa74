import { PassThrough } from "node:stream";
import type { EntryContext, RouterContextProvider } from "react-router";
import { ServerRouter } from "react-router";
import { renderToPipeableStream } from "react-dom/server";
import { StyleProvider, createCache, extractStyle } from "@ant-design/cssinjs";
import { requestInfoContext } from "#app/context.ts";
import { loadAntdLocale } from "#app/i18n/antd.ts";
import { localeOfPath } from "#common/locales.ts";

export const streamTimeout = 5_000;

/**
 * Renders the whole document before answering so that Ant Design's styles, collected during the render,
 * can be placed in <head>: the page is styled before any script runs.
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const { nonce } = loadContext.get(requestInfoContext);
  await loadAntdLocale(localeOfPath(new URL(request.url).pathname));
  const cache = createCache();

  return new Promise<Response>((resolve, reject) => {
    let failed = false;
    const { pipe, abort } = renderToPipeableStream(
      <StyleProvider cache={cache}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </StyleProvider>,
      {
        nonce,
        onAllReady() {
          const sink = new PassThrough();
          const chunks: Buffer[] = [];
          sink.on("data", (chunk: Buffer) => chunks.push(chunk));
          sink.on("end", () => {
            clearTimeout(timer);
            const html = Buffer.concat(chunks).toString("utf8");
            const styles = extractStyle(cache, { plain: false });
            const at = html.indexOf("</head>");
            const body = at === -1 ? styles + html : html.slice(0, at) + styles + html.slice(at);
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            resolve(new Response(body, { headers: responseHeaders, status: failed ? 500 : responseStatusCode }));
          });
          pipe(sink);
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          failed = true;
          console.error(error);
        },
      },
    );
    const timer = setTimeout(abort, streamTimeout + 1000);
  });
}
