import type { Locale as AntdLocale } from "antd/es/locale";
import { use } from "react";
import { stripLocale, type Locale } from "#common/locales.ts";

// Each pack is its own small chunk: a page loads only the one for its language.
// `antd/locale/*` is CommonJS: Node sees `{ default: { default: pack } }`, the bundler `{ default: pack }`.
type PackModule = { default: AntdLocale | { default: AntdLocale } };
const packs: Record<Locale, () => Promise<PackModule>> = {
  en: () => import("antd/locale/en_US"),
  zh: () => import("antd/locale/zh_CN"),
  ru: () => import("antd/locale/ru_RU"),
  de: () => import("antd/locale/de_DE"),
  fr: () => import("antd/locale/fr_FR"),
  ja: () => import("antd/locale/ja_JP"),
  ko: () => import("antd/locale/ko_KR"),
  es: () => import("antd/locale/es_ES"),
  pt: () => import("antd/locale/pt_BR"),
  tr: () => import("antd/locale/tr_TR"),
};

const loaded = new Map<Locale, AntdLocale>();
const loading = new Map<Locale, Promise<AntdLocale>>();

/** Loads Ant Design's texts for a locale; the server before rendering, the browser before hydrating or on first use. */
export function loadAntdLocale(locale: Locale): Promise<AntdLocale> {
  let promise = loading.get(locale);
  if (!promise) {
    promise = packs[locale]().then((mod) => {
      const pack = "default" in mod.default ? mod.default.default : mod.default;
      loaded.set(locale, pack);
      return pack;
    });
    loading.set(locale, promise);
  }
  return promise;
}

/** The pack for a locale; the first page of a language built with Ant Design waits for it (React suspends). */
export function useAntdLocale(locale: Locale): AntdLocale {
  return loaded.get(locale) ?? use(loadAntdLocale(locale));
}

/** The pages built with Ant Design's components; the others load none of its scripts or texts. */
export const usesAntd = (pathname: string) => /^\/(dashboard|user|share)(\/|$)/.test(stripLocale(pathname));
