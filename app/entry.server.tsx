import { PassThrough } from "node:stream";
import type { EntryContext, HandleErrorFunction, RouterContextProvider } from "react-router";
import { ServerRouter, isRouteErrorResponse } from "react-router";
import { renderToPipeableStream } from "react-dom/server";
import { requestInfoContext } from "#app/context.ts";
import { serverContext } from "#app/server-context.server.ts";
import { NonceContext } from "#app/components/nonce.ts";
import { loadAntdLocale } from "#app/i18n/antd.ts";
import { localeOfPath } from "#common/locales.ts";

export const streamTimeout = 5_000;

/**
 * What a loader or action threw, once, as one line of the server's log. A response it threw on purpose (400, 404…)
 * or a request the router refused (405: no action there) is the client's mistake: one `info` line, never an error.
 * A request the client gave up on is nobody's error.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  logPageError(context, error, new URL(request.url).pathname);
};

/** The requests whose refusal was logged already: the router and the render may both report the same one. */
const refusalLogged = new WeakSet<object>();

function logPageError(context: Readonly<RouterContextProvider>, error: unknown, path: string) {
  const { runtime } = context.get(serverContext);
  const { requestId } = context.get(requestInfoContext);
  if (isRouteErrorResponse(error) && error.status < 500) {
    if (refusalLogged.has(context)) return;
    refusalLogged.add(context);
    runtime.logger.info({ status: error.status, path, requestId }, "page request refused");
    return;
  }
  runtime.logger.error({ err: error, path, requestId }, "page error");
}

/**
 * Renders the whole document before answering: the status is final, and the page cache and compression get one
 * complete body. Styles are static stylesheets (Ant Design's is generated at build time), so nothing is added.
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

  return new Promise<Response>((resolve, reject) => {
    let failed = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        onAllReady() {
          const sink = new PassThrough();
          const chunks: Buffer[] = [];
          sink.on("data", (chunk: Buffer) => chunks.push(chunk));
          sink.on("end", () => {
            clearTimeout(timer);
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            resolve(
              new Response(Buffer.concat(chunks), {
                headers: responseHeaders,
                status: failed ? 500 : responseStatusCode,
              }),
            );
          });
          pipe(sink);
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          failed = true;
          logPageError(loadContext, error, new URL(request.url).pathname);
        },
      },
    );
    const timer = setTimeout(abort, streamTimeout + 1000);
  });
}
