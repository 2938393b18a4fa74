import type { IncomingMessage } from "node:http";
import { AppError } from "#server/errors.ts";
import { INPUT_IMAGE_MAX_BYTES } from "#server/modules/generation/input-image.ts";
import {
  checkOutboundUrl,
  checkOutboundUrlStatically,
  openOutbound,
  OutboundError,
  resolveOutbound,
  type OutboundPolicy,
} from "#server/net/outbound.ts";

export { isPublicAddress, type ResolvedAddress } from "#server/net/outbound.ts";

export interface FetchImageOptions extends OutboundPolicy {
  /** The caller giving up (request closed, job cancelled): the fetch rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Budget for the whole download: every DNS lookup, connection, redirect and the body. Default 10 s. */
  timeoutMs?: number;
  /** Default INPUT_IMAGE_MAX_BYTES. */
  maxBytes?: number;
  /** Default 3. */
  maxRedirects?: number;
  /**
   * Origins let through whatever their address and scheme (the operator's own image store): each hop of a redirect
   * chain is checked on its own, so one of them redirecting elsewhere meets the policy again.
   */
  allowOrigins?: readonly string[];
}

/**
 * What can be told of an image URL before fetching it (its form, a literal address or local name that is not
 * public), refused as fetching it would be: `input_url_refused`.
 */
export function checkImageUrl(url: string, options: FetchImageOptions = {}): void {
  try {
    checkOutboundUrlStatically(url, policyFor(options)(url));
  } catch (error) {
    if (error instanceof OutboundError) throw new AppError("input_url_refused", error.message);
    throw error;
  }
}

/** The policy for each URL of a download: the options', or anything for an allowed origin. */
function policyFor(options: FetchImageOptions): (raw: string, base?: URL) => OutboundPolicy {
  const allowed = new Set((options.allowOrigins ?? []).map((o) => originOf(o)));
  return (raw, base) => {
    const origin = originOf(raw, base);
    return origin && allowed.has(origin) ? { ...options, allowHttp: true, allowAddress: () => true } : options;
  };
}

/** The options for the images requests point at, from the operator's settings. */
export function imageUrlOptions(env: { INPUT_URL_ALLOWED_ORIGINS?: readonly string[] }): FetchImageOptions {
  return { allowOrigins: env.INPUT_URL_ALLOWED_ORIGINS ?? [] };
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Downloads an image a user pointed at, under the outbound address policy (`#server/net/outbound.ts`), checked
 * again at every redirect.
 *
 * Refusals by policy are `input_url_refused`; anything that goes wrong on the way (DNS failure, timeout,
 * non-2xx, a body over the limit, a non-image content type) is `input_url_failed`. The bytes are not validated
 * as an image here: pass them to normalizeInputImage.
 */
export async function fetchImageUrl(url: string, options: FetchImageOptions = {}): Promise<Uint8Array> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    return await download(url, options, signal);
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof OutboundError)
      throw new AppError(error.refused ? "input_url_refused" : "input_url_failed", error.message);
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.aborted) throw new AppError("input_url_failed", `no complete answer within ${timeoutMs} ms`);
    throw new AppError("input_url_failed", error instanceof Error ? error.message : "network error");
  }
}

async function download(rawUrl: string, options: FetchImageOptions, signal: AbortSignal): Promise<Uint8Array> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const policyOf = policyFor(options);
  let url = checkOutboundUrl(rawUrl, policyOf(rawUrl));
  for (let redirects = 0; ; redirects++) {
    signal.throwIfAborted();
    const target = await resolveOutbound(url, policyOf(url.href), signal);
    const response = await openOutbound(url, target, {
      method: "GET",
      headers: {
        accept: "image/png, image/jpeg, image/webp",
        // Compressed transfer would make the byte limit count something other than what we keep
        "accept-encoding": "identity",
        "user-agent": "Atelier image fetch",
      },
      signal,
    });
    const status = response.statusCode ?? 0;
    if (REDIRECT_STATUSES.has(status)) {
      response.destroy();
      const location = response.headers.location;
      if (!location) throw new AppError("input_url_failed", `redirect ${status} without a location`);
      if (redirects >= maxRedirects) throw new AppError("input_url_refused", `more than ${maxRedirects} redirects`);
      url = checkOutboundUrl(location, policyOf(location, url), url);
      continue;
    }
    if (status < 200 || status > 299) {
      response.destroy();
      throw new AppError("input_url_failed", `the server answered ${status}`);
    }
    return await readBody(response, options.maxBytes ?? INPUT_IMAGE_MAX_BYTES, signal);
  }
}

/** A URL's origin, or none when it is not one. */
function originOf(raw: string, base?: URL): string | undefined {
  try {
    return new URL(raw, base).origin;
  } catch {
    return undefined;
  }
}

const BINARY_TYPES = new Set(["application/octet-stream", "binary/octet-stream"]);

async function readBody(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const mediaType = (response.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  // Storage services often label images as generic bytes; a web page or JSON, though, is a wrong link
  if (mediaType && !mediaType.startsWith("image/") && !BINARY_TYPES.has(mediaType)) {
    response.destroy();
    throw new AppError("input_url_failed", `not an image (${mediaType})`);
  }
  const declared = Number(response.headers["content-length"]);
  if (declared > maxBytes) {
    response.destroy();
    throw new AppError("input_url_failed", `body of ${declared} bytes, at most ${maxBytes}`);
  }
  const onAbort = () => response.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      // Leaving the loop destroys the stream: no more of an oversized body is read
      if (total > maxBytes) throw new AppError("input_url_failed", `body over ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    if (!response.complete) throw new AppError("input_url_failed", "the connection closed before the end");
    if (total === 0) throw new AppError("input_url_failed", "empty body");
    return Buffer.concat(chunks, total);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
