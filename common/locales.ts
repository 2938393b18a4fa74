export const LOCALES = ["en", "zh", "ru", "de", "fr", "ja", "ko", "es", "pt", "tr"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Each language by its own name, as the language switcher lists them. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: "English",
  zh: "简体中文",
  ru: "Русский",
  de: "Deutsch",
  fr: "Français",
  ja: "日本語",
  ko: "한국어",
  es: "Español",
  pt: "Português",
  tr: "Türkçe",
};

/** BCP 47 tags for `Intl` and `hreflang`. */
export const LOCALE_TAGS: Record<Locale, string> = {
  en: "en",
  zh: "zh-CN",
  ru: "ru",
  de: "de",
  fr: "fr",
  ja: "ja",
  ko: "ko",
  es: "es",
  pt: "pt-BR",
  tr: "tr",
};

export const LOCALE_COOKIE = "locale";
export const LOCALE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/** The locale a path is in: its prefix when it has one, English otherwise (unprefixed paths are English). */
export function localeOfPath(pathname: string): Locale {
  const first = pathname.split("/")[1];
  return isLocale(first) ? first : DEFAULT_LOCALE;
}

/** The path without its locale prefix, always starting with "/". */
export function stripLocale(pathname: string): string {
  const first = pathname.split("/")[1];
  if (!isLocale(first)) return pathname || "/";
  const rest = pathname.slice(first.length + 1);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/** The same page under another locale's prefix (`/de/pricing`); the root becomes `/de/`. */
export function localizePath(pathname: string, locale: Locale): string {
  const bare = stripLocale(pathname);
  return bare === "/" ? `/${locale}/` : `/${locale}${bare}`;
}

/** The public URL of a page (`bare`: its path without a prefix) in a locale: English unprefixed, others prefixed. */
export function localizedUrl(siteUrl: string, bare: string, locale: Locale): string {
  if (locale === DEFAULT_LOCALE) return `${siteUrl}${bare}`;
  return `${siteUrl}/${locale}${bare === "/" ? "/" : bare}`;
}

/** A link inside the app that keeps the current prefix: English pages stay unprefixed unless already under /en. */
export function hrefIn(currentPathname: string, to: string): string {
  const first = currentPathname.split("/")[1];
  if (!isLocale(first)) return to;
  return to === "/" ? `/${first}/` : `/${first}${to}`;
}

/**
 * A path in `locale` for someone now on `currentPathname`: the same prefix style when the language does not
 * change (unprefixed English stays unprefixed), the locale's prefix when it does.
 */
export function pathFor(currentPathname: string, to: string, locale: Locale = localeOfPath(currentPathname)): string {
  return locale === localeOfPath(currentPathname) ? hrefIn(currentPathname, to) : localizePath(to, locale);
}
