/** One-time toasts carried across a redirect (sign-in, sign-out, ...) in a short-lived cookie. */
export const FLASH_COOKIE = "atelier.flash";
export const FLASH_KEYS = [
  "loginSuccess",
  "logoutSuccess",
  "emailVerified",
  "passwordReset",
  "accountDeleted",
] as const;
export type FlashKey = (typeof FLASH_KEYS)[number];

export function parseFlash(value: string | undefined): { key: FlashKey; id: string } | null {
  if (!value) return null;
  const [key, id] = value.split(".");
  return (FLASH_KEYS as readonly string[]).includes(key ?? "") ? { key: key as FlashKey, id: id ?? "" } : null;
}
