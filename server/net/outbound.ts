import { lookup as systemLookup } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Requests to URLs a user chose (an input image, a webhook receiver) must not reach anything a stranger on the
 * internet could not: only https, no credentials, and every address a host name resolves to must be public
 * unicast, checked before connecting and again at every redirect. The connection goes to the address that was
 * checked (the host name is kept for SNI, certificate and Host header), so a second DNS answer cannot rebind it to
 * an internal one.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface OutboundPolicy {
  /** Test seam replacing the system resolver. Whatever it returns still goes through the address policy. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Lets an address through that is not public: a test's local server, or an operator's own network. */
  allowAddress?: (address: string, port: number) => boolean;
  /** Accepts plain http (readable and rewritable by anyone on the path): tests, or an operator's own network. */
  allowHttp?: boolean;
}

/** A URL the policy refuses (`refused`), or one that could not be reached. */
export class OutboundError extends Error {
  readonly refused: boolean;
  constructor(refused: boolean, message: string) {
    super(message);
    this.refused = refused;
  }
}

export function checkOutboundUrl(raw: string, policy: OutboundPolicy, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new OutboundError(true, "not a valid URL");
  }
  const schemeAllowed = url.protocol === "https:" || (url.protocol === "http:" && policy.allowHttp === true);
  if (!schemeAllowed) throw new OutboundError(true, `scheme ${url.protocol} is not allowed`);
  if (url.username || url.password) throw new OutboundError(true, "credentials in the URL");
  return url;
}

/**
 * What can be told without a DNS lookup: the URL's form, and whether its host is a local name or an address
 * literal that is not public. For checking a URL when it is given; the request itself resolves it again.
 */
export function checkOutboundUrlStatically(raw: string, policy: OutboundPolicy): URL {
  const url = checkOutboundUrl(raw, policy);
  const host = bareHost(url);
  if (isIP(host)) {
    if (!isPublicAddress(host) && policy.allowAddress?.(host, portOf(url)) !== true) {
      throw new OutboundError(true, `${host} is not a public address`);
    }
  } else if (isLocalName(host) && policy.allowAddress?.("127.0.0.1", portOf(url)) !== true) {
    throw new OutboundError(true, "local host name");
  }
  return url;
}

/** RFC 6761: these names are loopback whatever a resolver says. */
const isLocalName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** The URL's host without IPv6 brackets and without the trailing dot of a fully qualified name. */
function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") ? host.slice(1, -1) : host.replace(/\.+$/, "");
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** Resolves the URL's host and checks every address it has; the request must then go to the one returned. */
export async function resolveOutbound(url: URL, policy: OutboundPolicy, signal: AbortSignal): Promise<ResolvedAddress> {
  const host = bareHost(url);
  const port = portOf(url);
  let addresses: ResolvedAddress[];
  const literalFamily = isIP(host);
  if (literalFamily) {
    // The URL parser has already turned every IPv4 notation (2130706433, 0177.0.0.1, 0x7f.1, 127.1) into dotted decimal
    addresses = [{ address: host, family: literalFamily }];
  } else {
    if (isLocalName(host) && policy.allowAddress?.("127.0.0.1", port) !== true) {
      throw new OutboundError(true, "local host name");
    }
    const lookup = policy.lookup ?? ((name: string) => systemLookup(name, { all: true, verbatim: true }));
    try {
      addresses = await untilAborted(lookup(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new OutboundError(false, `${host} could not be resolved`);
    }
  }
  const [first] = addresses;
  if (!first) throw new OutboundError(false, `${host} has no address`);
  // Every answer must pass: a resolver mixing a public and a private address must not get a coin toss
  for (const { address } of addresses) {
    if (!isPublicAddress(address) && policy.allowAddress?.(address, port) !== true) {
      throw new OutboundError(true, `${host} is not a public address`);
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

export interface OutboundRequest {
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** Sends one request to the checked address; the response's body is the caller's to read or destroy. */
export function openOutbound(url: URL, target: ResolvedAddress, r: OutboundRequest): Promise<IncomingMessage> {
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
      method: r.method,
      headers: r.body === undefined ? r.headers : { ...r.headers, "content-length": String(Buffer.byteLength(r.body)) },
      lookup: pinnedLookup,
      // A fresh connection per request: no pooled socket from an earlier hop, and no proxy from the environment
      agent: false,
      signal: r.signal,
    });
    // Kept for the request's whole life: a late socket error with no listener would crash the process
    req.on("error", reject);
    req.on("response", resolve);
    req.end(r.body);
  });
}
