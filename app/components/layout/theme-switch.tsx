import DesktopOutlined from "@ant-design/icons-svg/es/asn/DesktopOutlined";
import MoonOutlined from "@ant-design/icons-svg/es/asn/MoonOutlined";
import SunOutlined from "@ant-design/icons-svg/es/asn/SunOutlined";
import { useTranslation } from "react-i18next";
import { Icon } from "#app/components/ui/icon.tsx";
import { Segmented } from "#app/components/ui/segmented.tsx";
import { useTheme } from "#app/components/preferences.tsx";
import { THEME_MODES } from "#common/theme.ts";

const ICONS = { system: DesktopOutlined, light: SunOutlined, dark: MoonOutlined };
/** Drawn from the page's icon sprite: the switch appears twice on a page (drawer and footer). */
export const THEME_ICONS = Object.values(ICONS);

export function ThemeSwitch() {
  const { t } = useTranslation();
  const { mode, setMode } = useTheme();
  return (
    <Segmented
      size="small"
      aria-label={t("theme.label")}
      value={mode}
      onChange={setMode}
      options={THEME_MODES.map((m) => ({
        value: m,
        icon: <Icon icon={ICONS[m]} shared />,
        title: t(`theme.${m}`),
        label: <span className="visually-hidden">{t(`theme.${m}`)}</span>,
      }))}
    />
  );
}
