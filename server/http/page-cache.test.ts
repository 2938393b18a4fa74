import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { etagOf, inlineScriptHashes, matchesEtag } from "#server/http/page-cache.ts";
import { pickEncoding } from "#server/http/encoding.ts";

const sha = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

describe("page cache helpers", () => {
  it("hashes each inline script once, and no script loaded from a file", () => {
    const html =
      '<script>a()</script><script type="module" src="/x.js"></script><script nonce="n">b("é")</script><script>a()</script>';
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
});
