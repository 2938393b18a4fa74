import { createHash } from "node:crypto";
import type { Context } from "hono";
import { LRUCache } from "lru-cache";
import { getSessionCookie } from "better-auth/cookies";
import { readCookie } from "#common/cookies.ts";
import { FLASH_COOKIE } from "#common/flash.ts";
import { COLOR_SCHEME_HINT, THEME_COOKIE, isThemeMode, resolveScheme } from "#common/theme.ts";
import { COOKIE_PREFIX } from "#server/modules/auth/auth.ts";
import { recordPageCache } from "#server/metrics.ts";
import type { SecurityHeaders } from "#server/http/security.ts";
import { bodyOf, encode, mergeVary, pickEncoding } from "#server/http/encoding.ts";

/**
 * The only queries a stored page may have: a listing's page, topic, order and kind (`?page=2`, `?tag=api&page=2`,
 * `?sort=newest&kind=video`), each at most once. Any other query (a search, a filter by model) is rendered each
 * time, so made-up queries cannot fill the cache with copies of a page.
 */
const LISTING_PARAM = /^(tag=[a-z0-9-]{1,40}|page=[1-9]\d{0,3}|sort=(?:newest|remixed)|kind=(?:image|video))$/;

export function isListingQuery(query: string): boolean {
  const params = query.slice(1).split("&");
  if (params.length > 3) return false;
  const names = new Set<string>();
  for (const param of params) {
    if (!LISTING_PARAM.test(param)) return false;
    names.add(param.slice(0, param.indexOf("=")));
  }
  return names.size === params.length;
}

/** How long a stored page is served before it is rendered again, whatever else happens. */
export const PAGE_CACHE_TTL_MS = 60 * 60 * 1000;

const S_MAXAGE = /(?:^|[,\s])s-maxage=(\d+)/;
const MAX_AGE = /(?:^|[,\s])max-age=(\d+)/;

/**
 * How long a page may be kept: `PAGE_CACHE_TTL_MS`, or less when the page says so in its Cache-Control (`s-maxage`,
 * else `max-age`), as a page showing live figures does.
 */
export function maxAgeMs(cacheControl: string | null): number {
  const seconds = S_MAXAGE.exec(cacheControl ?? "")?.[1] ?? MAX_AGE.exec(cacheControl ?? "")?.[1];
  return seconds === undefined ? PAGE_CACHE_TTL_MS : Math.min(PAGE_CACHE_TTL_MS, Number(seconds) * 1000);
}

/** What a page answer varies on: cookies (session, theme), the colour-scheme hint, and compression. */
export const PAGE_VARY = `Cookie, ${COLOR_SCHEME_HINT}, Accept-Encoding`;

// Headers of the rendered answer that are not stored: each answer gets its own.
const PER_RESPONSE = new Set(["content-security-policy", "content-length", "date", "x-request-id", "set-cookie"]);

interface Entry {
  body: Buffer;
  br: Buffer;
  gzip: Buffer;
  etag: string;
  headers: [string, string][];
  /** The CSP script-src allowing the page's inline scripts by hash: a stored page carries no nonce. */
  scriptSrc: string;
}

/**
 * An ETag for a page: the same page always has the same one, whether it came from the cache or not, and in every
 * encoding (so it is weak).
 */
