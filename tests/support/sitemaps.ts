import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { validateXML } from "xmllint-wasm";
import { ROOT } from "#server/paths.ts";

export const schemaFile = (name: string) => ({
  fileName: name,
  contents: readFileSync(join(ROOT, "tests/fixtures/sitemaps", name), "utf8"),
});

/** Validates a sitemap or sitemap index against the sitemaps.org schema (and XHTML's links) with libxml2. */
export async function expectSchemaValid(text: string, schema: "sitemap.xsd" | "siteindex.xsd") {
  const result = await validateXML({
    xml: [{ fileName: "sitemap.xml", contents: text }],
    schema: [schemaFile(schema)],
    preload: [schemaFile("sitemap-types.xsd"), schemaFile("xhtml-link.xsd")],
  });
  expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
  expect(result.valid).toBe(true);
}
