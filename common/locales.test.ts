import { describe, expect, it } from "vitest";
import { hrefIn, localeOfPath, localizePath, stripLocale } from "#common/locales.ts";

describe("locale paths", () => {
  it("reads the locale from the prefix, English without one", () => {
    expect(localeOfPath("/")).toBe("en");
    expect(localeOfPath("/pricing")).toBe("en");
    expect(localeOfPath("/de")).toBe("de");
    expect(localeOfPath("/ja/blog/x")).toBe("ja");
    expect(localeOfPath("/xx/pricing")).toBe("en");
    expect(localeOfPath("/dex/pricing")).toBe("en");
  });

  it("strips and swaps prefixes", () => {
    expect(stripLocale("/de")).toBe("/");
    expect(stripLocale("/de/")).toBe("/");
    expect(stripLocale("/de/pricing")).toBe("/pricing");
    expect(stripLocale("/pricing")).toBe("/pricing");
    expect(localizePath("/", "ja")).toBe("/ja/");
    expect(localizePath("/de/blog/post", "fr")).toBe("/fr/blog/post");
    expect(localizePath("/pricing", "en")).toBe("/en/pricing");
  });

  it("keeps the current prefix on links", () => {
    expect(hrefIn("/ko/docs", "/pricing")).toBe("/ko/pricing");
    expect(hrefIn("/ko", "/")).toBe("/ko/");
    expect(hrefIn("/docs", "/pricing")).toBe("/pricing");
    expect(hrefIn("/en/docs", "/pricing")).toBe("/en/pricing");
  });
});
