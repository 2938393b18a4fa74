import { theme as antdTheme, type ThemeConfig } from "antd";
import type { ColorScheme } from "#common/theme.ts";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

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
