import { lookup as systemLookup } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { AppError } from "#server/errors.ts";
import { INPUT_IMAGE_MAX_BYTES } from "#server/modules/generation/input-image.ts";

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface FetchImageOptions {
  /** The caller giving up (request closed, job cancelled): the fetch rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Budget for the whole download: every DNS lookup, connection, redirect and the body. Default 10 s. */
  timeoutMs?: number;
  /** Default INPUT_IMAGE_MAX_BYTES. */
  maxBytes?: number;
  /** Default 3. */
  maxRedirects?: number;
  /** Test seam replacing the system resolver. Whatever it returns still goes through the address policy. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * Test seam: lets one local fixture server through the address policy. The app never sets it; every
   * non-public address is refused.
   */
  allowAddress?: (address: string, port: number) => boolean;
  /**
   * Test seam: tests cannot serve https with a publicly trusted certificate. The app never sets it, so a
   * plain http URL (readable and rewritable by anyone on the path) is refused.
   */
  allowHttp?: boolean;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Downloads an image a user pointed at, without letting that URL reach anything a stranger on the internet could
 * not: only https, no credentials, and every address a host name resolves to must be public unicast, checked
 * before connecting and again at every redirect. The connection goes to the address that was checked (the host
 * name is kept for SNI, certificate and Host header), so a second DNS answer cannot rebind it to an internal one.
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
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.aborted) throw new AppError("input_url_failed", `no complete answer within ${timeoutMs} ms`);
    throw new AppError("input_url_failed", error instanceof Error ? error.message : "network error");
  }
}

async function download(rawUrl: string, options: FetchImageOptions, signal: AbortSignal): Promise<Uint8Array> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = checkUrl(rawUrl, options);
  for (let redirects = 0; ; redirects++) {
    signal.throwIfAborted();
    const target = await resolveTarget(url, options, signal);
    const response = await request(url, target, signal);
    const status = response.statusCode ?? 0;
    if (REDIRECT_STATUSES.has(status)) {
      response.destroy();
      const location = response.headers.location;
      if (!location) throw new AppError("input_url_failed", `redirect ${status} without a location`);
      if (redirects >= maxRedirects) throw new AppError("input_url_refused", `more than ${maxRedirects} redirects`);
      url = checkUrl(location, options, url);
      continue;
    }
    if (status < 200 || status > 299) {
      response.destroy();
      throw new AppError("input_url_failed", `the server answered ${status}`);
    }
    return await readBody(response, options.maxBytes ?? INPUT_IMAGE_MAX_BYTES, signal);
  }
}

function checkUrl(raw: string, options: FetchImageOptions, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new AppError("input_url_refused", "not a valid URL");
  }
  const schemeAllowed = url.protocol === "https:" || (url.protocol === "http:" && options.allowHttp === true);
  if (!schemeAllowed) throw new AppError("input_url_refused", `scheme ${url.protocol} is not allowed`);
  if (url.username || url.password) throw new AppError("input_url_refused", "credentials in the URL");
  return url;
}

/** The URL's host without IPv6 brackets and without the trailing dot of a fully qualified name. */
function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") ? host.slice(1, -1) : host.replace(/\.+$/, "");
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

async function resolveTarget(url: URL, options: FetchImageOptions, signal: AbortSignal): Promise<ResolvedAddress> {
  const host = bareHost(url);
  const port = portOf(url);
  let addresses: ResolvedAddress[];
  const literalFamily = isIP(host);
  if (literalFamily) {
    // The URL parser has already turned every IPv4 notation (2130706433, 0177.0.0.1, 0x7f.1, 127.1) into dotted decimal
    addresses = [{ address: host, family: literalFamily }];
  } else {
    // RFC 6761: these names are loopback whatever a resolver says
    if (host === "localhost" || host.endsWith(".localhost")) {
      throw new AppError("input_url_refused", "local host name");
    }
    const lookup = options.lookup ?? ((name: string) => systemLookup(name, { all: true, verbatim: true }));
    try {
      addresses = await untilAborted(lookup(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new AppError("input_url_failed", `${host} could not be resolved`);
    }
  }
  const [first] = addresses;
  if (!first) throw new AppError("input_url_failed", `${host} has no address`);
  // Every answer must pass: a resolver mixing a public and a private address must not get a coin toss
  for (const { address } of addresses) {
    if (!isPublicAddress(address) && options.allowAddress?.(address, port) !== true) {
      throw new AppError("input_url_refused", `${host} is not a public address`);
    }
  }
  return { address: first.address, family: isIP(first.address) };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Whether an address is one anybody on the internet could reach: public unicast, nothing loopback, private,
 * link-local (cloud metadata), shared (CGNAT), multicast, broadcast, reserved, documentation or benchmarking.
 * IPv6 must be global unicast (2000::/3); IPv4-mapped and -compatible forms are refused outright, and the IPv4
 * inside 6to4, Teredo and NAT64 (64:ff9b::/96) addresses must itself be public.
 */
export function isPublicAddress(address: string): boolean {
  // Only canonical notations: odd forms a resolver or a test seam might return are not guessed at
  if (!isIP(address)) return false;
  const ip = ipaddr.parse(address);
  return ip.kind() === "ipv4" ? isPublicIPv4(ip as ipaddr.IPv4) : isPublicIPv6(ip as ipaddr.IPv6);
}

function isPublicIPv4(ip: ipaddr.IPv4): boolean {
  return ip.range() === "unicast";
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isPublicIPv6(ip: ipaddr.IPv6): boolean {
  // A zone id only makes sense for link-local and other scoped addresses
  if (ip.zoneId) return false;
  const p = ip.parts;
  const part = (i: number) => p[i] ?? 0;
  switch (ip.range()) {
    case "6to4":
      return isPublicIPv4(ipv4From(part(1), part(2)));
    case "teredo":
      // Teredo carries the server's address in bits 32-63 and the client's, inverted, in bits 96-127
      return isPublicIPv4(ipv4From(part(2), part(3))) && isPublicIPv4(ipv4From(~part(6) & 0xffff, ~part(7) & 0xffff));
    case "rfc6052": {
      // Only the well-known NAT64 prefix 64:ff9b::/96; the local-use 64:ff9b:1::/48 is a private network's
      const wellKnown = part(2) === 0 && part(3) === 0 && part(4) === 0 && part(5) === 0 && part(1) === 0xff9b;
      return wellKnown && isPublicIPv4(ipv4From(part(6), part(7)));
    }
    case "unicast":
      return (part(0) & 0xe000) === 0x2000;
    default:
      return false;
  }
}

function request(url: URL, target: ResolvedAddress, signal: AbortSignal): Promise<IncomingMessage> {
  // Net asks with `all` when it races IPv4 and IPv6 (autoSelectFamily): both shapes answer the pinned address
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request({
      protocol: url.protocol,
      hostname: bareHost(url),
      port: portOf(url),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: {
        accept: "image/png, image/jpeg, image/webp",
        // Compressed transfer would make the byte limit count something other than what we keep
        "accept-encoding": "identity",
        "user-agent": "Atelier image fetch",
      },
      lookup: pinnedLookup,
      // A fresh connection per request: no pooled socket from an earlier hop, and no proxy from the environment
      agent: false,
      signal,
    });
    // Kept for the request's whole life: a late socket error with no listener would crash the process
    req.on("error", reject);
    req.on("response", resolve);
    req.end();
  });
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
