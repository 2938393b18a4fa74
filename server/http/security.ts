import { createHash, randomFillSync } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { ThirdPartyIds } from "#config/site.ts";
import { HEAD_SCRIPT } from "#common/early-input.ts";

/** The one inline script every page has without a nonce (it is the same on every page). */
const HEAD_SCRIPT_HASH = `'sha256-${createHash("sha256").update(HEAD_SCRIPT).digest("base64")}'`;

export interface SecurityOptions {
  /** Honour X-Forwarded-Proto from a reverse proxy when deciding whether the request came over https. */
  trustProxy: boolean;
  development: boolean;
  /** Configured third parties: the policy lets in exactly the services whose ID is set. */
  thirdParty: ThirdPartyIds;
  /** Other sites a form may lead to (a buy form answers with a redirect to the payment page). */
  formTargets?: string[];
}

/** Hosts each configured third party needs, by directive. */
export function thirdPartySources(ids: ThirdPartyIds) {
  const script: string[] = [];
  const connect: string[] = [];
  const frame: string[] = [];
  if (ids.ga4Id) {
    script.push("https://www.googletagmanager.com");
    connect.push(
      "https://*.google-analytics.com",
      "https://*.analytics.google.com",
      "https://www.googletagmanager.com",
    );
  }
  if (ids.clarityId) {
    script.push("https://www.clarity.ms", "https://*.clarity.ms");
    connect.push("https://*.clarity.ms");
  }
  if (ids.turnstileSiteKey) {
    script.push("https://challenges.cloudflare.com");
    frame.push("https://challenges.cloudflare.com");
  }
  return { script, connect, frame };
}

export function isHttps(url: string, forwardedProto: string | undefined, trustProxy: boolean): boolean {
  if (trustProxy && forwardedProto) return forwardedProto.split(",")[0]!.trim() === "https";
  return url.startsWith("https:");
}

type SecurityVariables = { nonce?: string; headersComplete?: boolean };

/**
 * Security headers on every response, unless its route set one of them itself. A rendered page's inline scripts need its nonce (made by `nonceFor`); scripts
 * they load are trusted through 'strict-dynamic'. A page from the page cache is the same for everyone: its inline
 * scripts are allowed by their hashes, and the scripts they load by their origin (this site and the configured third
 * parties). Styles allow inline because Ant Design writes style attributes.
 *
 * `headersFor` gives the same headers as a plain object, for the answers that are built complete in one go (the
 * page cache, /healthz): they skip the middleware's work after the handler (`headersComplete`).
 */
export function securityHeaders(options: SecurityOptions) {
  const extra = thirdPartySources(options.thirdParty);
  const withExtra = (base: string, hosts: string[]) => [base, ...hosts].join(" ");
  const connect = options.development ? "'self' ws: wss:" : "'self'";
  // Everything but script-src is the same for every answer: joined once.
  const rest = (https: boolean) =>
    [
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob: https:",
      "media-src 'self' data: blob: https:",
      "font-src 'self' data:",
      withExtra(`connect-src ${connect}`, extra.connect),
      withExtra("frame-src 'self'", extra.frame),
      "worker-src 'self' blob:",
      "manifest-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      withExtra("form-action 'self'", options.formTargets ?? []),
      "frame-ancestors 'none'",
      ...(https ? ["upgrade-insecure-requests"] : []),
    ].join("; ");
  const tail = { http: rest(false), https: rest(true) };
  // An answer that rendered no page (JSON, files) has no inline script to allow.
  const noScripts = withExtra(`script-src 'self' ${HEAD_SCRIPT_HASH}`, extra.script);
  const STATIC = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(self)",
    "X-DNS-Prefetch-Control": "off",
  };
  const HSTS = "max-age=31536000; includeSubDomains";

  /** The script-src directive allowing exactly these inline scripts (a stored page's). */
  const hashed = (hashes: string[]) =>
    withExtra(`script-src 'self' ${[...new Set([HEAD_SCRIPT_HASH, ...hashes])].join(" ")}`, extra.script);

  const httpsOf = (c: Context) => isHttps(c.req.url, c.req.header("x-forwarded-proto"), options.trustProxy);
  const cspOf = (https: boolean, scripts: string) =>
    `default-src 'self'; ${scripts}; ${https ? tail.https : tail.http}`;

  /** Every security header of an answer, with `scripts` as its script-src (default: no inline script). */
  const headersFor = (c: Context, scripts: string = noScripts): Record<string, string> => {
    const https = httpsOf(c);
    return {
      "Content-Security-Policy": cspOf(https, scripts),
      ...STATIC,
      ...(https ? { "Strict-Transport-Security": HSTS } : {}),
    };
  };

  return {
    middleware: (async (c, next) => {
      await next();
      if (c.get("headersComplete")) return;
      const nonce = c.get("nonce");
      const scripts = nonce
        ? withExtra(`script-src 'self' 'nonce-${nonce}' ${HEAD_SCRIPT_HASH} 'strict-dynamic'`, extra.script)
        : noScripts;
      // A route that set a header of its own meant it (the media route's sandbox, a shared file's cross-origin
      // resource policy): it wins; the defaults fill in the rest.
      const own = c.res.headers;
      for (const [name, value] of Object.entries(headersFor(c, scripts))) if (!own.has(name)) own.set(name, value);
    }) as MiddlewareHandler<{ Variables: SecurityVariables }>,
    /** The script-src directive for a stored page, computed once per page. */
    hashed,
    headersFor,
  };
}

export type SecurityHeaders = ReturnType<typeof securityHeaders>;

/**
 * 128 random bits per nonce, taken from a pool filled 256 nonces at a time: asking the system for 16 bytes per page
 * was a fortieth of a rendered page's time. Each part of the pool is handed out once.
 */
const NONCE_BYTES = 16;
const noncePool = Buffer.alloc(NONCE_BYTES * 256);
let noncePoolOffset = noncePool.length;
function freshNonce(): string {
  if (noncePoolOffset === noncePool.length) {
    randomFillSync(noncePool);
    noncePoolOffset = 0;
  }
  const nonce = noncePool.toString("base64", noncePoolOffset, noncePoolOffset + NONCE_BYTES);
  noncePoolOffset += NONCE_BYTES;
  return nonce;
}

/** This answer's nonce for inline scripts, made when a page first needs it (other answers never pay for it). */
export function nonceFor(c: { get(key: "nonce"): string | undefined; set(key: "nonce", value: string): void }): string {
  let nonce = c.get("nonce");
  if (!nonce) {
    nonce = freshNonce();
    c.set("nonce", nonce);
  }
  return nonce;
}
