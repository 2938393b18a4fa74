import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";

export interface SecurityOptions {
  /** Honour X-Forwarded-Proto from a reverse proxy when deciding whether the request came over https. */
  trustProxy: boolean;
  development: boolean;
}

export function isHttps(url: string, forwardedProto: string | undefined, trustProxy: boolean): boolean {
  if (trustProxy && forwardedProto) return forwardedProto.split(",")[0]!.trim() === "https";
  return url.startsWith("https:");
}

/**
 * Security headers on every response. Inline scripts need this request's nonce; scripts they load are
 * trusted through 'strict-dynamic'. Styles allow inline because Ant Design writes style attributes.
 */
export function securityHeaders(options: SecurityOptions): MiddlewareHandler<{ Variables: { nonce: string } }> {
  return async (c, next) => {
    const nonce = randomBytes(16).toString("base64");
    c.set("nonce", nonce);
    await next();
    const https = isHttps(c.req.url, c.req.header("x-forwarded-proto"), options.trustProxy);
    const h = c.res.headers;
    const connect = options.development ? "'self' ws: wss:" : "'self'";
    const csp = [
      "default-src 'self'",
      `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob: https:",
      "media-src 'self' data: blob: https:",
      "font-src 'self' data:",
      `connect-src ${connect}`,
      "worker-src 'self' blob:",
      "manifest-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      ...(https ? ["upgrade-insecure-requests"] : []),
    ].join("; ");
    h.set("Content-Security-Policy", csp);
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "strict-origin-when-cross-origin");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    h.set("Cross-Origin-Resource-Policy", "same-origin");
    h.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(self)");
    h.set("X-DNS-Prefetch-Control", "off");
    if (https) h.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  };
}
