import { serialize } from "hono/utils/cookie";
import { LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_SECONDS, type Locale } from "#common/locales.ts";
import { FLASH_COOKIE, type FlashKey } from "#common/flash.ts";

// The cookies the server sets besides the session's (which better-auth writes), built one way for the HTTP layer
// and the pages' actions alike. Both are read by the browser's scripts too, so neither is HttpOnly.

/** The language the visitor chose or was served, remembered for a year. */
export const localeCookie = (locale: Locale) =>
  serialize(LOCALE_COOKIE, locale, { path: "/", maxAge: LOCALE_COOKIE_MAX_AGE_SECONDS, sameSite: "Lax" });

/** A cookie that makes the next page show one toast (the time makes two identical toasts in a row distinct). */
export const flashCookie = (key: FlashKey) =>
  serialize(FLASH_COOKIE, `${key}.${Date.now().toString(36)}`, { path: "/", maxAge: 60, sameSite: "Lax" });
