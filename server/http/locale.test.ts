import { describe, expect, it } from "vitest";
import { matchLocale, parseAcceptLanguage, rootLocale } from "#server/http/locale.ts";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

describe("Accept-Language", () => {
  it("orders by quality, then by position", () => {
    expect(parseAcceptLanguage("fr;q=0.5, de-CH, en;q=0.8")).toEqual(["de-CH", "en", "fr"]);
  });

  it("drops garbage without throwing, whatever the length", () => {
    expect(parseAcceptLanguage("!!!, ;q=1, de;q=abc, *, ja;q=0")).toEqual([]);
    expect(parseAcceptLanguage(`${"x-".repeat(50_000)}, ko`)).toEqual([]);
    expect(() => parseAcceptLanguage("\u0000\uffff,;;;,=,q=")).not.toThrow();
  });

  it("matches regional variants to the supported locale", () => {
    expect(matchLocale("zh-CN,zh;q=0.9")).toBe("zh");
    expect(matchLocale("pt-PT")).toBe("pt");
    expect(matchLocale("de-AT, en;q=0.5")).toBe("de");
    expect(matchLocale("nl, sv")).toBe("en");
    expect(matchLocale(undefined)).toBe("en");
  });

  it("takes a script or regional variant to its language, ahead of a later English", () => {
    expect(matchLocale("zh-TW")).toBe("zh");
    expect(matchLocale("zh-HK,en;q=0.5")).toBe("zh");
    expect(matchLocale("zh-Hant-TW,en;q=0.8")).toBe("zh");
    expect(matchLocale("es-419")).toBe("es");
    expect(matchLocale("en-GB,zh-TW;q=0.5")).toBe("en");
    expect(matchLocale("sr-Latn")).toBe("en");
  });
});

describe("root locale", () => {
  it("prefers a valid cookie over the browser's list", () => {
    expect(rootLocale({ cookie: "ja", acceptLanguage: "de", userAgent: CHROME })).toBe("ja");
    expect(rootLocale({ cookie: "en", acceptLanguage: "de", userAgent: CHROME })).toBe("en");
  });

  it("ignores an unsupported cookie", () => {
    expect(rootLocale({ cookie: "xx", acceptLanguage: "ru", userAgent: CHROME })).toBe("ru");
    expect(rootLocale({ cookie: "", acceptLanguage: undefined, userAgent: CHROME })).toBe("en");
  });

  it("never sends a crawler away from the English root", () => {
    expect(rootLocale({ cookie: undefined, acceptLanguage: "fr", userAgent: GOOGLEBOT })).toBe("en");
  });
});
