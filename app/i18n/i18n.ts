import { createInstance, type i18n, type Resource } from "i18next";
import { initReactI18next } from "react-i18next";
import type { Locale } from "#common/locales.ts";

export const NAMESPACES = [
  "common",
  "messages",
  "home",
  "auth",
  "user",
  "dashboard",
  "billing",
  "studio",
  "api",
  "docs",
] as const;
export type Namespace = (typeof NAMESPACES)[number];

/**
 * One i18next instance per render on the server, one per language in the browser, from the same resources.
 * The root sends `common`; each page adds its own namespaces with its data (`messages` where it shows them).
 */
export function createI18n(locale: Locale, resources: Resource): i18n {
  const instance = createInstance();
  void instance.use(initReactI18next).init({
    lng: locale,
    fallbackLng: "en",
    ns: ["common"],
    defaultNS: "common",
    // Messages of the signed-in pages and the APIs (generation, API keys, payment and code errors) live apart from
    // `common`, so public pages do not carry them; pages that show them load `messages`, and a key asked of
    // `common` is found there too (an error's `messageKey` is one key wherever it is shown).
    fallbackNS: "messages",
    // Its own languages' and namespaces' maps: adding a namespace later must not change the objects it was given
    // (the server shares them between requests).
    resources: Object.fromEntries(Object.entries(resources).map(([lng, namespaces]) => [lng, { ...namespaces }])),
    initAsync: false,
    interpolation: { escapeValue: false },
    react: { useSuspense: false },
  });
  return instance;
}
