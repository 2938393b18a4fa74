import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCALES } from "#common/locales.ts";
import { ROOT } from "#tests/support/server.ts";

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

const dir = join(ROOT, "locales");
const load = (locale: string, ns: string) =>
  flatten(JSON.parse(readFileSync(join(dir, locale, `${ns}.json`), "utf8")) as Tree);
const namespaces = readdirSync(join(dir, "en")).map((f) => f.replace(/\.json$/, ""));
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

const PLURAL = /_(zero|one|two|few|many|other)$/;

/**
 * The keys a locale must have: the English ones, where each English plural pair (`x_one`, `x_other`) becomes the
 * plural forms of the locale's own language (as i18next picks them, through Intl.PluralRules): `x_other` alone in
 * Japanese, `x_one`, `x_few`, `x_many` and `x_other` in Russian.
 */
function expectedKeys(english: Map<string, string>, locale: string): Map<string, string> {
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  const out = new Map<string, string>();
  for (const [key, text] of english) {
    if (!PLURAL.test(key)) {
      out.set(key, text);
      continue;
    }
    const base = key.replace(PLURAL, "");
    const other = english.get(`${base}_other`) ?? text;
    for (const category of categories) out.set(`${base}_${category}`, other);
  }
  return out;
}

describe.each(namespaces)("translations of %s", (ns) => {
  const english = load("en", ns);

  it.each(LOCALES.filter((l) => l !== "en"))(
    "%s has exactly the English keys (plurals in its own forms), none empty, with the same placeholders",
    (locale) => {
      const translated = load(locale, ns);
      const expected = expectedKeys(english, locale);
      expect([...translated.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, text] of translated) {
        expect(text.trim(), `${locale}:${ns}:${key} is empty`).not.toBe("");
        expect(placeholders(text), `${locale}:${ns}:${key} placeholders`).toEqual(placeholders(expected.get(key)!));
      }
    },
  );
});

it("every locale has a folder with the same namespaces", () => {
  for (const locale of LOCALES) {
    expect(readdirSync(join(dir, locale)).sort()).toEqual([...namespaces].map((n) => `${n}.json`).sort());
  }
});

describe("error messages", () => {
  it("every application error code has its message in the common or the messages namespace", async () => {
    const { ERROR_CODES } = await import("#common/errors.ts");
    const common = load("en", "common");
    const messages = load("en", "messages");
    const missing = Object.entries(ERROR_CODES)
      .filter(([, e]) => !common.has(e.messageKey) && !messages.has(e.messageKey))
      .map(([code, e]) => `${code} → ${e.messageKey}`);
    expect(missing).toEqual([]);
  });
});

describe("the account forms' limits", () => {
  it("are never written into a text: the password hint and its check both take the limit from the code", () => {
    for (const locale of LOCALES) {
      const auth = load(locale, "auth");
      for (const key of ["strength.hint", "validation.passwordLength"]) {
        const value = auth.get(key) ?? "";
        expect(value, `${locale} ${key}`).toContain("{{min}}");
        expect(value.replaceAll(/\{\{\w+\}\}/g, ""), `${locale} ${key}`).not.toMatch(/\d/);
      }
    }
  });
});

describe("the tools' names", () => {
  it("name every tool where a model's tools are listed: the pricing page and the console's model reading", async () => {
    const { GENERATION_TOOLS } = await import("#common/tools.ts");
    const admin = load("en", "admin");
    const billing = load("en", "billing");
    for (const tool of GENERATION_TOOLS) {
      expect(admin.has(`modelAdd.toolNames.${tool}`), `admin modelAdd.toolNames.${tool}`).toBe(true);
      expect(billing.has(`pricing.models.toolNames.${tool}`), `billing pricing.models.toolNames.${tool}`).toBe(true);
    }
  });
});
