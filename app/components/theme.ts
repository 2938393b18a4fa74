import { theme as antdTheme, type ThemeConfig } from "antd";
import type { ColorScheme } from "#common/theme.ts";

/** Interface constants: Ant Design's defaults already match most of them; the rest are set here. */
export const theme = (primary: string, scheme: ColorScheme): ThemeConfig => ({
  algorithm: scheme === "dark" ? antdTheme.darkAlgorithm : antdTheme.defaultAlgorithm,
  token: { colorPrimary: primary, colorLink: primary, borderRadius: 8 },
  components: { Tooltip: { maxWidth: 250 } },
  // Tooltips open after 0.1 s, badges overflow at 99+ and the click wave cleans up after itself: the defaults.
});

export const messageConfig = { duration: 3, top: 8, maxCount: 5 };
export const notificationConfig = { duration: 4.5, top: 24, placement: "topRight" as const };
export const LOADING_BAR = { throttleMs: 200, estimatedMs: 2000, height: 3, hideDelayMs: 500, resetDelayMs: 400 };
export const BACK_TO_TOP = { visibilityHeight: 400, durationMs: 450 };
