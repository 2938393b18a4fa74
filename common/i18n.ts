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
  "blog",
  "status",
  "verify",
  "admin",
  "chat",
  "explore",
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

/** Entries one instance remembers at most: the keys are the code's own, a few hundred. */
const MEMO_LIMIT = 5_000;

/**
 * Remembers what an instance's translate functions return for a plain key (no options), for an instance whose
 * resources and language never change once made: the server's shared instances. i18next copies all its options on
 * every call, which made `t()` about a tenth of a page's time.
 */
export function rememberTranslations(instance: i18n): void {
  const getFixedT = instance.getFixedT.bind(instance) as unknown as (...args: unknown[]) => (...a: unknown[]) => string;
  const memo = new Map<string, string>();
  instance.getFixedT = ((...args: unknown[]) => {
    const fixed = getFixedT(...args);
    // A key prefix given as a function (a selector) has no stable name to remember by.
    if (args.some((arg) => typeof arg === "function")) return fixed;
    const scope = `${JSON.stringify(args)}|`;
    const remembering = (key: unknown, ...rest: unknown[]): string => {
      if (typeof key !== "string" || rest.length > 0) return fixed(key, ...rest);
      const id = scope + key;
      let value = memo.get(id);
      if (value === undefined) {
        value = fixed(key);
        if (memo.size < MEMO_LIMIT) memo.set(id, value);
      }
      return value;
    };
    // With the properties i18next gives its own (lng, lngs, ns, keyPrefix).
    return Object.assign(remembering, fixed);
  }) as unknown as i18n["getFixedT"];
}
