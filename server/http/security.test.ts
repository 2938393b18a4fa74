import { describe, expect, it } from "vitest";
import { isHttps, thirdPartySources } from "#server/http/security.ts";

describe("isHttps", () => {
  it("reads the request's own scheme when no proxy is trusted", () => {
    expect(isHttps("https://example.com/", undefined, false)).toBe(true);
    expect(isHttps("http://example.com/", "https", false)).toBe(false);
  });

  it("believes the first X-Forwarded-Proto only from a trusted proxy", () => {
    expect(isHttps("http://10.0.0.2/", "https", true)).toBe(true);
    expect(isHttps("http://10.0.0.2/", "https, http", true)).toBe(true);
    expect(isHttps("http://10.0.0.2/", "http", true)).toBe(false);
    expect(isHttps("https://10.0.0.2/", undefined, true)).toBe(true);
  });
});

describe("third parties in the Content-Security-Policy", () => {
  it("lets in nothing when nothing is configured", () => {
    expect(thirdPartySources({})).toEqual({ script: [], connect: [], frame: [] });
  });

  it("lets in exactly the configured services", () => {
    const sources = thirdPartySources({ ga4Id: "G-TEST", turnstileSiteKey: "key" });
    expect(sources.script).toEqual(["https://www.googletagmanager.com", "https://challenges.cloudflare.com"]);
    expect(sources.connect.some((h) => h.includes("clarity"))).toBe(false);
    expect(sources.frame).toEqual(["https://challenges.cloudflare.com"]);
  });
});
