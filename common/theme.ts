export const THEME_MODES = ["system", "light", "dark"] as const;
export type ThemeMode = (typeof THEME_MODES)[number];
export type ColorScheme = "light" | "dark";

export const THEME_COOKIE = "theme";
export const THEME_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;
/** Chromium sends the system's colour scheme in this client hint once the server asks for it. */
export const COLOR_SCHEME_HINT = "Sec-CH-Prefers-Color-Scheme";

export const isThemeMode = (value: unknown): value is ThemeMode =>
  typeof value === "string" && (THEME_MODES as readonly string[]).includes(value);

/** The scheme to render: an explicit choice, else the system's as far as the server can know it. */
export function resolveScheme(mode: ThemeMode, systemHint: string | null | undefined): ColorScheme {
  if (mode !== "system") return mode;
  return systemHint?.replace(/"/g, "") === "dark" ? "dark" : "light";
}

/**
 * Runs in <head> before the first paint: a page that follows the system takes the system's scheme even where the
 * browser sent no hint, so a dark system never sees a light flash. Constant text, allowed by its hash in the CSP.
 */
export const THEME_SCRIPT =
  'try{var d=document.documentElement;if(d.dataset.themeMode==="system"){var s=matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light";d.dataset.theme=s;d.style.colorScheme=s}}catch(e){}';
