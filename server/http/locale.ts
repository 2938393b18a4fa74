import { match } from "@formatjs/intl-localematcher";
import { isbot } from "isbot";
import { DEFAULT_LOCALE, LOCALES, isLocale, type Locale } from "#common/locales.ts";

const MAX_LANGUAGES = 20;
const MAX_HEADER = 2_000;

/** The languages of an Accept-Language header, best first; garbage and absurd lengths are dropped, never thrown. */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  const entries: { tag: string; q: number; i: number }[] = [];
  for (const [i, part] of header.slice(0, MAX_HEADER).split(",").slice(0, MAX_LANGUAGES).entries()) {
    const [rawTag, ...params] = part.trim().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!rawTag || rawTag === "*" || !Number.isFinite(q) || q <= 0 || q > 1) continue;
    try {
      const [tag] = Intl.getCanonicalLocales(rawTag.trim());
      if (tag) entries.push({ tag, q, i });
    } catch {
      // not a language tag
    }
  }
  return entries.sort((a, b) => b.q - a.q || a.i - b.i).map((e) => e.tag);
}

/**
 * The supported locale that best matches the browser's list, English when nothing matches. Each supported locale is
 * a whole language, so a regional or script variant asks for its language (`zh-TW` and `zh-Hant-HK` for Chinese,
 * `pt-PT` for Portuguese): a reader of Traditional Chinese is better served in Chinese than in English.
 */
export function matchLocale(acceptLanguage: string | undefined, fallback: Locale = DEFAULT_LOCALE): Locale {
  const requested = parseAcceptLanguage(acceptLanguage).map((tag) => {
    const language = new Intl.Locale(tag).language;
    return isLocale(language) ? language : tag;
  });
  if (requested.length === 0) return fallback;
  try {
    const found = match(requested, [...LOCALES], fallback, { algorithm: "best fit" });
    return isLocale(found) ? found : fallback;
  } catch {
    return fallback;
  }
}

export interface RootVisit {
  cookie: string | undefined;
  acceptLanguage: string | undefined;
  userAgent: string | undefined;
  /** The site's default locale: where a browser that matches none of them goes. */
  fallback?: Locale;
}

/**
 * Where a visitor of the bare root `/` belongs: a valid locale cookie wins, then the browser's languages.
 * Crawlers always get the English root, so every variant stays indexable at its own URL.
 */
export function rootLocale({ cookie, acceptLanguage, userAgent, fallback }: RootVisit): Locale {
  if (isLocale(cookie)) return cookie;
  if (isbot(userAgent ?? "")) return DEFAULT_LOCALE;
  return matchLocale(acceptLanguage, fallback);
}
