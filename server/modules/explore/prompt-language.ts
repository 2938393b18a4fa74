import { franc } from "franc-min";
import type { Locale } from "#common/locales.ts";

/** The Latin-script languages of the site, by franc's ISO 639-3 codes. */
const LATIN: Record<string, Locale> = { eng: "en", deu: "de", fra: "fr", spa: "es", por: "pt", tur: "tr" };
const LATIN_CODES = Object.keys(LATIN);
const LATIN_LOCALES = new Set<Locale>(Object.values(LATIN));

const KANA = /[\u3040-\u30ff]/u;
const HANGUL = /[\uac00-\ud7af\u1100-\u11ff]/u;
const HAN = /\p{Script=Han}/u;
const CYRILLIC = /\p{Script=Cyrillic}/gu;
const LETTER = /\p{L}/gu;

/**
 * The language a prompt is written in, among the site's ten, for its `lang` attribute and its search stemming:
 * the script decides for Japanese (kana), Korean (Hangul), Chinese (Han without kana) and Russian (mostly Cyrillic);
 * a Latin-script prompt is told apart by its letter trigrams, or, when too short to tell, taken to be in the
 * language its author was using if that is one of them. Null when nothing says.
 */
export function promptLanguage(prompt: string, authorLocale?: Locale): Locale | null {
  if (KANA.test(prompt)) return "ja";
  if (HANGUL.test(prompt)) return "ko";
  if (HAN.test(prompt)) return "zh";
  const letters = prompt.match(LETTER)?.length ?? 0;
  if (letters === 0) return null;
  if ((prompt.match(CYRILLIC)?.length ?? 0) * 2 > letters) return "ru";
  const guess = franc(prompt, { only: LATIN_CODES, minLength: 10 });
  if (guess in LATIN) return LATIN[guess]!;
  return authorLocale && LATIN_LOCALES.has(authorLocale) ? authorLocale : null;
}
