import type { Resource, ResourceLanguage } from "i18next";
import { localeOfPath, type Locale } from "#common/locales.ts";
import { createI18n, type Namespace } from "#common/i18n.ts";

const files = import.meta.glob<ResourceLanguage>("/locales/*/*.json", { eager: true, import: "default" });

const all: Record<string, Record<string, ResourceLanguage>> = {};
for (const [path, content] of Object.entries(files)) {
  const [, , locale, file] = path.split("/");
  const ns = file!.replace(/\.json$/, "");
  (all[locale!] ??= {})[ns] = content;
}

// The resources never change while the server runs, so what is made of them is made once per language and set of
// namespaces (a few dozen combinations at most, fixed by the code): building an i18next instance per request was a
// measurable share of a page's time.
const resourceSets = new Map<string, Resource>();
const translators = new Map<string, ReturnType<typeof createI18n>["t"]>();

/**
 * The resources a page needs: the namespaces asked for, in the locale and in English as the fallback. The same
 * object for the same arguments; treat it as read-only.
 */
export function resourcesFor(locale: Locale, namespaces: readonly Namespace[]): Resource {
  const key = `${locale}|${namespaces.join(",")}`;
  let resources = resourceSets.get(key);
  if (!resources) {
    const pick = (lng: Locale) => Object.fromEntries(namespaces.map((ns) => [ns, all[lng]?.[ns] ?? {}]));
    resources = locale === "en" ? { en: pick("en") } : { [locale]: pick(locale), en: pick("en") };
    resourceSets.set(key, resources);
  }
  return resources;
}

/** A translate function for loaders and meta: page titles and descriptions come from the same files. */
export function serverT(locale: Locale, namespaces: readonly Namespace[] = ["common"]) {
  const key = `${locale}|${namespaces.join(",")}`;
  let t = translators.get(key);
  if (!t) {
    t = createI18n(locale, resourcesFor(locale, namespaces)).t;
    translators.set(key, t);
  }
  return t;
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
