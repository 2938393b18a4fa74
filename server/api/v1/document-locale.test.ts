import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCALES } from "#common/locales.ts";
import { ROOT } from "#server/paths.ts";
import { openApiDocument } from "./index.ts";
import { documentTexts } from "./document-locale.ts";

const ORIGIN = "https://atelier.example";
const METHODS = ["get", "put", "post", "delete", "patch"];
const OTHERS = LOCALES.filter((l) => l !== "en");

type Doc = {
  info: { title: string; description?: string };
  tags: { name: string; description?: string; "x-displayName"?: string }[];
  paths: Record<string, Record<string, { summary?: string; description?: string; operationId?: string }>>;
  webhooks: Record<string, Record<string, { summary?: string; description?: string }>>;
};
const english = openApiDocument(ORIGIN) as unknown as Doc;
const texts = documentTexts(english, ORIGIN);
const translations = (locale: string) =>
  JSON.parse(readFileSync(join(ROOT, "locales", locale, "openapi.json"), "utf8")) as Record<string, string>;

/** Every operation of a document with its summary, by method and path. */
const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ key: `${m} ${path}`, ...item[m]! })),
  );
/** The code spans of a text: what a translation must keep as it is. */
const code = (text: string) => (text.match(/`[^`]*`/g) ?? []).sort();
/** Names that read the same in some languages ("Webhooks" in German, "Credits" in German). */
const NAMES = new Set(["Webhooks", "Credits"]);
/** A text with no words outside its code spans ("`WIDTHxHEIGHT`.") may stay as it is. */
const wordless = (text: string) => !/\p{L}{2}/u.test(text.replace(/`[^`]*`/g, ""));

describe("the OpenAPI document in the reader's language", () => {
  it("finds texts to translate: every summary, description and tag name, listed in English", () => {
    expect(texts.length).toBeGreaterThan(100);
    // English maps each text to itself: the list every other language follows
    expect(translations("en")).toEqual(Object.fromEntries(texts.map((t) => [t, t])));
    for (const op of operations(english)) expect(texts, op.key).toContain(op.summary);
    expect(texts).toContain("Generations");
    expect(texts.some((t) => t.includes("{{origin}}/v1"))).toBe(true);
  });

  it.each(OTHERS)("has every text translated in %s, keeping its code, and nothing stale", (locale) => {
    const own = translations(locale);
    const missing = texts.filter((t) => !own[t]?.trim());
    expect(missing).toEqual([]);
    expect(Object.keys(own).filter((t) => !texts.includes(t))).toEqual([]);
    const untranslated = texts.filter((t) => own[t] === t && !wordless(t) && !NAMES.has(t));
    expect(untranslated).toEqual([]);
    const changed = texts.filter((t) => JSON.stringify(code(own[t]!)) !== JSON.stringify(code(t)));
    expect(changed).toEqual([]);
  });

  it.each(OTHERS)("serves %s with every operation named and described in it, the English left alone", (locale) => {
    const doc = openApiDocument(ORIGIN, locale) as unknown as Doc;
    const englishSummaries = new Set(operations(english).map((o) => o.summary));
    const ops = operations(doc);
    expect(ops.map((o) => o.key)).toEqual(operations(english).map((o) => o.key));
    for (const op of ops) {
      expect(englishSummaries.has(op.summary), `${locale} ${op.key}: ${op.summary}`).toBe(false);
      const source = operations(english).find((o) => o.key === op.key)!;
      if (source.description) expect(op.description, op.key).not.toBe(source.description);
      expect(op.operationId).toBe(source.operationId);
    }
    // Webhooks keep their event's name; their description is translated
    for (const [event, item] of Object.entries(doc.webhooks)) {
      expect(item.post!.summary).toBe(event);
      expect(item.post!.description).not.toBe(english.webhooks[event]!.post!.description);
    }
    // Tags keep the English name operations refer to, and show their own
    expect(doc.tags.map((t) => t.name)).toEqual(english.tags.map((t) => t.name));
    expect(doc.tags.every((t) => t["x-displayName"] || NAMES.has(t.name))).toBe(true);
    expect(doc.info.description).not.toBe(english.info.description);
    expect(JSON.stringify(doc)).toContain(`${ORIGIN}/v1`);
    expect(JSON.stringify(doc)).not.toContain("{{origin}}");
  });

  it("gives machines the English document, unchanged by the translations", () => {
    expect(openApiDocument(ORIGIN, "en")).toBe(openApiDocument(ORIGIN));
    expect(english.tags.some((t) => t["x-displayName"])).toBe(false);
    expect(operations(english).find((o) => o.key === "post /images")!.summary).toBe("Create an image generation");
  });
});
