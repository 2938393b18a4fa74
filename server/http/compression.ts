import type { MiddlewareHandler } from "hono";
import { bodyOf, encode, mergeVary, pickEncoding } from "#server/http/encoding.ts";

/** Below this, compression saves less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;
const COMPRESSIBLE = /^(text\/(html|css|xml)|application\/(json|problem\+json|javascript|xml)|image\/svg\+xml)\b/;

/**
 * Compresses answers made for one request (pages, JSON) when the client accepts it: brotli at a fast level, else
 * gzip, off the main thread. Answers already encoded (stored pages, precompressed assets), streams (anything but
 * the types above, or marked `no-transform`), HEAD and small bodies pass as they are.
 */
export function compressResponses(): MiddlewareHandler<{ Variables: { headersComplete?: boolean } }> {
  return async (c, next) => {
    await next();
    // Built whole (the page cache, /healthz): already encoded as it should be, or too small to gain.
    if (c.get("headersComplete")) return;
    const encoding = pickEncoding(c.req.header("accept-encoding"));
    if (!encoding) return;
    const res = c.res;
    if (c.req.method === "HEAD" || !res.body || res.status < 200 || res.status === 204 || res.status === 206) return;
    if (res.headers.has("content-encoding") || /no-transform/.test(res.headers.get("cache-control") ?? "")) return;
    if (!COMPRESSIBLE.test(res.headers.get("content-type") ?? "")) return;
    const length = Number(res.headers.get("content-length") ?? Number.NaN);
    if (length < COMPRESS_MIN_BYTES) return;
    const body = Buffer.from(await res.arrayBuffer());
    const out = body.length < COMPRESS_MIN_BYTES ? body : await encode(body, encoding, "fast");
    c.res = new Response(bodyOf(out), res);
    c.res.headers.set("Content-Length", String(out.length));
    c.res.headers.set("Vary", mergeVary(c.res.headers.get("Vary"), "Accept-Encoding"));
    if (out === body) return;
    c.res.headers.set("Content-Encoding", encoding);
    // A compressed copy is another representation: its validator can only be weak.
    const etag = c.res.headers.get("ETag");
    if (etag && !etag.startsWith("W/")) c.res.headers.set("ETag", `W/${etag}`);
  };
}
