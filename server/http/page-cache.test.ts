import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  PAGE_CACHE_TTL_MS,
  PageCache,
  etagOf,
  inlineScriptHashes,
  matchesEtag,
  maxAgeMs,
} from "#server/http/page-cache.ts";
import type { SecurityHeaders } from "#server/http/security.ts";
import { pickEncoding } from "#server/http/encoding.ts";

const sha = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

describe("page cache helpers", () => {
  it("hashes each inline script once, and no script loaded from a file nor structured data", () => {
    const html =
      '<script>a()</script><script type="module" src="/x.js"></script><script nonce="n">b("é")</script><script>a()</script>' +
      '<script type="application/ld+json">{"@type":"Thing"}</script>';
    expect(inlineScriptHashes(html)).toEqual([sha("a()"), sha('b("é")')]);
  });

  it("chooses brotli, then gzip, as the client accepts them", () => {
    expect(pickEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(pickEncoding("gzip")).toBe("gzip");
    expect(pickEncoding("br;q=0, gzip;q=0.5")).toBe("gzip");
    expect(pickEncoding("*")).toBe("br");
    expect(pickEncoding("identity")).toBeNull();
    expect(pickEncoding(undefined)).toBeNull();
  });

  it("matches an ETag weakly, in a list or as a wildcard", () => {
    const etag = etagOf(Buffer.from("page"));
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect(matchesEtag(etag, etag)).toBe(true);
    expect(matchesEtag(`"other", ${etag.slice(2)}`, etag)).toBe(true);
    expect(matchesEtag("*", etag)).toBe(true);
    expect(matchesEtag('"other"', etag)).toBe(false);
    expect(matchesEtag(undefined, etag)).toBe(false);
  });

  it("keys a page by its path and only a listing's page, topic, order and kind among queries", () => {
    const cache = new PageCache(1_000_000, "build", {} as SecurityHeaders);
    const key = (url: string, init?: RequestInit) => {
      const request = new Request(`https://a.example${url}`, init);
      return cache.keyFor(request, new URL(request.url).pathname);
    };
    expect(key("/blog")).toContain("/blog\n");
    expect(key("/blog?page=2")).toContain("/blog?page=2\n");
    expect(key("/de/blog?tag=api&page=3")).toContain("/de/blog?tag=api&page=3\n");
    expect(key("/blog?page=2")).not.toBe(key("/blog"));
    expect(key("/explore?sort=newest&kind=video&page=2")).toContain("/explore?sort=newest&kind=video&page=2\n");
    for (const url of [
      "/blog?utm_source=x",
      "/blog?page=0",
      "/blog?page=abc",
      "/blog?tag=API",
      "/?x",
      "/blog?page=2&x=1",
      "/blog?page=2&page=3",
      "/explore?q=cat",
      "/explore?model=x",
      "/explore?sort=trending",
      "/explore?sort=newest&kind=video&page=2&tag=a",
    ]) {
      expect(key(url), url).toBeNull();
    }
    expect(key("/blog", { method: "POST" })).toBeNull();
    expect(key("/blog", { headers: { cookie: "atelier.session_token=abc" } })).toBeNull();
  });

  it("keeps a page as long as its Cache-Control allows, never longer than the cache's own limit", () => {
    expect(maxAgeMs(null)).toBe(PAGE_CACHE_TTL_MS);
    expect(maxAgeMs("no-cache")).toBe(PAGE_CACHE_TTL_MS);
    expect(maxAgeMs("public, max-age=15")).toBe(15_000);
    expect(maxAgeMs("public, s-maxage=5, max-age=15")).toBe(5_000);
    expect(maxAgeMs("public, max-age=0")).toBe(0);
    expect(maxAgeMs("public, max-age=99999999")).toBe(PAGE_CACHE_TTL_MS);
  });
});
