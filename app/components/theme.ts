import { theme as antdTheme, type ThemeConfig } from "antd";
import type { ColorScheme } from "#common/theme.ts";

/**
 * The class Ant Design puts on its components and under which its CSS variables live. Fixed, so the stylesheet
 * generated at build time (`app/styles/antd-stylesheet.ts`) matches what every render produces.
 */
export const ANTD_CSS_VAR_KEY = "css-var-atelier";

/**
 * Interface constants: Ant Design's defaults already match most of them; the rest are set here. Styles come from
 * the stylesheet generated at build time (zero runtime): components write no CSS while they render, and class
 * names carry no hash, so the server's markup and the browser's are the same.
 */
export const theme = (primary: string, scheme: ColorScheme): ThemeConfig => ({
  algorithm: scheme === "dark" ? antdTheme.darkAlgorithm : antdTheme.defaultAlgorithm,
  token: { colorPrimary: primary, colorLink: primary, borderRadius: 8 },
  components: { Tooltip: { maxWidth: 250 } },
  zeroRuntime: true,
  hashed: false,
  cssVar: { key: ANTD_CSS_VAR_KEY },
  // Tooltips open after 0.1 s, badges overflow at 99+ and the click wave cleans up after itself: the defaults.
});

export const messageConfig = { duration: 3, top: 8, maxCount: 5 };
export const notificationConfig = { duration: 4.5, top: 24, placement: "topRight" as const };
export const LOADING_BAR = { throttleMs: 200, estimatedMs: 2000, height: 3, hideDelayMs: 500, resetDelayMs: 400 };
export const BACK_TO_TOP = { visibilityHeight: 400, durationMs: 450 };