export const etagOf = (body: Buffer) => `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/g;

/** The CSP source of every inline script in a page. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attributes, body] of html.matchAll(INLINE_SCRIPT)) {
    // A script loaded from a file, or data for search engines (JSON-LD), is never run inline
    if (/\bsrc=|type="application\/ld\+json"/.test(attributes!)) continue;
    hashes.add(`'sha256-${createHash("sha256").update(body!, "utf8").digest("base64")}'`);
  }
  return [...hashes];
}

/** Whether `etag` is among the validators of an If-None-Match header. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((v) => v.trim().replace(/^W\//, "") === bare);
}

/**
 * Public pages as signed-out visitors see them, rendered once and answered from memory: GET and HEAD of a path
 * without a query (or only a listing's page and topic), from a request with no session or flash cookie. Keyed by path (so language), theme choice,
 * colour scheme and build. A page is stored only when it answered 200 with no cookie set and did not declare itself
 * private; it is stored without its nonce, with the hashes of its inline scripts for the CSP, an ETag, and brotli
 * and gzip made once. Bounded in bytes (least recently used pages go first) and in age.
 */
export class PageCache {
  readonly #entries: LRUCache<string, Entry> | null;
  readonly #storing = new Set<string>();
  readonly #buildId: string;
  readonly #security: SecurityHeaders;

  constructor(maxBytes: number, buildId: string, security: SecurityHeaders) {
    this.#buildId = buildId;
    this.#security = security;
    this.#entries =
      maxBytes > 0
        ? new LRUCache<string, Entry>({
            maxSize: maxBytes,
            sizeCalculation: (e) => e.body.length + e.br.length + e.gzip.length + 512,
            ttl: PAGE_CACHE_TTL_MS,
          })
        : null;
  }

  /** The key of a request that may be answered from the cache, or null when it must be rendered for itself. */
  keyFor(request: Request, path: string): string | null {
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    const at = request.url.indexOf("?");
    const query = at < 0 ? "" : request.url.slice(at);
    if (query && !isListingQuery(query)) return null;
    const headers = request.headers;
    const cookies = headers.get("cookie");
    if (cookies && (getSessionCookie(headers, { cookiePrefix: COOKIE_PREFIX }) || readCookie(cookies, FLASH_COOKIE))) {
      return null;
    }
    const stored = readCookie(cookies, THEME_COOKIE);
    const mode = isThemeMode(stored) ? stored : "system";
    return `${this.#buildId}\n${path}${query}\n${mode}\n${resolveScheme(mode, headers.get(COLOR_SCHEME_HINT))}`;
  }

  /**
   * Answers from the cache (200, or 304 when the client has this version), or returns null on a miss. The answer is
   * built whole, every header in one plain object, so nothing after it touches its headers again.
   */
  serve(c: Context, key: string, extra: Headers): Response | null {
    const entry = this.#entries?.get(key);
    recordPageCache(entry ? "hit" : "miss");
    if (!entry) return null;
    const headers: Record<string, string> = Object.fromEntries(entry.headers);
    for (const [name, value] of extra) {
      headers[name] = name === "vary" && headers.vary ? mergeVary(headers.vary, value) : value;
    }
    headers.etag = entry.etag;
    headers["x-cache"] = "hit";
    headers["x-request-id"] = c.get("requestId");
    Object.assign(headers, this.#security.headersFor(c, entry.scriptSrc));
    c.set("headersComplete", true);
    if (matchesEtag(c.req.header("if-none-match"), entry.etag)) return new Response(null, { status: 304, headers });
    const encoding = pickEncoding(c.req.header("accept-encoding"));
    const body = encoding === "br" ? entry.br : encoding === "gzip" ? entry.gzip : entry.body;
    if (encoding) headers["content-encoding"] = encoding;
    headers["content-length"] = String(body.length);
    return new Response(c.req.method === "HEAD" ? null : bodyOf(body), { status: 200, headers });
  }

  /**
   * Gives a freshly rendered answer its validators and, when it may be shared, stores it in the background (the
   * answer does not wait for compression). Returns the answer to send: a 304 when the client already has it.
   */
  async offer(c: Context, key: string, response: Response, nonce: string): Promise<Response> {
    const storable =
      response.status === 200 &&
      !response.headers.has("set-cookie") &&
      !/\b(private|no-store)\b/.test(response.headers.get("cache-control") ?? "") &&
      (response.headers.get("content-type") ?? "").startsWith("text/html");
    if (!storable || c.req.method !== "GET") return response;
    const rendered = Buffer.from(await response.arrayBuffer());
    const shared = Buffer.from(rendered.toString("utf8").replaceAll(` nonce="${nonce}"`, ""), "utf8");
    const etag = etagOf(shared);
    response.headers.set("ETag", etag);
    response.headers.set("X-Cache", "miss");
    const ttl = maxAgeMs(response.headers.get("cache-control"));
    if (this.#entries && ttl > 0 && !this.#storing.has(key)) {
      this.#storing.add(key);
      // The page's own headers as they are now: the security headers and request id added on the way out are each
      // answer's own.
      const headers = [...response.headers].filter(([name]) => !PER_RESPONSE.has(name) && name !== "x-cache");
      void this.#store(key, headers, shared, etag, ttl).finally(() => this.#storing.delete(key));
    }
    if (matchesEtag(c.req.header("if-none-match"), etag)) {
      return new Response(null, { status: 304, headers: response.headers });
    }
    return new Response(bodyOf(rendered), { status: response.status, headers: response.headers });
  }

  async #store(key: string, headers: [string, string][], body: Buffer, etag: string, ttl: number) {
    const [brotli, gzipped] = await Promise.all([encode(body, "br", "best"), encode(body, "gzip", "best")]);
    this.#entries?.set(
      key,
      {
        body,
        br: brotli,
        gzip: gzipped,
        etag,
        headers,
        scriptSrc: this.#security.hashed(inlineScriptHashes(body.toString("utf8"))),
      },
      { ttl },
    );
  }

  /** Forgets every stored page (content changed). */
  clear() {
    this.#entries?.clear();
  }

  get size() {
    return { pages: this.#entries?.size ?? 0, bytes: this.#entries?.calculatedSize ?? 0 };
  }
}
