import { Segmented } from "antd";
import { DesktopOutlined, MoonOutlined, SunOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { useTheme } from "#app/components/preferences.tsx";
import { THEME_MODES, type ThemeMode } from "#common/theme.ts";

const ICONS = { system: <DesktopOutlined />, light: <SunOutlined />, dark: <MoonOutlined /> };

export function ThemeSwitch() {
  const { t } = useTranslation();
  const { mode, setMode } = useTheme();
  return (
    <Segmented<ThemeMode>
      size="small"
      aria-label={t("theme.label")}
      value={mode}
      onChange={setMode}
      options={THEME_MODES.map((m) => ({
        value: m,
        icon: ICONS[m],
        title: t(`theme.${m}`),
        label: <span className="visually-hidden">{t(`theme.${m}`)}</span>,
      }))}
    />
  );
}
