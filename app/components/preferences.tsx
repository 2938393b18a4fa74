import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { preferenceCookie } from "#common/cookies.ts";
import { THEME_COOKIE, THEME_COOKIE_MAX_AGE_SECONDS, type ColorScheme, type ThemeMode } from "#common/theme.ts";

interface ThemeState {
  mode: ThemeMode;
  scheme: ColorScheme;
  setMode(mode: ThemeMode): void;
}

const ThemeContext = createContext<ThemeState>({ mode: "system", scheme: "light", setMode: () => undefined });

const DARK_QUERY = "(prefers-color-scheme: dark)";

/**
 * Light, dark or the system's: the choice is remembered in a cookie so the server renders the right scheme;
 * in "system" mode the page follows the operating system live.
 */
export function ThemeProvider({
  initialMode,
  initialScheme,
  children,
}: {
  initialMode: ThemeMode;
  initialScheme: ColorScheme;
  children: ReactNode;
}) {
  const [mode, setModeState] = useState(initialMode);
  const [systemScheme, setSystemScheme] = useState<ColorScheme>(initialScheme);
  useEffect(() => {
    const query = window.matchMedia(DARK_QUERY);
    const update = () => setSystemScheme(query.matches ? "dark" : "light");
    update();
    query.addEventListener("change", update);
    return () => query.removeEventListener("change", update);
  }, []);
  const setMode = useCallback((next: ThemeMode) => {
    document.cookie = preferenceCookie(THEME_COOKIE, next, THEME_COOKIE_MAX_AGE_SECONDS);
    setModeState(next);
  }, []);
  const scheme = mode === "system" ? systemScheme : mode;
  useEffect(() => {
    document.documentElement.dataset.theme = scheme;
    document.documentElement.dataset.themeMode = mode;
    document.documentElement.style.colorScheme = scheme;
  }, [scheme, mode]);
  const value = useMemo(() => ({ mode, scheme, setMode }), [mode, scheme, setMode]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export const useTheme = () => useContext(ThemeContext);
