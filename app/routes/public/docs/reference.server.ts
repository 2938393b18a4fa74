import { openApiDocument } from "#server/api/v1/index.ts";
import { buildApiReference, type ApiReference } from "#server/modules/content/api-reference.ts";
import type { Locale } from "#common/locales.ts";

const references = new Map<string, ApiReference>();

/**
 * The reference of this server's API, from the same document `/api/v1/openapi.json?lang=` serves in the reader's
 * language, made once per process and language (links inside the site keep the reader's language).
 */
export function apiReference(origin: string, locale: Locale): ApiReference {
  const key = `${origin}|${locale}`;
  let reference = references.get(key);
  if (!reference) {
    reference = buildApiReference(openApiDocument(origin, locale), locale);
    references.set(key, reference);
  }
  return reference;
}
