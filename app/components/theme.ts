/**
 * The class Ant Design puts on its components and under which its CSS variables live. Fixed, so the stylesheet
 * generated at build time (`app/styles/antd-stylesheet.ts`) matches what every render produces.
 */
export const ANTD_CSS_VAR_KEY = "css-var-atelier";

export const messageConfig = { duration: 3, top: 8, maxCount: 5 };
// Bottom right, where the persistent notices are: at the top right it covered the header's balance and menu.
export const notificationConfig = { duration: 4.5, bottom: 24, placement: "bottomRight" as const };
export const LOADING_BAR = { throttleMs: 200, estimatedMs: 2000, height: 3, hideDelayMs: 500, resetDelayMs: 400 };
export const BACK_TO_TOP = { visibilityHeight: 400, durationMs: 450 };
