import type { Locale as AntdLocale } from "antd/es/locale";
import type { Locale } from "#common/locales.ts";

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

/** Loads Ant Design's texts for a locale; the server before rendering, the browser before hydrating or navigating. */
export async function loadAntdLocale(locale: Locale): Promise<AntdLocale> {
  const cached = loaded.get(locale);
  if (cached) return cached;
  const mod = (await packs[locale]()).default;
  const pack = "default" in mod ? mod.default : mod;
  loaded.set(locale, pack);
  return pack;
}

/** The pack for a locale once loaded (always, by the time anything renders). */
export const antdLocale = (locale: Locale): AntdLocale | undefined => loaded.get(locale);
