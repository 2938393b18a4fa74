import { describe, expect, it } from "vitest";
import { isHttps } from "#server/http/security.ts";

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
