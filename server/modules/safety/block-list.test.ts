import { describe, expect, it } from "vitest";
import { BlockList, invalidLine } from "./block-list.ts";

describe("block list", () => {
  const list = new BlockList({
    all: "gore\nbehead*\n# a comment\n\n/k[i1]ll\\s+him/",
    de: "Gift",
    zh: "血腥",
    ja: "ゴア",
  });

  it("matches whole words, prefixes and patterns, whatever the case or width", () => {
    expect(list.matches("A scene full of GORE")).toEqual(["gore"]);
    expect(list.matches("ｇｏｒｅ in full-width")).toEqual(["gore"]);
    expect(list.matches("gorgeous gorest")).toEqual([]);
    expect(list.matches("beheading a statue")).toEqual(["behead*"]);
    expect(list.matches("then K1LL  him")).toEqual(["/k[i1]ll\\s+him/"]);
  });

  it("applies a language's list to requests in that language, or to all when the language is not known", () => {
    expect(list.matches("ein Gift", "de")).toEqual(["Gift"]);
    expect(list.matches("a gift for mother", "en")).toEqual([]);
    expect(list.matches("a gift for mother")).toEqual(["Gift"]);
    expect(list.matches("so much gore", "fr")).toEqual(["gore"]);
  });

  it("matches entries in scripts without spaces anywhere in the text", () => {
    expect(list.matches("一个血腥的场景")).toEqual(["血腥"]);
    expect(list.matches("ゴアな映画")).toEqual(["ゴア"]);
  });

  it("ignores marks hidden between letters", () => {
    expect(list.matches("go\u200bre")).toEqual(["gore"]);
  });

  it("names the line of a pattern that cannot be read", () => {
    expect(invalidLine("fine\n/(unclosed/\nother")).toEqual({ line: 2, text: "/(unclosed/" });
    expect(invalidLine("fine\n/ok/i")).toBeNull();
  });
});
