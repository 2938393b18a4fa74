import type { ReactNode } from "react";
import { App as AntApp, ConfigProvider } from "antd";
import { useRoot } from "#app/lib/use-site.ts";
import { useTheme } from "#app/components/preferences.tsx";
import { useAntdLocale } from "#app/i18n/antd.ts";
import { messageConfig, notificationConfig } from "#app/components/theme.ts";
import { theme } from "#app/components/antd-theme.ts";

/**
 * Ant Design's configuration (theme, scheme, language) for the pages built with its components: the dashboard, the
 * account pages and the share page. Public pages, the sign-in forms among them, go without it and load none of its
 * scripts. The root's wrapper already carries `ant-app`, so this adds no element of its own.
 */
export function AntdProvider({ children }: { children: ReactNode }) {
  const { site, locale } = useRoot();
  const { scheme } = useTheme();
  const antdTexts = useAntdLocale(locale);
  return (
    <ConfigProvider theme={theme(site.primaryColor, scheme)} locale={antdTexts}>
      <AntApp component={false} message={messageConfig} notification={notificationConfig}>
        {children}
      </AntApp>
    </ConfigProvider>
  );
}
