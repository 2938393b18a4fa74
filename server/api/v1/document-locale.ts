import { DEFAULT_LOCALE, type Locale } from "#common/locales.ts";

/**
 * The OpenAPI document in a reader's language. Its English texts are written beside the routes; each language has
 * one namespace file, `locales/{locale}/openapi.json`, mapping every English text (summary, description, tag name)
 * to its translation (English maps each to itself: the list of texts the other languages must have). A text changed
 * in English no longer finds its old translation, and the tests name it. Tags keep their English names (operations
 * and anchors refer to them) and show the translated one as `x-displayName`. The English document, what
 * `/api/v1/openapi.json` serves to machines, is never changed.
 */

/** Where the server's own address appears in a text, the translations say `{{origin}}`. */
const ORIGIN = "{{origin}}";
/** Keys whose values are examples written by the caller, never texts to translate. */
const SKIPPED = new Set(["example", "examples", "enum", "const", "default"]);

type Json = unknown;
type Texts = Record<string, string>;

const files = import.meta.glob<Texts>("/locales/*/openapi.json", { eager: true, import: "default" });
const dictionary = (locale: Locale): Texts => files[`/locales/${locale}/openapi.json`] ?? {};

/**
 * Calls `visit` with every text of the document a reader sees, as written in the translations (the server's
 * address as `{{origin}}`), and puts back what it returns. A webhook's summary is its event's name and stays.
 */
function mapTexts(document: Json, origin: string, visit: (text: string) => string): Json {
  const keyOf = (text: string) => text.split(origin).join(ORIGIN);
  const put = (text: string) => visit(keyOf(text)).split(ORIGIN).join(origin);
  const walk = (node: Json, inWebhook: boolean): Json => {
    if (Array.isArray(node)) return node.map((item) => walk(item, inWebhook));
    if (!node || typeof node !== "object") return node;
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) {
      if (SKIPPED.has(key)) out[key] = value;
      else if ((key === "description" || key === "summary") && typeof value === "string") {
        out[key] = key === "summary" && inWebhook ? value : put(value);
      } else out[key] = walk(value, inWebhook);
    }
    return out;
  };
  const doc = document as Record<string, Json>;
  const out = walk({ ...doc, webhooks: undefined, tags: undefined }, false) as Record<string, Json>;
  if (doc.webhooks !== undefined) out.webhooks = walk(doc.webhooks, true);
  if (Array.isArray(doc.tags)) {
    out.tags = (doc.tags as { name: string }[]).map((tag) => {
      const drawn = walk(tag, false) as { name: string };
      const name = put(tag.name);
      return name === tag.name ? drawn : { ...drawn, "x-displayName": name };
    });
  }
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}

/** Every text of the document a reader sees (tag names included), as the translations spell them. */
export function documentTexts(document: Json, origin: string): string[] {
  const texts = new Set<string>();
  mapTexts(document, origin, (text) => {
    texts.add(text);
    return text;
  });
  return [...texts];
}

/** The document with its texts in `locale`; a text without a translation stays in English. */
export function localizeDocument<D>(document: D, origin: string, locale: Locale): D {
  if (locale === DEFAULT_LOCALE) return document;
  const texts = dictionary(locale);
  return mapTexts(document, origin, (text) => texts[text] ?? text) as D;
}
