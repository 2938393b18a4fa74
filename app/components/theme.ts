import type { ThemeConfig } from "antd";

/** Interface constants: Ant Design's defaults already match most of them; the rest are set here. */
export const theme = (primary: string): ThemeConfig => ({
  token: { colorPrimary: primary, colorLink: primary, borderRadius: 8 },
  components: { Tooltip: { maxWidth: 250 } },
});

export const messageConfig = { duration: 3, top: 8, maxCount: 5 };
export const notificationConfig = { duration: 4.5, top: 24, placement: "topRight" as const };
