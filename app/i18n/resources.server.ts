import type { Resource, ResourceLanguage } from "i18next";
import { localeOfPath, type Locale } from "#common/locales.ts";
import { createI18n, type Namespace } from "#app/i18n/i18n.ts";

const files = import.meta.glob<ResourceLanguage>("/locales/*/*.json", { eager: true, import: "default" });

const all: Record<string, Record<string, ResourceLanguage>> = {};
for (const [path, content] of Object.entries(files)) {
  const [, , locale, file] = path.split("/");
  const ns = file!.replace(/\.json$/, "");
  (all[locale!] ??= {})[ns] = content;
}

/** The resources a page needs: the namespaces asked for, in the locale and in English as the fallback. */
export function resourcesFor(locale: Locale, namespaces: readonly Namespace[]): Resource {
  const pick = (lng: Locale) => Object.fromEntries(namespaces.map((ns) => [ns, all[lng]?.[ns] ?? {}]));
  return locale === "en" ? { en: pick("en") } : { [locale]: pick(locale), en: pick("en") };
}

/** A translate function for loaders and meta: page titles and descriptions come from the same files. */
export function serverT(locale: Locale, namespaces: readonly Namespace[] = ["common"]) {
  return createI18n(locale, resourcesFor(locale, namespaces)).t;
}

/** What a page's loader needs for its language: the locale of its URL, a translate function and its namespaces. */
export function pageI18n(request: Request, namespaces: readonly Namespace[] = []) {
  const locale = localeOfPath(new URL(request.url).pathname);
  return {
    locale,
    t: serverT(locale, ["common", ...namespaces]),
    i18n: namespaces.length > 0 ? resourcesFor(locale, namespaces) : undefined,
  };
}
